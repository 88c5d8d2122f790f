import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ApiKeysTable, Database } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { prepared } from '../../db/prepared.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

export type ApiKeyRow = ApiKeysTable;

export function createApiKeyRepo(database: Db) {
  const db = database.kysely;
  /** The key and whether its organisation has the public API on, in one query (the auth hot path). */
  const findForAuth = prepared(database, (hash: string) =>
    db.selectFrom('api_keys')
      .innerJoin('organizations', 'organizations.id', 'api_keys.organization_id')
      .select([
        'api_keys.id', 'api_keys.organization_id', 'api_keys.livemode', 'api_keys.type', 'api_keys.rate_limit',
        'api_keys.expires_at', 'api_keys.revoked_at', 'organizations.api_enabled',
      ])
      .where('api_keys.key_hash', '=', hash));

  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1) =>
    db.selectFrom('api_keys').selectAll().where('organization_id', '=', organizationId).where('livemode', '=', livemode));

  return {
    findForAuth: async (hash: string) => (await findForAuth(hash))[0],

    async insert(tx: Kysely<Database>, row: ApiKeyRow): Promise<void> {
      await tx.insertInto('api_keys').values(row).execute();
    },

    async get(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<ApiKeyRow | undefined> {
      return tx
        .selectFrom('api_keys')
        .selectAll()
        .where('id', '=', id)
        .where('organization_id', '=', tenant.organizationId)
        .where('livemode', '=', livemodeFlag(tenant))
        .executeTakeFirst();
    },

    list: (tenant: Tenant, page: PageRequest) => pageOf(page, tenant.organizationId, livemodeFlag(tenant)),
    /** The environment's keys that still work at `now` (neither revoked nor expired). */
    async countLive(tx: Kysely<Database>, tenant: Tenant, now: number): Promise<number> {
      const row = await tx.selectFrom('api_keys').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
        .where((eb) => eb.or([eb('revoked_at', 'is', null), eb('revoked_at', '>', now)]))
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Retires a key still active (not revoked, expiring or replaced); false when another request got there first. */
    async retireIfActive(tx: Kysely<Database>, id: string, changes: Partial<Pick<ApiKeyRow, 'expires_at' | 'revoked_at' | 'replaced_by'>>): Promise<boolean> {
      const r = await tx.updateTable('api_keys').set(changes).where('id', '=', id)
        .where('revoked_at', 'is', null).where('expires_at', 'is', null).where('replaced_by', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    async update(tx: Kysely<Database>, id: string, changes: Partial<Pick<ApiKeyRow, 'expires_at' | 'revoked_at' | 'replaced_by' | 'rate_limit'>>) {
      await tx.updateTable('api_keys').set(changes).where('id', '=', id).execute();
    },
  };
}

export type ApiKeyRepo = ReturnType<typeof createApiKeyRepo>;
