import type { Kysely } from 'kysely';

/**
 * `GET /v1/analytics/activity?since=&until=` counts, per table, one environment's rows created in a range. No index
 * held created_at after (organization_id, livemode): both engines read every row of the environment through another
 * index and filtered the range afterwards. These indexes serve the range.
 */
const TABLES = ['candidates', 'coding_sessions', 'interviews', 'prompt_engineering_sessions', 'psychometric_sessions', 'resumes'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) {
    await db.schema.createIndex(`${table}_created_idx`).on(table).columns(['organization_id', 'livemode', 'created_at']).execute();
  }
}
