import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CandidatesTable, Database } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

export type CandidateRow = CandidatesTable;
export type ListedCandidate = Omit<CandidateRow, 'organization_id'>;

const LISTED = ['id', 'livemode', 'email', 'name', 'created_at', 'updated_at'] as const;

export function createCandidateRepo(database: Db) {
  const db = database.kysely;
  const scoped = (tx: Kysely<Database>, tenant: Tenant) =>
    tx.selectFrom('candidates').selectAll().where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant));

  // The hot list reads only what a Candidate shows (every column read costs on SQLite).
  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1, email?: string) => {
    const q = db.selectFrom('candidates').select(LISTED).where('organization_id', '=', organizationId).where('livemode', '=', livemode);
    return email === undefined ? q : q.where('email', '=', email);
  });

  return {
    list: (tenant: Tenant, page: PageRequest, email?: string) => pageOf(page, tenant.organizationId, livemodeFlag(tenant), email),
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
        .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).execute();
    },
    /**
     * Holds the candidate's row for the rest of the transaction (PostgreSQL row lock; SQLite's write lock) so that
     * erasure and anything created for the candidate meanwhile are serialised. False when there is no such candidate.
     */
    async lock(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<boolean> {
      const result = await tx.updateTable('candidates').set({ updated_at: sql`updated_at` })
        .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async delete(tx: Kysely<Database>, tenant: Tenant, id: string) {
      await tx.deleteFrom('candidates')
        .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).execute();
    },
    /** Remembered idempotent responses that carry this candidate (they hold its email and name). */
    async forgetIdempotentResponses(tx: Kysely<Database>, tenant: Tenant, id: string) {
      await tx.deleteFrom('idempotency_keys')
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
        .where('response_body', 'like', `%${id}%`).execute();
    },
  };
}

export type CandidateRepo = ReturnType<typeof createCandidateRepo>;
