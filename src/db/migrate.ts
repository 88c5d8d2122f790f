import { sql, type Transaction } from 'kysely';
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration';
import type { Db } from './database.js';
import type { Database } from './schema.js';
import * as m0001 from './migrations/0001_core.js';
import * as m0002 from './migrations/0002_catalogues.js';
import * as m0003 from './migrations/0003_sessions_and_coding.js';
import * as m0004 from './migrations/0004_background_jobs.js';
import * as m0005 from './migrations/0005_webhooks.js';
import * as m0006 from './migrations/0006_judging.js';
import * as m0007 from './migrations/0007_webhook_secrets.js';
import * as m0008 from './migrations/0008_psychometric.js';
import * as m0009 from './migrations/0009_question_bank.js';
import * as m0010 from './migrations/0010_question_bank_stats_index.js';
import * as m0011 from './migrations/0011_resumes.js';
import * as m0012 from './migrations/0012_prompt_engineering.js';
import * as m0013 from './migrations/0013_interviews.js';
import * as m0014 from './migrations/0014_background_jobs_partial_indexes.js';
import * as m0015 from './migrations/0015_psychometric_answer_marks.js';
import * as m0016 from './migrations/0016_psychometric_norms_recent.js';
import * as m0017 from './migrations/0017_session_token_keys.js';
import * as m0018 from './migrations/0018_event_id_byte_order.js';
import * as m0019 from './migrations/0019_coding_submissions_judged_index.js';
import * as m0020 from './migrations/0020_question_bank_search_text.js';
import * as m0021 from './migrations/0021_session_tokens_origin_index.js';
import * as m0022 from './migrations/0022_webhook_child_key_indexes.js';
import * as m0023 from './migrations/0023_events_page_indexes.js';
import * as m0024 from './migrations/0024_session_status_indexes.js';
import * as m0025 from './migrations/0025_credit_running_balance.js';
import * as m0026 from './migrations/0026_activity_range_indexes.js';
import * as m0027 from './migrations/0027_background_jobs_organization.js';
import * as m0028 from './migrations/0028_question_bank_topic_owner.js';
import * as m0029 from './migrations/0029_question_bank_search_fold.js';
import * as m0030 from './migrations/0030_question_bank_final_sigma.js';
import * as m0031 from './migrations/0031_question_bank_phrase_stop_words.js';

/** Migrations are listed here (not read from a folder) so the compiled build and the tests see the same set. */
export const migrations: Readonly<Record<string, Migration>> = {
  '0001_core': m0001,
  '0002_catalogues': m0002,
  '0003_sessions_and_coding': m0003,
  '0004_background_jobs': m0004,
  '0005_webhooks': m0005,
  '0006_judging': m0006,
  '0007_webhook_secrets': m0007,
  '0008_psychometric': m0008,
  '0009_question_bank': m0009,
  '0010_question_bank_stats_index': m0010,
  '0011_resumes': m0011,
  '0012_prompt_engineering': m0012,
  '0013_interviews': m0013,
  '0014_background_jobs_partial_indexes': m0014,
  '0015_psychometric_answer_marks': m0015,
  '0016_psychometric_norms_recent': m0016,
  '0017_session_token_keys': m0017,
  '0018_event_id_byte_order': m0018,
  '0019_coding_submissions_judged_index': m0019,
  '0020_question_bank_search_text': m0020,
  '0021_session_tokens_origin_index': m0021,
  '0022_webhook_child_key_indexes': m0022,
  '0023_events_page_indexes': m0023,
  '0024_session_status_indexes': m0024,
  '0025_credit_running_balance': m0025,
  '0026_activity_range_indexes': m0026,
  '0027_background_jobs_organization': m0027,
  '0028_question_bank_topic_owner': m0028,
  '0029_question_bank_search_fold': m0029,
  '0030_question_bank_final_sigma': m0030,
  '0031_question_bank_phrase_stop_words': m0031,
};

/** PostgreSQL errors a catalogue read meets when another schema, table or column changes during it. */
const CATALOGUE_RACES = new Set(['42P01', '3F000', '42703']);

/**
 * Applies the migrations the database has not had, all of them in one transaction, on either engine: one that fails
 * or a process that dies part-way leaves the database as it was, with none of them recorded, and the next run applies
 * them all again. `list` is for tests (a migration that fails or stops part-way); the service uses the one above.
 *
 * On PostgreSQL Kysely's Migrator opens the transaction itself (under its advisory lock), and the migration tables are
 * looked up in the database's own schema: Kysely otherwise takes a `kysely_migration` table in any other schema of the
 * same database for its own.
 */
