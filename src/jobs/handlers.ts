import type { ModuleServices } from '../modules/index.js';
import { sweepIdempotencyKeys } from '../platform/idempotency.js';
import type { Services } from '../services.js';
import type { JobHandler } from './worker.js';
import { RETRY_DELAYS_SECONDS, type DeliverPayload } from '../modules/webhooks/service.js';
import { JUDGE_JOB } from '../modules/coding/judging.js';
import { COMPLETE_JOB } from '../modules/coding/service.js';

/** Every kind of background work, with what runs it. */
export function jobHandlers(services: Services, modules: ModuleServices): JobHandler[] {
  const { db, clock } = services.core;
  return [
    {
      kind: 'webhook.deliver',
      retryDelaysSeconds: RETRY_DELAYS_SECONDS,
      run: (payload, job) => modules.webhooks.deliver(payload as DeliverPayload, job),
    },
    {
      // Queued at start for the deadline, in the transaction that starts the session.
      kind: 'coding.timeout',
      run: async (payload) => {
        const { organization_id, livemode, session_id } = payload as { organization_id: string; livemode: boolean; session_id: string };
        await modules.coding.expireSession({ organizationId: organization_id, livemode }, session_id);
      },
    },
    {
      // A safety net for timeouts without a job (a restored backup, say): one indexed query every 10 s.
      kind: 'coding.timeout-sweep',
      everyMs: 10_000,
      run: async () => void (await modules.coding.expireDue()),
    },
    {
      kind: JUDGE_JOB,
      retryDelaysSeconds: [2, 10, 30, 60],
      run: (payload, job) => modules.judging.judge((payload as { submission_id: string }).submission_id, job.attempts >= job.max_attempts),
    },
    {
      // Queued by finalize and by a timeout; waits for judging by retrying.
      kind: COMPLETE_JOB,
      retryDelaysSeconds: [1, 2, 5, 10, 30],
      run: (payload) => modules.judging.complete((payload as { session_id: string }).session_id),
    },
    {
      kind: 'retention.sweep',
      everyMs: 3_600_000,
      run: async () => {
        await sweepIdempotencyKeys(db.kysely, clock.now());
        await modules.sessions.sweep();
        await services.queue.sweep();
        await modules.webhooks.sweep();
      },
    },
  ];
}
