import type { Kysely } from 'kysely';

/**
 * Every list page aggregates the imported figures of one bucket for the caller's owners ('' and its organisation):
 * an index that starts there keeps that a range read when many companies have been imported.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('question_bank_imported_stats_bucket_idx').on('question_bank_imported_stats')
    .columns(['bucket', 'owner', 'question_id', 'frequency', 'acceptance', 'company_slug']).execute();
}
