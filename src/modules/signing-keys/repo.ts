import type { Kysely } from 'kysely';
import type { Database, SigningKeysTable } from '../../db/schema.js';

export function createSigningKeyRepo(db: Kysely<Database>) {
  /** Keys not retired, or retired after `retiredAfter` (epoch ms). */
  const usable = (retiredAfter: number) => db.selectFrom('signing_keys').selectAll()
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]));

  return {
    insert: (tx: Kysely<Database>, row: SigningKeysTable) => tx.insertInto('signing_keys').values(row).execute(),
    /** Every other key stops signing at `at` at the latest (now, or later: a rotation published ahead). */
    retireAllBut: (tx: Kysely<Database>, kid: string, at: number) => tx.updateTable('signing_keys').set({ retired_at: at })
      .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', at)])).where('kid', '!=', kid).execute(),
    /** The keys that may sign at `now` (not retired by then), oldest first. */
    signable: (now: number) => db.selectFrom('signing_keys').selectAll()
      .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', now)]))
      .orderBy('created_at').orderBy('kid').execute(),
    usable: (retiredAfter: number) => usable(retiredAfter).orderBy('created_at', 'desc').execute(),
    usableByKid: (kid: string, retiredAfter: number) => usable(retiredAfter).where('kid', '=', kid).executeTakeFirst(),
  };
}

export type SigningKeyRepo = ReturnType<typeof createSigningKeyRepo>;
