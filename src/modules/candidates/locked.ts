import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';

/**
 * The tenant's candidate, with their row held for the rest of the transaction (a no-op write: PostgreSQL's row lock,
 * SQLite's write lock), so that anything made for them (an assignment, an interview) and their erasure are
 * serialised: it commits before the erasure reads what to erase, or finds them gone. Undefined when there is none.
 */
export function lockedCandidate(tx: Kysely<Database>, tenant: Tenant, id: string) {
  return tx.updateTable('candidates').set({ updated_at: sql`updated_at` })
    .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
    .returning(['id', 'name', 'email']).executeTakeFirst();
}
