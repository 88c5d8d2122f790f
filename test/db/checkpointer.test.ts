import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCheckpointer, type Checkpointer } from '../../src/db/checkpointer.js';
import { openDatabase } from '../../src/db/database.js';

// WAL checkpoints on their own thread: the writer stops checkpointing only while the thread runs, the thread keeps
// the WAL as short as SQLite would, and the writer takes over again whenever the thread is gone.
let dir: string;
let file: string;
let writer: SQLite.Database;
let checkpointer: Checkpointer | null;

const autocheckpoint = () => writer.pragma('wal_autocheckpoint', { simple: true }) as number;
const walBytes = () => statSync(`${file}-wal`).size;

async function until(check: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(5);
  }
}

/** 40 commits of about 100 pages each, with a pause after each (the time a server spends between writes). */
async function writeBatches() {
  const insert = writer.prepare('insert into blobs (data) values (?)');
  for (let i = 0; i < 40; i++) {
    insert.run(Buffer.alloc(400 * 1024, i));
    await sleep(50); // time for the thread to checkpoint between writes, also on a busy machine
  }
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'prep-checkpoints-'));
  file = path.join(dir, 'db.sqlite');
  writer = new SQLite(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.exec('create table blobs (id integer primary key, data blob not null)');
  checkpointer = null;
});
afterEach(async () => {
  await checkpointer?.stop();
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('background WAL checkpoints', () => {
  it('the writer stops checkpointing once the thread runs, and the thread keeps the WAL short', async () => {
    expect(autocheckpoint()).toBe(1000);
    checkpointer = startCheckpointer(writer, file, { busyMs: 5, idleMs: 50 });
    await until(() => autocheckpoint() === 0);
    await writeBatches();
    const withThread = walBytes();
    expect(writer.prepare('select count(*) from blobs').pluck().get()).toBe(40);

    // The same writes with nobody checkpointing: the WAL holds all of them.
    await checkpointer.stop();
    writer.pragma('wal_checkpoint(TRUNCATE)');
    writer.pragma('wal_autocheckpoint = 0');
    await writeBatches();
    const withoutAnyone = walBytes();
    expect(withoutAnyone).toBeGreaterThan(40 * 400 * 1024);
    expect(withThread).toBeLessThan(withoutAnyone / 4);
  });

  it('hands checkpointing back to the writer when stopped', async () => {
    checkpointer = startCheckpointer(writer, file);
    await until(() => autocheckpoint() === 0);
    expect(checkpointer.running()).toBe(true);
    await checkpointer.stop();
    expect(checkpointer.running()).toBe(false);
    expect(autocheckpoint()).toBe(1000);
  });

  it('a thread that cannot run leaves the writer checkpointing', async () => {
    checkpointer = startCheckpointer(writer, path.join(dir, 'missing', 'db.sqlite'));
    await until(() => !checkpointer!.running());
    expect(autocheckpoint()).toBe(1000);
  });

  it('a database opened for a server writes, reads and closes with its thread', async () => {
    const db = openDatabase({ databaseUrl: null, dataDir: dir, sqliteFile: 'server.sqlite', backgroundCheckpoints: true });
    await sql`create table t (id integer primary key, v text)`.execute(db.kysely);
    for (let i = 0; i < 200; i++) await sql`insert into t (v) values (${'x'.repeat(5000)})`.execute(db.kysely);
    const [row] = await db.read<{ n: number }>(sql<{ n: number }>`select count(*) as n from t`.compile(db.kysely));
    expect(row!.n).toBe(200);
    await db.close();
    // The last connection to close checkpoints and removes the WAL: nothing was left holding it.
    expect(existsSync(path.join(dir, 'server.sqlite-wal'))).toBe(false);
    const reopened = new SQLite(path.join(dir, 'server.sqlite'));
    expect(reopened.prepare('select count(*) from t').pluck().get()).toBe(200);
    reopened.close();
  });
});
