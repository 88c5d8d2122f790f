import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Kysely } from 'kysely';
import { newId } from '../../platform/ids.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

import type { ExpressionBuilder } from 'kysely';

/** Catalogue entries visible to one organisation: shared ones (organization_id null) and its own. */
export function createCatalogueRepo(database: Db) {
  const db = database.kysely;
  const visibleTo = (organizationId: string) => (eb: ExpressionBuilder<Database, 'round_types' | 'companies' | 'jobs'>) =>
    eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]);

  const roundTypes = keysetPager(database, (organizationId: string) => db.selectFrom('round_types').selectAll().where(visibleTo(organizationId)));
  const companies = keysetPager(database, (organizationId: string) => db.selectFrom('companies').selectAll().where(visibleTo(organizationId)));
  const jobs = keysetPager(database, (organizationId: string, companyId?: string) => {
    const q = db.selectFrom('jobs').selectAll().where(visibleTo(organizationId));
    return companyId === undefined ? q : q.where('company_id', '=', companyId);
  });

  return {
    /** A company this organisation may name (shared, or its own), by id. */
    visibleCompany: (tx: Kysely<Database>, organizationId: string, id: string) => tx.selectFrom('companies').select('id')
      .where('id', '=', id).where(visibleTo(organizationId)).executeTakeFirst(),
    roundTypes: (organizationId: string, page: PageRequest) => roundTypes(page, organizationId),
    companies: (organizationId: string, page: PageRequest) => companies(page, organizationId),
    jobs: (organizationId: string, page: PageRequest, companyId?: string) => jobs(page, organizationId, companyId),

    /** An organisation's own entry (operators add them with the CLI). */
    async addRoundType(organizationId: string, input: { slug: string; name: string; description: string; duration_minutes: number }, now: number, tx: Kysely<Database> = db) {
      const row = { id: newId(), organization_id: organizationId, created_at: now, ...input };
      await tx.insertInto('round_types').values(row).execute();
      return row;
    },
    async addCompany(organizationId: string, input: { slug: string; name: string; industry: string; size: string; headquarters: string | null }, now: number, tx: Kysely<Database> = db) {
      const row = { id: newId(), organization_id: organizationId, created_at: now, ...input };
      await tx.insertInto('companies').values(row).execute();
      return row;
    },
    async addJob(organizationId: string, input: { slug: string; title: string; company_id: string | null; level: string; location: string | null; employment_type: string; description: string; skills: string[] }, now: number, tx: Kysely<Database> = db) {
      const row = { id: newId(), organization_id: organizationId, created_at: now, ...input, skills: JSON.stringify(input.skills) };
      await tx.insertInto('jobs').values(row).execute();
      return row;
    },
  };
}
