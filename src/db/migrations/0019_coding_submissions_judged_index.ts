import type { Kysely } from 'kysely';

/**
 * The question bank's statistics read one organisation's judged submissions of one environment in a window, per
 * problem, on every list page and detail (src/modules/question-bank/activity.ts): an index that starts there keeps
 * that a range read (it scanned every organisation's submissions), and holds the problem and verdict it groups on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('coding_submissions_judged_idx').on('coding_submissions')
    .columns(['organization_id', 'livemode', 'status', 'judged_at', 'problem_id', 'verdict']).execute();
}
