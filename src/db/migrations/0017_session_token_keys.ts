import type { Kysely } from 'kysely';
import { columnTypes } from './types.js';

/**
 * The secret key that minted a session token or a launch link (a token refreshed or exchanged from one carries the
 * same): revoking that key ends what it minted, which nothing else could (a session's jti and a link's token are known
 * only to whoever minted them, the thief of a leaked key too). Null for what was minted before, and for links the
 * service sends itself (interview invitations).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('session_tokens').addColumn('key_id', t.id).execute();
  await db.schema.alterTable('launch_links').addColumn('key_id', t.id).execute();
}
