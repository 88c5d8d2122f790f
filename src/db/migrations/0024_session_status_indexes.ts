import type { Kysely } from 'kysely';

/**
 * The session lists (`GET /v1/coding-sessions`, `/v1/psychometric-sessions`, `/v1/prompt-engineering-sessions`,
 * `/v1/interviews`) take a `status` filter, newest first. Their page indexes are (organization_id, livemode, id): a
 * page of the few sessions under way walked every session of the environment, finished ones too, filtering on status.
 * These indexes serve the filter and the order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['coding_sessions', 'psychometric_sessions', 'prompt_engineering_sessions', 'interviews']) {
    await db.schema.createIndex(`${table}_status_page_idx`).on(table).columns(['organization_id', 'livemode', 'status', 'id']).execute();
  }
}
