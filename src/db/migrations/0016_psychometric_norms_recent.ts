import type { Kysely } from 'kysely';

/** Local norms read an organisation's latest completed sessions of a test: the index now holds their order. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('psychometric_reports_norms_recent_idx').on('psychometric_reports')
    .columns(['organization_id', 'livemode', 'test_id', 'created_at']).execute();
  await db.schema.dropIndex('psychometric_reports_norms_idx').execute();
}
