import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Serialises one organisation's writes of a kind it may have only so many of (a no-op write on its row, held until
 * the transaction ends), so that counting them before adding one is exact.
 */
export async function lockOrganization(tx: Kysely<Database>, organizationId: string): Promise<void> {
  await tx.updateTable('organizations').set({ name: sql`name` }).where('id', '=', organizationId).execute();
}
