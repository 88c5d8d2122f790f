import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import type { Migration } from 'kysely/migration';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest, migrations } from '../../src/db/migrate.js';
import { newId } from '../../src/platform/ids.js';
import { DIALECT, throwawayDatabase } from '../helpers/harness.js';
import { ROOT } from '../helpers/processes.js';

// Migrations run in one transaction on both engines: one that fails, or a process killed part-way through one,
// leaves the database as it was (none of the run's migrations recorded), and the next run applies them.

const TOPIC_OWNER = '0028_question_bank_topic_owner'; // SQLite makes its table again: create, copy, drop, rename
const through = (last: string) => Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= last));
/** Every migration from `first` on, in order: what a rerun applies once the run that stopped in `first` is undone. */
const from = (first: string) => Object.keys(migrations).filter((name) => name >= first);
const BASE_ENV = { PREP_LOG_LEVEL: 'silent', PREP_PUBLIC_URL: 'http://localhost:8080', PREP_ENCRYPTION_KEY: 'ab'.repeat(32) };

let database: Awaited<ReturnType<typeof throwawayDatabase>>;
let db: Db;
const open = () => openDatabase(loadConfig({ ...BASE_ENV, ...database.env }));
beforeEach(async () => {
  database = await throwawayDatabase();
  db = open();
});
afterEach(async () => {
  await db.close();
  await database.drop();
});

/** Stops a migration after its `n`th statement has run: `stop` throws, or never returns (the process is killed). */
function stopAfter(n: number, stop: () => Promise<never>): KyselyPlugin {
  let count = 0;
  return {
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => {
      if (++count === n) await stop();
      return result;
    },
  };
}

/** The database's tables, columns, indexes and constraints, the migrations it records and the topics it holds. */
async function snapshot(d: Db) {
  const k = d.kysely;
  const schema = d.dialect === 'sqlite'
    ? (await sql`select type, name, tbl_name, sql from sqlite_master order by type, name`.execute(k)).rows
    : [
      (await sql`select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
        where table_schema = ${d.schema} order by table_name, column_name`.execute(k)).rows,
      (await sql`select indexname, indexdef from pg_indexes where schemaname = ${d.schema} order by indexname`.execute(k)).rows,
      (await sql`select conname, pg_get_constraintdef(c.oid) as def from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where n.nspname = ${d.schema} order by conname`.execute(k)).rows,
    ];
  const applied = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(k)).rows.map((r) => r.name);
  const topics = (await sql`select * from question_bank_taxonomy order by kind, slug`.execute(k)).rows;
  return { schema, applied, topics };
}

/** Topics, one only an organisation's question has: 0028 moves it to that organisation. */
async function holdTopics(k: Kysely<any>): Promise<string> {
  const org = newId();
  await k.insertInto('organizations').values({ id: org, name: 'A', created_at: 1 }).execute();
  await k.insertInto('question_bank_taxonomy').values([
    { kind: 'category', slug: 'coding', name: 'Coding', description: null },
    { kind: 'topic', slug: 'org-only', name: 'Org Only', description: 'd' },
  ]).execute();
  const question = {
    id: newId(), organization_id: org, slug: 'q', title: 'Q', title_key: 'q', prompt: 'p', category: 'coding', difficulty: 'easy',
    difficulty_rank: 1, guidance: null, problem_id: null, source: 'organization', link: null, created_at: 1, updated_at: 1,
  };
  await k.insertInto('question_bank_questions').values(question).execute();
  await k.insertInto('question_bank_question_topics').values({ question_id: question.id, topic: 'org-only' }).execute();
  return org;
}

async function expectTopicsMoved(org: string) {
  expect(await db.kysely.selectFrom('question_bank_taxonomy').select(['owner', 'kind', 'slug']).orderBy('kind').execute())
    .toEqual([{ owner: '', kind: 'category', slug: 'coding' }, { owner: org, kind: 'topic', slug: 'org-only' }]);
}

