import type { JobHandler } from '../jobs/worker.js';
import { sweepIdempotencyKeys } from '../platform/idempotency.js';
import type { Services } from '../services.js';
import type { ModuleServices } from './index.js';
import { judgeBudgetMs, judgingJobs } from './coding/judging.js';
import { invitationJobs } from './interviews/invitations.js';
import { interviewJobs } from './interviews/processing.js';
import { promptEngineeringJobs } from './prompt-engineering/service.js';
import { psychometricJobs } from './psychometric/service.js';
import { webhookJobs } from './webhooks/service.js';

/** Every kind of background work: each module's own jobs, and the retention sweep over all of them. */
export function jobHandlers(services: Services, modules: ModuleServices): JobHandler[] {
  const { db, clock } = services.core;
  return [
    ...webhookJobs(modules.webhooks),
    ...modules.coding.jobs(),
    ...judgingJobs(modules.judging),
    ...psychometricJobs(modules.psychometric),
    ...promptEngineeringJobs(modules.promptEngineering, modules.grader),
    ...modules.resumes.jobs(),
    ...interviewJobs({
      db: db.kysely, clock, queue: services.queue, repo: modules.interviewRepo, ending: modules.interviews.ending, storage: services.files.storage, model: services.model,
      emit: modules.webhooks.emitEvent, changed: modules.channelHub.listener.changed,
      sandbox: services.sandbox, judgeBudgetMs: judgeBudgetMs(services.core.config),
    }),
    ...invitationJobs({ db: db.kysely, clock, repo: modules.interviewRepo, candidateAccess: modules.candidateAccess, smtp: services.core.config.smtp }),
    {
      kind: 'retention.sweep',
      everyMs: 3_600_000,
      run: async () => {
        await sweepIdempotencyKeys(db.kysely, clock.now());
        await modules.candidateAccess.sweep();
        await services.queue.sweep();
        await modules.webhooks.sweep();
        await services.files.storage.sweep();
      },
    },
  ];
}
