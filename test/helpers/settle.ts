import { createWorker } from '../../src/jobs/worker.js';
import { jobHandlers } from '../../src/modules/jobs.js';
import type { Harness } from './harness.js';

/** A worker over every job kind, on the harness's clock (errors are expected in retry tests and kept quiet); `pollMs` for a started one. */
export const testWorker = (h: Harness, pollMs?: number) =>
  createWorker({ queue: h.services.queue, clock: h.clock, handlers: jobHandlers(h.services, h.modules), log: { error: () => {} }, ...(pollMs ? { pollMs } : {}) });

/** Runs jobs until none of `kinds` is left queued, moving the clock to each retry. */
export async function settleJobs(h: Harness, kinds: string[], what = 'background work'): Promise<void> {
  const worker = testWorker(h);
  for (let round = 0; round < 50; round++) {
    while ((await worker.runOnce()) > 0) { /* drain */ }
    const next = await h.db.kysely.selectFrom('background_jobs').select('run_at').where('status', '=', 'queued')
      .where('kind', 'in', kinds).orderBy('run_at').executeTakeFirst();
    if (!next) return;
    if (next.run_at > h.clock.now()) h.clock.set(next.run_at);
  }
  throw new Error(`${what} did not settle`);
}