describe('migrations are atomic', () => {
  it('a migration that fails part-way leaves the database as it was, and the next run applies it', async () => {
    await migrateToLatest(db, through('0027_background_jobs_organization'));
    const org = await holdTopics(db.kysely);
    const before = await snapshot(db);

    // 0028 stopped after its third statement: on SQLite the new table is made and filled and the old one dropped.
    const stopped = stopAfter(3, async () => { throw new Error('stopped part-way'); });
    const failing = { ...through(TOPIC_OWNER), [TOPIC_OWNER]: { up: (k) => migrations[TOPIC_OWNER].up(k.withPlugin(stopped)) } satisfies Migration };
    await expect(migrateToLatest(db, failing)).rejects.toThrow('stopped part-way');
    expect(await snapshot(db)).toEqual(before);
    if (db.dialect === 'sqlite') expect((await sql`pragma foreign_keys`.execute(db.kysely)).rows).toEqual([{ foreign_keys: 1 }]);

    expect(await migrateToLatest(db)).toEqual(from(TOPIC_OWNER));
    await expectTopicsMoved(org);
  });

  it('the migrations of one run are applied together or not at all', async () => {
    await migrateToLatest(db);
    const before = await snapshot(db);
    const made: Migration = {
      async up(k) {
        await k.schema.createTable('atomic_made').addColumn('id', 'text', (c) => c.primaryKey()).execute();
        await k.insertInto('atomic_made').values({ id: 'a' }).execute();
        await k.schema.alterTable('question_bank_taxonomy').addColumn('atomic_extra', 'text').execute();
        await k.insertInto('question_bank_taxonomy').values({ owner: '', kind: 'topic', slug: 'atomic', name: 'Atomic' }).execute();
      },
    };
    const indexed = (fail: boolean): Migration => ({
      async up(k) {
        await k.schema.createIndex('atomic_made_idx').on('atomic_made').column('id').execute();
        if (fail) throw new Error('second migration failed');
      },
    });
    await expect(migrateToLatest(db, { ...migrations, '9990_made': made, '9991_indexed': indexed(true) })).rejects.toThrow('second migration failed');
    expect(await snapshot(db)).toEqual(before);

    expect(await migrateToLatest(db, { ...migrations, '9990_made': made, '9991_indexed': indexed(false) })).toEqual(['9990_made', '9991_indexed']);
    expect(await db.kysely.selectFrom('atomic_made' as any).selectAll().execute()).toEqual([{ id: 'a' }]);
  });

  it('a migration that leaves a broken reference applies nothing', async () => {
    await migrateToLatest(db);
    const before = await snapshot(db);
    const orphan: Migration = {
      async up(k) {
        await k.schema.createTable('atomic_made').addColumn('id', 'text', (c) => c.primaryKey()).execute();
        await k.insertInto('question_bank_question_topics').values({ question_id: newId(), topic: 'none' }).execute();
      },
    };
    // SQLite: refused by the foreign-key check before the commit (foreign keys are off during the run); PostgreSQL: at once.
    await expect(migrateToLatest(db, { ...migrations, '9990_orphan': orphan })).rejects.toThrow(DIALECT === 'sqlite' ? /broken foreign key/ : /foreign key/);
    expect(await snapshot(db)).toEqual(before);
  });

  // The sqlite3 shell (and any tool) has foreign keys off unless told: a row it deleted can leave rows referring to it.
  // Such a reference is not the run's doing and must not stop every upgrade from then on; one the run breaks still does.
  it.runIf(DIALECT === 'sqlite')('a reference broken before the run does not stop it; one the run breaks does', async () => {
    await migrateToLatest(db, through('0027_background_jobs_organization'));
    await db.kysely.connection().execute(async (k) => {
      await sql`pragma foreign_keys = off`.execute(k);
      await k.insertInto('question_bank_question_topics').values({ question_id: newId(), topic: 'left-by-a-tool' }).execute();
      await sql`pragma foreign_keys = on`.execute(k);
    });
    const left = (await sql`pragma foreign_key_check`.execute(db.kysely)).rows;
    expect(left).toHaveLength(1);

    expect(await migrateToLatest(db)).toEqual(from(TOPIC_OWNER));
    expect((await sql`pragma foreign_key_check`.execute(db.kysely)).rows).toEqual(left);
    const orphan: Migration = {
      async up(k) {
        await k.insertInto('question_bank_question_topics').values({ question_id: newId(), topic: 'left-by-the-run' }).execute();
      },
    };
    const before = await snapshot(db);
    await expect(migrateToLatest(db, { ...migrations, '9990_orphan': orphan })).rejects.toThrow(/broken foreign key/);
    expect(await snapshot(db)).toEqual(before);
    expect((await sql`pragma foreign_key_check`.execute(db.kysely)).rows).toEqual(left);
  });

  // SQLite's way of changing a table's definition (https://sqlite.org/lang_altertable.html#otheralter): with foreign
  // keys on, dropping the old table deleted the rows that referred to it (ON DELETE CASCADE).
  it.runIf(DIALECT === 'sqlite')('a table made again keeps the rows that refer to it', async () => {
    const tables: Migration = {
      async up(k) {
        await sql`create table atomic_parent (id text primary key)`.execute(k);
        await sql`create table atomic_child (id text primary key, parent_id text not null references atomic_parent (id) on delete cascade)`.execute(k);
        await sql`insert into atomic_parent values ('p')`.execute(k);
        await sql`insert into atomic_child values ('c', 'p')`.execute(k);
      },
    };
    const remade: Migration = {
      async up(k) {
        await sql`create table atomic_parent_new (id text primary key, label text not null default '')`.execute(k);
        await sql`insert into atomic_parent_new (id) select id from atomic_parent`.execute(k);
        await sql`drop table atomic_parent`.execute(k);
        await sql`alter table atomic_parent_new rename to atomic_parent`.execute(k);
      },
    };
    expect(await migrateToLatest(db, { ...migrations, '9990_tables': tables, '9991_remade': remade })).toContain('9991_remade');
    expect((await sql`select id, parent_id from atomic_child`.execute(db.kysely)).rows).toEqual([{ id: 'c', parent_id: 'p' }]);
    expect((await sql`select id, label from atomic_parent`.execute(db.kysely)).rows).toEqual([{ id: 'p', label: '' }]);
    expect((await sql`pragma foreign_key_check`.execute(db.kysely)).rows).toEqual([]);
    expect((await sql`pragma foreign_keys`.execute(db.kysely)).rows).toEqual([{ foreign_keys: 1 }]);
  });

  it('a process killed part-way through a migration leaves a database the next run migrates', { timeout: 120_000 }, async () => {
    await migrateToLatest(db, through('0027_background_jobs_organization'));
    const org = await holdTopics(db.kysely);
    const before = await snapshot(db);
    await db.close();
    try {
      await killedPartWay();
    } finally {
      db = open();
    }
    expect(await snapshot(db)).toEqual(before);
    if (db.dialect === 'sqlite') expect((await sql`pragma integrity_check`.execute(db.kysely)).rows).toEqual([{ integrity_check: 'ok' }]);
    expect(await migrateToLatest(db)).toEqual(from(TOPIC_OWNER));
    await expectTopicsMoved(org);
  });
});

