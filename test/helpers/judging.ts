import { expect } from 'vitest';
import { createWorker } from '../../src/jobs/worker.js';
import { jobHandlers } from '../../src/modules/jobs.js';
import { bearer, type Harness } from './harness.js';

export const ORIGIN = 'https://room.acme.test';

/** Calls, fixtures and background-work control for the judging tests. */
export function judgingKit(h: Harness) {
  let seq = 0;
  const kit = {
    async call(method: 'GET' | 'POST', url: string, opts: { key?: string; token?: string; body?: unknown } = {}) {
      const headers: Record<string, string> = {};
      if (opts.key) Object.assign(headers, bearer(opts.key));
      if (opts.token) Object.assign(headers, bearer(opts.token), { origin: ORIGIN });
      const res = await h.app.inject({ method, url, headers, ...(opts.body === undefined ? {} : { payload: opts.body as object }) });
      return { status: res.statusCode, body: res.json() as any, raw: res.body };
    },

    /** A session of the shared test `slug`, assigned to a new candidate, with a token; started unless told not to. */
    async session(key: string, slug: string, options: { start?: boolean } = {}) {
      const test = await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', slug).executeTakeFirstOrThrow();
      const candidate = await kit.call('POST', '/v1/candidates', { key, body: { email: `judge.${Date.now().toString(36)}.${++seq}@example.com`, name: 'Alan Turing' } });
      expect(candidate.status, candidate.raw).toBe(201);
      const assigned = await kit.call('POST', '/v1/coding-sessions', { key, body: { candidate_id: candidate.body.id, coding_test_id: test.id } });
      expect(assigned.status, assigned.raw).toBe(201);
      await kit.call('POST', '/v1/domains', { key, body: { origin: ORIGIN } });
      const minted = await kit.call('POST', '/v1/sessions', { key, body: { origin: ORIGIN, coding_session_id: assigned.body.id } });
      expect(minted.status, minted.raw).toBe(201);
      const token = minted.body.session_token as string;
      if (options.start !== false) expect((await kit.call('POST', `/v1/coding-sessions/${assigned.body.id}/start`, { token })).status).toBe(200);
      const problems = assigned.body.problems as Array<{ problem: { id: string; slug: string; examples: Array<{ input: string; output: string }> } }>;
      return { id: assigned.body.id as string, token, problems: problems.map((p) => p.problem) };
    },

    /** The stored reference solution of a problem in a language. */
    async reference(problemId: string, language = 'python'): Promise<string> {
      const row = await h.db.kysely.selectFrom('coding_problems').select('reference_solutions').where('id', '=', problemId).executeTakeFirstOrThrow();
      return (JSON.parse(row.reference_solutions!) as Record<string, string>)[language]!;
    },

    worker: () => createWorker({ queue: h.services.queue, clock: h.clock, handlers: jobHandlers(h.services, h.modules), log: { error: () => {} } }),

    /** Runs judging and completion jobs until none is left, moving the clock to each retry. */
    async settle(): Promise<void> {
      const worker = kit.worker();
      for (let round = 0; round < 50; round++) {
        while ((await worker.runOnce()) > 0) { /* drain */ }
        const next = await h.db.kysely.selectFrom('background_jobs').select('run_at').where('status', '=', 'queued')
          .where('kind', 'in', ['coding.judge', 'coding.complete']).orderBy('run_at').executeTakeFirst();
        if (!next) return;
        if (next.run_at > h.clock.now()) h.clock.set(next.run_at);
      }
      throw new Error('judging did not settle');
    },
  };
  return kit;
}
