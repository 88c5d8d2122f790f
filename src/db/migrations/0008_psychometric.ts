import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

/**
 * Psychometric tests (instruments), sessions on the shared assessment lifecycle, and reports. The instruments
 * themselves are catalogue data, loaded at start and by `prep seed` (never by a migration).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);

  await db.schema.createTable('psychometric_tests')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.references('organizations.id').onDelete('cascade')) // null: shared
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('estimated_minutes', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull()) // JSON: languages, choices, scales, items (texts per language), norms
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('psychometric_tests_slug_idx').on('psychometric_tests').columns(['organization_id', 'slug']).unique().execute();

  await db.schema.createTable('psychometric_sessions')
    .addColumn('id', t.id, (c) => c.primaryKey())
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('candidate_id', t.id, (c) => c.references('candidates.id').onDelete('set null'))
    .addColumn('test_id', t.id, (c) => c.notNull().references('psychometric_tests.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('duration_seconds', 'integer')
    .addColumn('credit_reservation_id', t.id)
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('item_order', 'text', (c) => c.notNull()) // JSON array of item ids, fixed per session
    .addColumn('answers', 'text', (c) => c.notNull()) // JSON object item id -> 1..5
    .addColumn('created_at', t.time, (c) => c.notNull())
    .addColumn('updated_at', t.time, (c) => c.notNull())
    .addColumn('started_at', t.time)
    .addColumn('deadline_at', t.time)
    .addColumn('ended_at', t.time)
    .execute();
  await db.schema.createIndex('psychometric_sessions_tenant_idx').on('psychometric_sessions').columns(['organization_id', 'livemode', 'id']).execute();
  await db.schema.createIndex('psychometric_sessions_candidate_idx').on('psychometric_sessions').columns(['candidate_id', 'test_id', 'status']).execute();

  await db.schema.createTable('psychometric_reports')
    .addColumn('session_id', t.id, (c) => c.primaryKey().references('psychometric_sessions.id').onDelete('cascade'))
    .addColumn('organization_id', t.id, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('livemode', t.flag, (c) => c.notNull())
    .addColumn('test_id', t.id, (c) => c.notNull())
    .addColumn('raw_scores', 'text', (c) => c.notNull()) // JSON scale key -> raw sum, for the organisation's local norms
    .addColumn('report', 'text', (c) => c.notNull())
    .addColumn('created_at', t.time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('psychometric_reports_norms_idx').on('psychometric_reports').columns(['organization_id', 'livemode', 'test_id']).execute();
}
