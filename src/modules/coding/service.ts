import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CodingSessionsTable, CodingTestsTable, Database } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../platform/clock.js';
import type { Credits } from '../../platform/credits.js';
import { notFound } from '../../platform/errors.js';
import type { PageRequest } from '../../platform/pagination.js';
import { createLifecycle, lifecycleJobNames, type AssessmentKind } from '../assessments/lifecycle.js';
import type { CandidateAccessService } from '../candidate-access/service.js';
import type { CodingCatalogRepo, PublicProblemRow, TestFilters } from './catalog-repo.js';
import type { CodingSessionRepo } from './sessions-repo.js';

export { assignmentEndsAt } from '../assessments/lifecycle.js';
/** The background job that scores a session and emits coding.completed (the lifecycle's completion job). */
export const COMPLETE_JOB = lifecycleJobNames('coding').complete;

/** What candidates and customers may see of a problem: never hidden cases, comparators or expected complexity. */
export function publicProblem(p: PublicProblemRow) {
  return {
    id: p.id, slug: p.slug, title: p.title, difficulty: p.difficulty, skills: JSON.parse(p.skills) as string[],
    statement: p.statement, input_format: p.input_format, output_format: p.output_format, constraints: p.constraints,
    examples: JSON.parse(p.examples) as Array<{ input: string; output: string; explanation?: string }>,
    time_limit_ms: p.time_limit_ms, memory_limit_mb: p.memory_limit_mb,
  };
}

export function createCodingService(deps: {
  db: Kysely<Database>; clock: Clock; credits: Credits; catalog: CodingCatalogRepo; repo: CodingSessionRepo; candidateAccess: CandidateAccessService;
  queue: JobQueue;
}) {
  const { db, catalog, repo } = deps;

  async function detail(tx: Kysely<Database>, row: CodingSessionsTable) {
    const problems = await repo.problems(tx, row.id);
    const allowed = (await catalog.getTest(tx, row.organization_id, row.test_id))?.attempts_per_problem ?? 0;
    const content = await catalog.problems(tx, problems.map((p) => p.problem_id));
    return {
      row,
      problems: problems.map((p) => ({
        position: p.position, slot_title: p.slot_title, problem: publicProblem(content.get(p.problem_id)!),
        attempts_used: p.attempts_used, attempts_remaining: Math.max(0, allowed - p.attempts_used), scored: p.scored === 1,
      })),
    };
  }

  /** What is coding's own in the shared lifecycle: its tables, its credit, its tests and the problems drawn per slot. */
  const kind: AssessmentKind<CodingSessionsTable, CodingTestsTable, Awaited<ReturnType<typeof detail>>, { candidate_id: string; coding_test_id: string }> = {
    kind: 'coding', module: 'coding', credit: 'coding', noun: 'coding session', testParam: 'coding_test_id', repo,
    test: (tx, organizationId, id) => catalog.getTest(tx, organizationId, id),
    newRow: (shared) => shared as CodingSessionsTable,
    async afterAssign(tx, row, test) {
      const slots = await catalog.slots(tx, test.id);
      await repo.insertProblems(tx, slots.map((slot) => ({
        session_id: row.id, position: slot.position, slot_title: slot.title,
        problem_id: slot.problemIds[randomInt(slot.problemIds.length)], attempts_used: 0, scored: 0,
      })));
    },
    detail,
    async eraseSessions(tx, sessionIds) {
      await repo.eraseSources(tx, sessionIds);
      await repo.eraseReviews(tx, sessionIds);
    },
  };
  const lifecycle = createLifecycle(deps, kind);

  return {
    ...lifecycle,

    async listTests(organizationId: string, page: PageRequest, filters: TestFilters) {
      const [result, total] = await Promise.all([catalog.list(organizationId, page, filters), catalog.count(organizationId, filters)]);
      const slots = await catalog.slotCounts(result.data.map((t) => t.id));
      return { page: result, total, slots };
    },

    /** A test with one representative problem (the first variant) per slot. */
    async getTest(organizationId: string, id: string) {
      const test = await catalog.getTest(db, organizationId, id);
      if (!test) throw notFound('coding test', id);
      const slots = await catalog.slots(db, test.id);
      const problems = await catalog.problems(db, slots.map((s) => s.problemIds[0]));
      return { test, slots: slots.map((s) => ({ position: s.position, title: s.title, variants: s.problemIds.length, example_problem: publicProblem(problems.get(s.problemIds[0])!) })) };
    },
  };
}

export type CodingService = ReturnType<typeof createCodingService>;
