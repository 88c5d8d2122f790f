import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CodingProblemsTable, CodingTestsTable, Database } from '../../db/schema.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

export interface TestFilters {
  skill?: string;
  difficulty?: string;
}

/** Coding tests visible to an organisation: the shared catalogue (organization_id null) and its own. */
export function createCodingCatalogRepo(database: Db) {
  const db = database.kysely;
  const visible = (organizationId: string, filters: TestFilters) => {
    let q = db.selectFrom('coding_tests').where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]));
    if (filters.difficulty !== undefined) q = q.where('difficulty', '=', filters.difficulty as CodingTestsTable['difficulty']);
    if (filters.skill !== undefined) q = q.where('skills', 'like', `%${JSON.stringify(filters.skill)}%`);
    return q;
  };
  const pageOf = keysetPager(database, (organizationId: string, difficulty?: string, skill?: string) =>
    visible(organizationId, { difficulty, skill }).selectAll());

  return {
    list: (organizationId: string, page: PageRequest, filters: TestFilters) => pageOf(page, organizationId, filters.difficulty, filters.skill),
    async count(organizationId: string, filters: TestFilters): Promise<number> {
      const row = await visible(organizationId, filters).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    getTest: (tx: Kysely<Database>, organizationId: string, id: string) => tx.selectFrom('coding_tests').selectAll()
      .where('id', '=', id).where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)])).executeTakeFirst(),
    slotCounts: async (testIds: string[]) => {
      if (testIds.length === 0) return new Map<string, number>();
      const rows = await db.selectFrom('coding_test_slots').select(['test_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('test_id', 'in', testIds).groupBy('test_id').execute();
      return new Map(rows.map((r) => [r.test_id, Number(r.n)]));
    },
    /** Each slot with its pool of variant problems, in order. */
    async slots(tx: Kysely<Database>, testId: string) {
      const rows = await tx.selectFrom('coding_test_slots')
        .innerJoin('coding_slot_problems', 'coding_slot_problems.slot_id', 'coding_test_slots.id')
        .select(['coding_test_slots.id as slot_id', 'coding_test_slots.position', 'coding_test_slots.title', 'coding_slot_problems.problem_id'])
        .where('coding_test_slots.test_id', '=', testId)
        .orderBy('coding_test_slots.position').orderBy('coding_slot_problems.position').execute();
      const slots = new Map<number, { position: number; title: string; problemIds: string[] }>();
      for (const r of rows) {
        const slot = slots.get(r.position) ?? { position: r.position, title: r.title, problemIds: [] };
        slot.problemIds.push(r.problem_id);
        slots.set(r.position, slot);
      }
      return [...slots.values()];
    },
    problems: async (tx: Kysely<Database>, ids: string[]): Promise<Map<string, CodingProblemsTable>> => {
      if (ids.length === 0) return new Map();
      const rows = await tx.selectFrom('coding_problems').selectAll().where('id', 'in', ids).execute();
      return new Map(rows.map((r) => [r.id, r]));
    },
  };
}

export type CodingCatalogRepo = ReturnType<typeof createCodingCatalogRepo>;
