import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/** A coding test's slots as stored: position -> title and the pool of problem ids, in pool order. */
export async function slotPools(db: Kysely<Database>, testId: string) {
  const rows = await db.selectFrom('coding_test_slots')
    .innerJoin('coding_slot_problems', 'coding_slot_problems.slot_id', 'coding_test_slots.id')
    .select(['coding_test_slots.position', 'coding_test_slots.title', 'coding_slot_problems.problem_id'])
    .where('coding_test_slots.test_id', '=', testId)
    .orderBy('coding_test_slots.position').orderBy('coding_slot_problems.position').execute();
  const pools = new Map<number, { title: string; problems: string[] }>();
  for (const r of rows) {
    const pool = pools.get(r.position) ?? { title: r.title, problems: [] };
    pool.problems.push(r.problem_id);
    pools.set(r.position, pool);
  }
  return pools;
}
