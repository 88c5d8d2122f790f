import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

/** Judging: submissions, reports, reference timings, per-test attempt budgets; loads the coding catalogue. */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('coding_tests').addColumn('attempts_per_problem', 'integer', (c) => c.notNull().defaultTo(10)).execute();
  await db.schema.alterTable('coding_problems').addColumn('reference_solutions', 'text').execute();
  await db.schema.alterTable('coding_sessions').addColumn('finalize_requested_at', t.time).execute();

  await db.schema.createTable('coding_submissions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('session_id', t.id, (c) => c.notNull().references('coding_sessions.id').onDelete('cascade'))
    .addColumn('problem_id', t.id, (c) => c.notNull().references('coding_problems.id'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('verdict', 'text', (c) => c.notNull())
    .addColumn('results', 'text')
    .addColumn('cases_passed', 'integer', (c) => c.notNull())
    .addColumn('cases_total', 'integer', (c) => c.notNull())
    .addColumn('hidden_passed', 'integer', (c) => c.notNull())
    .addColumn('hidden_total', 'integer', (c) => c.notNull())
    .addColumn('large_time_ms', 'integer')
    .addColumn('max_time_ms', 'integer')
    .addColumn('max_memory_kb', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('judged_at', t.time)
    .execute();
  await db.schema.createIndex('coding_submissions_problem_idx').on('coding_submissions').columns(['session_id', 'problem_id', 'created_at']).execute();

  await db.schema.createTable('coding_reports')
    .addColumn('session_id', t.id, (c) => c.primaryKey().references('coding_sessions.id').onDelete('cascade'))
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('report', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema.createTable('coding_reference_timings')
    .addColumn('problem_id', t.id, (c) => c.notNull().references('coding_problems.id').onDelete('cascade'))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('large_time_ms', 'integer', (c) => c.notNull())
    .addColumn('measured_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('coding_reference_timings_pk', ['problem_id', 'language'])
    .execute();

  // The coding catalogue itself loads through prepareDatabase (src/catalogues.ts) and `prep seed`, not here.
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['coding_reference_timings', 'coding_reports', 'coding_submissions']) await db.schema.dropTable(table).ifExists().execute();
}
