import type { Kysely } from 'kysely';

/**
 * `GET /v1/events` lists one environment's events newest first (created_at, then id for the events of one
 * millisecond), optionally of one status (`?status=failed`, the documented way to find what needs redelivering).
 * The page index had neither the id nor the status: PostgreSQL read every event of the environment and sorted them
 * for each page, and a status filter walked every event, delivered ones too, to find the few that failed. Two
 * indexes now serve the filter and the whole order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('events_page_idx').execute();
  await db.schema.createIndex('events_page_idx').on('events').columns(['organization_id', 'livemode', 'created_at', 'id']).execute();
  await db.schema.createIndex('events_status_page_idx').on('events').columns(['organization_id', 'livemode', 'status', 'created_at', 'id']).execute();
}
