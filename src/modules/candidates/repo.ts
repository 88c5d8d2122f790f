import type { Kysely } from 'kysely';
import type { CandidatesTable, Database } from '../../db/schema.js';
import type { Tenant } from '../../platform/context.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';

export type CandidateRow = CandidatesTable;

const lm = (t: Tenant) => (t.livemode ? 1 : 0);

export function createCandidateRepo(db: Kysely<Database>) {
  const scoped = (tx: Kysely<Database>, tenant: Tenant) =>
    tx.selectFrom('candidates').selectAll().where('organization_id', '=', tenant.organizationId).where('livemode', '=', lm(tenant));

  return {
    async list(tenant: Tenant, page: PageRequest, email?: string) {
      let q = scoped(db, tenant);
      if (email !== undefined) q = q.where('email', '=', email);
      return keysetPage(q, page);
    },
    async get(tx: Kysely<Database>, tenant: Tenant, id: string) {
      return scoped(tx, tenant).where('id', '=', id).executeTakeFirst();
    },
    async findByEmail(tx: Kysely<Database>, tenant: Tenant, email: string) {
      return scoped(tx, tenant).where('email', '=', email).executeTakeFirst();
    },
    async insert(tx: Kysely<Database>, row: CandidateRow) {
      await tx.insertInto('candidates').values(row).execute();
    },
    async update(tx: Kysely<Database>, tenant: Tenant, id: string, changes: Partial<Pick<CandidateRow, 'email' | 'name' | 'updated_at'>>) {
      await tx.updateTable('candidates').set(changes)
        .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', lm(tenant)).execute();
    },
    async delete(tx: Kysely<Database>, tenant: Tenant, id: string) {
      await tx.deleteFrom('candidates')
        .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', lm(tenant)).execute();
    },
    /** Remembered idempotent responses that carry this candidate (they hold its email and name). */
    async forgetIdempotentResponses(tx: Kysely<Database>, tenant: Tenant, id: string) {
      await tx.deleteFrom('idempotency_keys')
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', lm(tenant))
        .where('response_body', 'like', `%${id}%`).execute();
    },
  };
}

export type CandidateRepo = ReturnType<typeof createCandidateRepo>;
