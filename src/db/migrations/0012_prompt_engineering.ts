import { sql, PostgresAdapter, type Kysely } from 'kysely';
import { columnTypes } from './types.js';

/**
 * Prompt-engineering tasks and assessments (catalogue data, loaded at start and by `prep seed`), sessions on the
 * shared assessment lifecycle, the candidate's attempts with each case's model output, and reports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  const real = db.getExecutor().adapter instanceof PostgresAdapter ? sql`double precision` : sql`real`;

  await db.schema.createTable('prompt_engineering_tasks')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade')) // null: shared
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('skill', 'text', (c) => c.notNull())
    .addColumn('difficulty', 'text', (c) => c.notNull())
    .addColumn('brief', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull()) // JSON: variables, thresholds, cases with assertions, checkers
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema.createTable('prompt_engineering_assessments')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('duration_minutes', 'integer', (c) => c.notNull())
    .addColumn('task_ids', 'text', (c) => c.notNull()) // JSON array, in the order the candidate sees them
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();

  await db.schema.createTable('prompt_engineering_sessions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('candidate_id', t.id, (c) => c.references('candidates.id').onDelete('set null'))
    .addColumn('test_id', t.id, (c) => c.notNull().references('prompt_engineering_assessments.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer')
    .addColumn('credit_reservation_id', t.id)
    .addColumn('finalize_requested_at', t.time)
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('started_at', t.time)
    .addColumn('deadline_at', t.time)
    .addColumn('ended_at', t.time)
    .execute();
  await db.schema.createIndex('prompt_engineering_sessions_tenant_idx').on('prompt_engineering_sessions').columns(['organization_id', 'livemode', 'id']).execute();
  await db.schema.createIndex('prompt_engineering_sessions_candidate_idx').on('prompt_engineering_sessions').columns(['candidate_id', 'test_id', 'status']).execute();
  await db.schema.createIndex('prompt_engineering_sessions_due_idx').on('prompt_engineering_sessions').columns(['status', 'deadline_at']).execute();

  await db.schema.createTable('prompt_attempts')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('session_id', t.id, (c) => c.notNull().references('prompt_engineering_sessions.id').onDelete('cascade'))
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('task_id', t.id, (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // queued | running | graded | error
    .addColumn('execution', 'text') // executed | unavailable, once graded
    .addColumn('execution_reason', 'text')
    .addColumn('results', 'text') // JSON: every case with its output and assertions
    .addColumn('score', real) // 0-100: weighted points on hidden cases
    .addColumn('hidden_passed', 'integer')
    .addColumn('hidden_total', 'integer', (c) => c.notNull())
    .addColumn('craft', 'text', (c) => c.notNull()) // JSON: the prompt-craft analysis, made at submission
    .addColumn('craft_score', 'integer', (c) => c.notNull())
    .addColumn('model', 'text')
    .addColumn('input_tokens', 'integer')
    .addColumn('output_tokens', 'integer')
    .addColumn('latency_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('graded_at', t.time)
    .execute();
  await db.schema.createIndex('prompt_attempts_session_idx').on('prompt_attempts').columns(['session_id', 'task_id', 'id']).execute();

  // Each case's model output as it arrives: a grader that dies mid-attempt leaves these, and the next one asks
  // the model only for the cases still missing.
  await db.schema.createTable('prompt_attempt_outputs')
    .addColumn('attempt_id', t.id, (c) => c.notNull().references('prompt_attempts.id').onDelete('cascade'))
    .addColumn('case_name', 'text', (c) => c.notNull())
    .addColumn('output', 'text', (c) => c.notNull())
    .addColumn('input_tokens', 'integer')
    .addColumn('output_tokens', 'integer')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('prompt_attempt_outputs_pk', ['attempt_id', 'case_name'])
    .execute();

  await db.schema.createTable('prompt_engineering_reports')
    .addColumn('session_id', t.id, (c) => c.primaryKey().references('prompt_engineering_sessions.id').onDelete('cascade'))
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('report', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
}
