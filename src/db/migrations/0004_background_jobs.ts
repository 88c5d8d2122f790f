import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

/** The durable job queue: written in the same transaction as the state change that causes the job. */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.createTable('background_jobs')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // queued | running | succeeded | failed
    .addColumn('run_at', t.time, (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('unique_key', 'text', (c) => c.unique()) // held while queued or running: one pending job per key
    .addColumn('locked_by', 'text')
    .addColumn('lease_until', t.time)
    .addColumn('last_error', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('background_jobs_due_idx').on('background_jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('background_jobs_lease_idx').on('background_jobs').columns(['status', 'lease_until']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('background_jobs').ifExists().execute();
}
