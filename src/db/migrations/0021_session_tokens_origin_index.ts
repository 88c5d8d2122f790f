import type { Kysely } from 'kysely';

/**
 * CORS grants an origin that is no longer allowlisted while a session token bound to it is still live (a removed domain's
 * sessions keep working until they expire): looked up by origin and expiry, for any origin a request names, so an index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('session_tokens_origin_idx').on('session_tokens').columns(['origin', 'expires_at']).execute();
}
