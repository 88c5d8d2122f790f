import type { Kysely } from 'kysely';
import type { Database, SigningKeysTable } from '../../db/schema.js';

export function createSigningKeyRepo(db: Kysely<Database>) {
  /** Keys not retired, or retired after `retiredAfter` (epoch ms). */
  const usable = (retiredAfter: number) => db.selectFrom('signing_keys').selectAll()
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAfter)]));

  return {
    insert: (tx: Kysely<Database>, row: SigningKeysTable) => tx.insertInto('signing_keys').values(row).execute(),
    retireAllBut: (tx: Kysely<Database>, kid: string, now: number) => tx.updateTable('signing_keys').set({ retired_at: now })
      .where('retired_at', 'is', null).where('kid', '!=', kid).execute(),
    newestActive: () => db.selectFrom('signing_keys').selectAll().where('retired_at', 'is', null)
      .orderBy('created_at', 'desc').orderBy('kid', 'desc').limit(1).executeTakeFirst(),
    usable: (retiredAfter: number) => usable(retiredAfter).orderBy('created_at', 'desc').execute(),
    usableByKid: (kid: string, retiredAfter: number) => usable(retiredAfter).where('kid', '=', kid).executeTakeFirst(),
  };
}

export type SigningKeyRepo = ReturnType<typeof createSigningKeyRepo>;
