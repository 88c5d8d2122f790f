import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.js';

// The SQLite read cache keeps results until a commit changes a table they read: these pin down what counts.
let dir: string;
let db: Db;
let k: Kysely<any>;

const count = (table: string) => async () => {
  const rows = await db.read<{ n: number }>(sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.compile(k));
  return rows[0].n;
};

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'prep-read-cache-'));
  db = openDatabase({ databaseUrl: null, dataDir: dir });
  k = db.kysely as unknown as Kysely<any>;
  await sql`create table parent (id integer primary key)`.execute(k);
  await sql`create table child (id integer primary key, parent_id integer references parent(id) on delete cascade)`.execute(k);
  await sql`create table other (id integer primary key)`.execute(k);
  await sql`create table audit (id integer primary key autoincrement, what text)`.execute(k);
  await sql`create trigger other_audit after insert on other begin insert into audit (what) values ('other'); end`.execute(k);
  await sql`create view child_view as select * from child`.execute(k);
  await sql`insert into parent (id) values (1)`.execute(k);
  await sql`insert into child (id, parent_id) values (1, 1)`.execute(k);
});
afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite read cache', () => {
  it('a committed write drops the reads of the table it wrote and keeps the others', async () => {
    const children = count('child');
    const others = count('other');
    expect(await children()).toBe(1);
    expect(await others()).toBe(0);
    // A cached read returns the very same frozen array.
    const cached = await db.read(sql`select count(*) as n from other`.compile(k));
    expect(await db.read(sql`select count(*) as n from other`.compile(k))).toBe(cached);

    await k.insertInto('child').values({ id: 2, parent_id: 1 }).execute();
    expect(await children()).toBe(2);
    expect(await db.read(sql`select count(*) as n from other`.compile(k))).toBe(cached);
  });

  it('a write inside a transaction drops the reads only when it commits; one rolled back changes nothing', async () => {
    const children = count('child');
    expect(await children()).toBe(1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const tx = k.transaction().execute(async (trx) => {
      await trx.insertInto('child').values({ id: 3, parent_id: 1 }).execute();
      wrote();
      await gate;
    });
    await written;
    expect(await children()).toBe(1); // not committed yet: read (and cached) from the committed state
    release();
    await tx;
    expect(await children()).toBe(2);

    await expect(k.transaction().execute(async (trx) => {
      await trx.insertInto('child').values({ id: 4, parent_id: 1 }).execute();
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await children()).toBe(2);
  });

  it('follows triggers, foreign-key cascades and views', async () => {
    const audits = count('audit');
    const viaView = count('child_view');
    expect(await audits()).toBe(0);
    expect(await viaView()).toBe(1);
    await k.insertInto('other').values({ id: 1 }).execute(); // the trigger writes audit
    expect(await audits()).toBe(1);
    await k.deleteFrom('parent').where('id', '=', 1).execute(); // cascades to child, read through the view
    expect(await viaView()).toBe(0);
  });

  it("another process's commit drops everything: seen by the next request, and by a read in a later turn", async () => {
    const others = count('other');
    expect(await others()).toBe(0);
    const elsewhere = new SQLite(path.join(dir, 'prep.sqlite'));
    elsewhere.prepare('insert into other (id) values (7)').run();
    db.freshen(); // what the app does as each request arrives
    expect(await others()).toBe(1);

    expect(await others()).toBe(1);
    elsewhere.prepare('insert into other (id) values (8)').run();
    await new Promise((resolve) => setImmediate(resolve)); // a later event-loop turn, no request
    expect(await others()).toBe(2);
    elsewhere.close();
  });

  it('a schema change drops everything and the new schema is learnt', async () => {
    const others = count('other');
    expect(await others()).toBe(0);
    await sql`create table later (id integer primary key)`.execute(k);
    const laters = count('later');
    expect(await laters()).toBe(0);
    await k.insertInto('later').values({ id: 1 }).execute();
    expect(await laters()).toBe(1);
  });
});
