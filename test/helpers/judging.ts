import { testClient } from './client.js';
import type { Harness } from './harness.js';
import { settleJobs, testWorker } from './settle.js';

export { ORIGIN } from './client.js';

/** Calls, fixtures and background-work control for the judging tests. */
export function judgingKit(h: Harness) {
  const client = testClient(h);
  const kit = {
    call: client.call,

    /** A session of the shared test `slug`, assigned to a new candidate, with a token; started unless told not to. */
    async session(key: string, slug: string, options: { start?: boolean } = {}) {
      const test = await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', slug).executeTakeFirstOrThrow();
      const assigned = await client.assign(key, 'coding', test.id, await client.candidate(key, { name: 'Alan Turing' }));
      const token = await client.token(key, 'coding', assigned.id);
      if (options.start !== false) await client.ok('POST', `/v1/coding-sessions/${assigned.id}/start`, { token }, 200);
      const problems = assigned.problems as Array<{ problem: { id: string; slug: string; examples: Array<{ input: string; output: string }> } }>;
      return { id: assigned.id as string, token, problems: problems.map((p) => p.problem) };
    },

    /** The stored reference solution of a problem in a language. */
    async reference(problemId: string, language = 'python'): Promise<string> {
      const row = await h.db.kysely.selectFrom('coding_problems').select('reference_solutions').where('id', '=', problemId).executeTakeFirstOrThrow();
      return (JSON.parse(row.reference_solutions!) as Record<string, string>)[language]!;
    },

    worker: () => testWorker(h),

    /** Runs judging and completion jobs until none is left, moving the clock to each retry. */
    settle: () => settleJobs(h, ['coding.judge', 'coding.complete'], 'judging'),
  };
  return kit;
}
