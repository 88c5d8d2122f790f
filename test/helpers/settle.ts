import { createWorker } from '../../src/jobs/worker.js';
import { jobHandlers } from '../../src/modules/jobs.js';
import type { Harness } from './harness.js';

/** A worker over every job kind (or those given), on the harness's clock (errors are expected in retry tests and kept quiet); `pollMs` for a started one. */
export const testWorker = (h: Harness, pollMs?: number, kinds?: string[]) => createWorker({
  queue: h.services.queue, clock: h.clock, handlers: jobHandlers(h.services, h.modules).filter((x) => !kinds || kinds.includes(x.kind)),
  log: { error: () => {} }, ...(pollMs ? { pollMs } : {}),
});

/**
 * Runs jobs until none of `kinds` is left queued, moving the clock to each retry. `only`: no other kind runs meanwhile
 * (the rest of the queue stalled, as behind a backlog).
 */
export async function settleJobs(h: Harness, kinds: string[], what = 'background work', options: { only?: boolean } = {}): Promise<void> {
  const worker = testWorker(h, undefined, options.only ? kinds : undefined);
  for (let round = 0; round < 100; round++) {
    while ((await worker.runOnce()) > 0) { /* drain */ }
    const next = await h.db.kysely.selectFrom('background_jobs').select('run_at').where('status', '=', 'queued')
      .where('kind', 'in', kinds).orderBy('run_at').executeTakeFirst();
    if (!next) return;
    if (next.run_at > h.clock.now()) h.clock.set(next.run_at);
  }
  throw new Error(`${what} did not settle`);
}
