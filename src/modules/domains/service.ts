import type { Kysely } from 'kysely';
import { lockOrganization } from '../../db/locks.js';
import type { Database, DomainsTable } from '../../db/schema.js';
import { toUnixSeconds, type Clock } from '../../platform/clock.js';
import { livemodeFlag, type KeyAuth, type Tenant } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { parseOrigin } from '../../platform/origin.js';
import type { DomainRepo } from './repo.js';

export function presentDomain(row: DomainsTable) {
  return {
    object: 'domain' as const, id: row.id, origin: row.origin, livemode: row.livemode === 1,
    created_by_key_id: row.created_by_key_id, created_at: toUnixSeconds(row.created_at),
  };
}

/** Origins per environment: every one is sent to each embed page (`GET /v1/embed-config`). */
export const DOMAINS_MAX = 100;

/** The origins an organisation allowlists, per environment: session tokens can only be bound to these. */
export function createDomainService(deps: { db: Kysely<Database>; clock: Clock; repo: DomainRepo }) {
  const { db, clock, repo } = deps;
  return {
    list: repo.list,

    /** Adds an origin; an origin already there answers the existing record (created: false). */
    async add(caller: KeyAuth, rawOrigin: string): Promise<{ row: DomainsTable; created: boolean }> {
      const origin = parseOrigin(rawOrigin);
      const existing = await repo.find(db, caller, origin);
      if (existing) return { row: existing, created: false };
      const row: DomainsTable = {
        id: newId(), organization_id: caller.organizationId, livemode: livemodeFlag(caller), origin,
        created_by_key_id: caller.keyId, created_at: clock.now(),
      };
      const added = await db.transaction().execute(async (tx) => {
        // Counted under the organisation's lock, so that concurrent additions cannot pass the limit together.
        await lockOrganization(tx, caller.organizationId);
        const there = await repo.find(tx, caller, origin);
        if (there) return { row: there, created: false };
        if (await repo.count(tx, caller) >= DOMAINS_MAX) {
          throw new ApiError('domain_limit', { param: 'origin', message: `This environment allowlists ${DOMAINS_MAX} origins, the most it may; delete one first.` });
        }
        await repo.insert(tx, row);
        return { row, created: true };
      });
      if (added.created) repo.allowlistChanged();
      return added;
    },

    async remove(tenant: Tenant, id: string) {
      const row = await repo.get(tenant, id);
      if (!row) throw notFound('domain', id);
      await repo.delete(tenant, id);
      repo.allowlistChanged();
      return row;
    },

    /** Refuses an origin this organisation has not allowlisted in this environment. */
    async assertAllowlisted(tx: Kysely<Database>, tenant: Tenant, origin: string): Promise<void> {
      if (!(await repo.find(tx, tenant, origin))) {
        throw new ApiError('origin_not_allowed', { param: 'origin', message: `${origin} is not allowlisted; add it with POST /v1/domains.` });
      }
    },
  };
}

export type DomainService = ReturnType<typeof createDomainService>;
