import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepared } from '../../db/prepared.js';
import type { Database, DomainsTable } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

export function createDomainRepo(database: Db) {
  const db = database.kysely;
  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1) =>
    db.selectFrom('domains').selectAll().where('organization_id', '=', organizationId).where('livemode', '=', livemode));
  const anyWithOrigin = prepared(database, (origin: string) => db.selectFrom('domains').select('id').where('origin', '=', origin).limit(1));
  /** Counts this process's allowlist writes, so that what was decided from the allowlist before one is decided again. */
  let changes = 0;

  return {
    list: (tenant: Tenant, page: PageRequest) => pageOf(page, tenant.organizationId, livemodeFlag(tenant)),
    all: (tenant: Tenant) => db.selectFrom('domains').select('origin')
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).orderBy('id', 'desc').execute(),
    find: (tx: Kysely<Database>, tenant: Tenant, origin: string) => tx.selectFrom('domains').selectAll()
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).where('origin', '=', origin).executeTakeFirst(),
    get: (tenant: Tenant, id: string) => db.selectFrom('domains').selectAll()
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).where('id', '=', id).executeTakeFirst(),
    count: async (tx: Kysely<Database>, tenant: Tenant) => Number((await tx.selectFrom('domains').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirstOrThrow()).n),
    insert: (tx: Kysely<Database>, row: DomainsTable) => tx.insertInto('domains').values(row).execute(),
    delete: (tenant: Tenant, id: string) => db.deleteFrom('domains')
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).where('id', '=', id).execute(),
    /** Called once an allowlist write is committed (not before: a read in between would see the old allowlist). */
    allowlistChanged: () => void changes++,
    allowlistChanges: () => changes,
    /** Whether any organisation allowlists this origin (decides CORS before a token is read). */
    isAllowlistedAnywhere: async (origin: string) => (await anyWithOrigin(origin)).length > 0,
  };
}

export type DomainRepo = ReturnType<typeof createDomainRepo>;