export async function migrateToLatest(db: Db, list: Readonly<Record<string, Migration>> = migrations): Promise<string[]> {
  const provider = { getMigrations: async () => list };
  if (db.dialect === 'sqlite') return applied(await migrateSqlite(db, list, provider));
  const migrator = new Migrator({ db: db.kysely, provider, ...(db.schema ? { migrationTableSchema: db.schema } : {}) });
  for (let attempt = 1; ; attempt++) {
    let outcome: MigrationResultSet;
    try {
      outcome = await migrator.migrateToLatest();
    } catch (error) {
      outcome = { error };
    }
    const { error } = outcome;
    // Kysely looks for its tables by reading the whole catalogue, which PostgreSQL can fail with "relation … does
    // not exist" (42P01), "schema … does not exist" (3F000, from its has_schema_privilege) or "column … of relation …
    // does not exist" (42703) while another schema, its tables or columns are created or dropped (seen in CI, test
    // files migrating and dropping schemas at once). Nothing was applied (the migrations run in one transaction
    // under the migration lock): reading again is safe, and a migration's own error of that code fails the same way
    // five times.
    if (error && CATALOGUE_RACES.has((error as { code?: string }).code ?? '') && attempt < 5) {
      await new Promise((r) => setTimeout(r, 100 * attempt));
      continue;
    }
    if (error) throw asError(error);
    return applied(outcome);
  }
}

/**
 * SQLite: the Migrator runs in a transaction of ours (BEGIN IMMEDIATE: database.ts), which also holds its reads of
 * `kysely_migration`, the creation of its tables and its record of each migration applied. Foreign keys are off for
 * the run, as SQLite's way of changing a table's definition asks (https://sqlite.org/lang_altertable.html#otheralter):
 * a table made again (0028) is dropped without its rows' deletion cascading to, or being refused for, the rows that
 * refer to it, and a migration cannot turn them off itself (PRAGMA foreign_keys does nothing inside a transaction).
 * Before the commit `PRAGMA foreign_key_check` must find no reference the run broke, else nothing is applied (it
 * reads every referring table: only when a migration is to be applied). References already broken before the run (rows
 * a tool with foreign keys off left behind: the sqlite3 shell has them off unless told) are not the run's doing and
 * would otherwise stop every upgrade from then on: they are counted first, per table and parent, and only more of them
 * refuse the run. From the first PRAGMA to the last only this connection's statements are awaited, so no group commit
 * (run at a turn's end) writes in between with foreign keys off.
 */
async function migrateSqlite(db: Db, list: Readonly<Record<string, Migration>>, provider: MigrationProvider): Promise<MigrationResultSet> {
  return db.kysely.connection().execute(async (connection) => {
    await sql`pragma foreign_keys = off`.execute(connection);
    try {
      return await connection.transaction().execute(async (trx) => {
        const before = (await anyPending(trx, list)) ? countByTable(await brokenReferences(trx)) : new Map<string, number>();
        const outcome = await new Migrator({ db: trx, provider }).migrateToLatest();
        if (outcome.error) throw asError(outcome.error); // rolls back whatever the run did
        if (applied(outcome).length > 0) {
          const after = await brokenReferences(trx);
          const counts = countByTable(after);
          const broken = after.filter((r) => counts.get(tableAndParent(r))! > (before.get(tableAndParent(r)) ?? 0));
          if (broken.length > 0) {
            const rows = broken.slice(0, 5).map((r) => `${r.table} row ${r.rowid ?? '?'} → ${r.parent}`).join(', ');
            throw new Error(`migrations ${applied(outcome).join(', ')} left ${broken.length} broken foreign key(s) (${rows}): nothing applied`);
          }
        }
        return outcome;
      });
    } finally {
      await sql`pragma foreign_keys = on`.execute(connection);
    }
  });
}

interface BrokenReference { table: string; rowid: number | null; parent: string }

const brokenReferences = async (trx: Transaction<Database>) => (await sql<BrokenReference>`pragma foreign_key_check`.execute(trx)).rows;
const tableAndParent = (r: BrokenReference) => `${r.table}\u0000${r.parent}`;

function countByTable(rows: BrokenReference[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(tableAndParent(r), (counts.get(tableAndParent(r)) ?? 0) + 1);
  return counts;
}

/** SQLite: whether `list` has a migration the database has not recorded (two small reads, not the Migrator's catalogue read). */
async function anyPending(trx: Transaction<Database>, list: Readonly<Record<string, Migration>>): Promise<boolean> {
  const table = await sql`select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(trx);
  if (table.rows.length === 0) return Object.keys(list).length > 0;
  const recorded = new Set((await sql<{ name: string }>`select name from kysely_migration`.execute(trx)).rows.map((r) => r.name));
  return Object.keys(list).some((name) => !recorded.has(name));
}

function applied({ results }: MigrationResultSet): string[] {
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
