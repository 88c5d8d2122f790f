import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

/**
 * AI interviews: the interview with its clock and the built-in interviewer's memory, its plan of questions, the
 * transcript written turn by turn as the conversation goes, and the report. An organisation's limit of interviews
 * at once bounds the bookable slots.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await db.schema.alterTable('organizations').addColumn('max_concurrent_interviews', 'integer', (c) => c.notNull().defaultTo(10)).execute();

  await db.schema.createTable('interviews')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('candidate_id', t.id, (c) => c.references('candidates.id').onDelete('set null'))
    .addColumn('round_type_id', t.id, (c) => c.notNull())
    .addColumn('round_slug', 'text', (c) => c.notNull())
    .addColumn('round_name', 'text', (c) => c.notNull())
    .addColumn('difficulty', 'integer', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('resume_id', t.id)
    .addColumn('company_id', t.id)
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer', (c) => c.notNull())
    .addColumn('scheduled_at', t.time)
    .addColumn('join_by', t.time, (c) => c.notNull()) // never joined by then: expired
    .addColumn('joined_at', t.time) // first join: the credit is spent once, here
    .addColumn('credit_reference', 'text')
    .addColumn('elapsed_ms', 'integer', (c) => c.notNull().defaultTo(0)) // clock time used before the running stretch
    .addColumn('running_since', t.time) // null while paused or not running
    .addColumn('deadline_at', t.time) // while running: when time is up
    .addColumn('paused_at', t.time)
    .addColumn('ended_at', t.time)
    .addColumn('end_reason', 'text')
    .addColumn('completed_at', t.time)
    .addColumn('failure_reason', 'text')
    .addColumn('overall_score', 'integer')
    .addColumn('next_seq', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('interviewer', 'text', (c) => c.notNull()) // JSON: the built-in interviewer's state
    .addColumn('recording_key', 'text')
    .addColumn('invitation', 'text') // JSON: what was (or would have been) sent
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('interviews_tenant_idx').on('interviews').columns(['organization_id', 'livemode', 'id']).execute();
  await db.schema.createIndex('interviews_candidate_idx').on('interviews').columns(['candidate_id']).execute();
  await db.schema.createIndex('interviews_due_idx').on('interviews').columns(['status', 'deadline_at']).execute();
  await db.schema.createIndex('interviews_join_by_idx').on('interviews').columns(['status', 'join_by']).execute();
  await db.schema.createIndex('interviews_scheduled_idx').on('interviews').columns(['organization_id', 'livemode', 'scheduled_at']).execute();

  await db.schema.createTable('interview_questions')
    .addColumn('interview_id', t.id, (c) => c.notNull().references('interviews.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull()) // bank | customer
    .addColumn('question_id', t.id)
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('guidance', 'text', (c) => c.notNull()) // JSON {key_points, follow_ups}
    .addColumn('minutes', 'integer', (c) => c.notNull())
    .addColumn('problem', 'text') // JSON {slug, title, statement}
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('interview_questions_pk', ['interview_id', 'position'])
    .execute();

  await db.schema.createTable('interview_turns')
    .addColumn('interview_id', t.id, (c) => c.notNull().references('interviews.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('speaker', 'text', (c) => c.notNull()) // interviewer | candidate
    .addColumn('kind', 'text', (c) => c.notNull()) // text | code | board
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('question_position', 'integer')
    .addColumn('client_id', 'text') // the candidate's own id for a turn: a resent turn is stored once
    .addColumn('data', 'text') // JSON: a code snapshot and its run, or a whiteboard image's key
    .addColumn('at_ms', 'integer', (c) => c.notNull()) // interview clock when said
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('interview_turns_pk', ['interview_id', 'seq'])
    .execute();
  await db.schema.createIndex('interview_turns_client_idx').on('interview_turns').columns(['interview_id', 'client_id']).unique().execute();

  await db.schema.createTable('interview_reports')
    .addColumn('interview_id', t.id, (c) => c.primaryKey().references('interviews.id').onDelete('cascade'))
    .addColumn('organization_id', t.id, (c) => c.notNull())
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('transcript', 'text', (c) => c.notNull()) // JSON: the processed transcript, as served
    .addColumn('report', 'text', (c) => c.notNull()) // JSON
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
}
