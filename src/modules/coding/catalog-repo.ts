import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CodingProblemsTable, CodingTestsTable, Database } from '../../db/schema.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

const PUBLIC_PROBLEM_COLUMNS = [
  'id', 'slug', 'title', 'difficulty', 'skills', 'statement', 'input_format', 'output_format', 'constraints', 'examples',
  'time_limit_ms', 'memory_limit_mb',
] as const;
export type PublicProblemRow = Pick<CodingProblemsTable, (typeof PUBLIC_PROBLEM_COLUMNS)[number]>;

export interface TestFilters {
  skill?: string;
  difficulty?: string;
}

/** Coding tests visible to an organisation: the shared catalogue (organization_id null) and its own. */
export function createCodingCatalogRepo(database: Db) {
  const db = database.kysely;
  /** `skills` is a JSON array of slugs: a skill matches as a quoted element (slugs hold no LIKE wildcards). */
  const skillPattern = (skill: string | undefined) => (skill === undefined ? undefined : `%${JSON.stringify(skill)}%`);
  // Filters arrive as bound values (the pattern already built): the pager compiles each query shape once.
  const visible = (organizationId: string, difficulty: string | undefined, skillLike: string | undefined) => {
    let q = db.selectFrom('coding_tests').where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]));
    if (difficulty !== undefined) q = q.where('difficulty', '=', difficulty as CodingTestsTable['difficulty']);
    if (skillLike !== undefined) q = q.where('skills', 'like', skillLike);
    return q;
  };
  const pageOf = keysetPager(database, (organizationId: string, difficulty?: string, skillLike?: string) =>
    visible(organizationId, difficulty, skillLike).selectAll());

  return {
    list: (organizationId: string, page: PageRequest, filters: TestFilters) =>
      pageOf(page, organizationId, filters.difficulty, skillPattern(filters.skill)),
    async count(organizationId: string, filters: TestFilters): Promise<number> {
      const row = await visible(organizationId, filters.difficulty, skillPattern(filters.skill))
        .select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
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
    /** What may be shown of problems: never the hidden cases (which are also the bulk of a problem's bytes). */
    problems: async (tx: Kysely<Database>, ids: string[]): Promise<Map<string, PublicProblemRow>> => {
      if (ids.length === 0) return new Map();
      const rows = await tx.selectFrom('coding_problems').select(PUBLIC_PROBLEM_COLUMNS).where('id', 'in', ids).execute();
      return new Map(rows.map((r) => [r.id, r]));
    },
  };
}

export type CodingCatalogRepo = ReturnType<typeof createCodingCatalogRepo>;