/**
 * The built service's migrator, run in another process on 0028 stopped after its third statement (SQLite: the old
 * table dropped, the new one not yet renamed), where it waits until it is killed (SIGKILL).
 */
async function killedPartWay(): Promise<void> {
  const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', file)).href);
  const script = `
    import { loadConfig } from ${dist('config.js')};
    import { openDatabase } from ${dist('db/database.js')};
    import { migrateToLatest, migrations } from ${dist('db/migrate.js')};
    let count = 0;
    const stopped = {
      transformQuery: ({ node }) => node,
      async transformResult({ result }) {
        if (++count === 3) {
          process.stdout.write('stopped part-way\\n');
          await new Promise(() => setInterval(() => {}, 60_000)); // until killed
        }
        return result;
      },
    };
    const list = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= ${JSON.stringify(TOPIC_OWNER)}));
    list[${JSON.stringify(TOPIC_OWNER)}] = { up: (k) => migrations[${JSON.stringify(TOPIC_OWNER)}].up(k.withPlugin(stopped)) };
    await migrateToLatest(openDatabase(loadConfig(process.env)), list);
    process.stdout.write('finished\\n');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT, env: { ...process.env, ...BASE_ENV, ...database.env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => output.includes('stopped part-way') && resolve());
      void exited.then(() => reject(new Error(`the migrating process ended before it stopped part-way:\n${output}`)));
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  expect(child.signalCode).toBe('SIGKILL');
}
