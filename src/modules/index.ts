import type { App } from '../app-types.js';
import type { SessionAuthenticator } from '../platform/auth.js';
import type { Services } from '../services.js';
import { analyticsRoutes } from './analytics/routes.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import { brandingRoutes } from './branding/routes.js';
import { createBrandingService } from './branding/service.js';
import { createCandidateRepo } from './candidates/repo.js';
import { candidateRoutes } from './candidates/routes.js';
import { catalogueRoutes } from './catalogues/routes.js';
import { createCodingCatalogRepo } from './coding/catalog-repo.js';
import { codingRoutes } from './coding/routes.js';
import { createCodingService } from './coding/service.js';
import { createCodingSessionRepo } from './coding/sessions-repo.js';
import { createJudgingService, judgeBudgetMs } from './coding/judging.js';
import { createJudgingRepo } from './coding/judging-repo.js';
import { judgingRoutes } from './coding/judging-routes.js';
import { createDomainRepo } from './domains/repo.js';
import { createLimiter } from '../platform/limiter.js';
import { createPromptCatalog } from './prompt-engineering/catalog.js';
import { createGrader } from './prompt-engineering/grading.js';
import { createPromptRepo } from './prompt-engineering/repo.js';
import { promptEngineeringRoutes } from './prompt-engineering/routes.js';
import { createPromptEngineeringService } from './prompt-engineering/service.js';
import { createChannelHub, CHANNEL_PATH, channelRoute } from './interviews/channel.js';
import { createConversation } from './interviews/conversation.js';
import { createInterviewRepo } from './interviews/repo.js';
import { interviewRoutes } from './interviews/routes.js';
import { createInterviewService } from './interviews/service.js';
import { createPsychometricCatalog } from './psychometric/catalog.js';
import { psychometricRoutes } from './psychometric/routes.js';
import { createPsychometricService } from './psychometric/service.js';
import { createQuestionBankRepo } from './question-bank/repo.js';
import { questionBankRoutes } from './question-bank/routes.js';
import { createQuestionBankService } from './question-bank/service.js';
import { loadEncryptionKey } from '../platform/encryption.js';
import { storageRoutes } from '../storage/routes.js';
import { s3UploadOrigins } from '../storage/s3.js';
import { createParsePool, type ParsePool } from './resumes/parse/pool.js';
import { createResumeRepo } from './resumes/repo.js';
import { resumeRoutes } from './resumes/routes.js';
import { createResumeService } from './resumes/service.js';
import { domainRoutes } from './domains/routes.js';
import { createDomainService } from './domains/service.js';
import { embedRoutes } from './embed/routes.js';
import { roomRoutes } from './room/routes.js';
import { memberRoutes } from './members/routes.js';
import { metaRoutes } from './meta/routes.js';
import { createCandidateAccessRepo } from './candidate-access/repo.js';
import { candidateAccessRoutes } from './candidate-access/routes.js';
import { createCandidateAccessService } from './candidate-access/service.js';
import type { SubjectRegistry } from './candidate-access/subjects.js';
import { createSessionTokens } from './candidate-access/tokens.js';
import { usageRoutes } from './usage/routes.js';
import { createWebhookRepo } from './webhooks/repo.js';
import { webhookRoutes } from './webhooks/routes.js';
import { createDeliveryFairness } from './webhooks/fairness.js';
import { createWebhookService } from './webhooks/service.js';

/** The services of the modules that other parts (auth, CORS, background work) also call. */
export function createModuleServices(services: Services) {
  const { db, clock, config } = services.core;
  const subjects: SubjectRegistry = new Map();
  const domainRepo = createDomainRepo(db);
  const domains = createDomainService({ db: db.kysely, clock, repo: domainRepo });
  const tokens = createSessionTokens({ signingKeys: services.signingKeys, clock, issuer: config.publicUrl });
  const candidateAccess = createCandidateAccessService({
    db: db.kysely, clock, repo: createCandidateAccessRepo(db), tokens, domains, subjects, publicOrigin: config.publicUrl,
  });
  const catalog = createCodingCatalogRepo(db);
  const codingRepo = createCodingSessionRepo(db);
  const coding = createCodingService({ db: db.kysely, clock, credits: services.credits, catalog, repo: codingRepo, candidateAccess, queue: services.queue });
  subjects.set('coding', coding.provider);
  const branding = createBrandingService(db.kysely, clock);
  const webhooks = createWebhookService({
    db: db.kysely, clock, repo: createWebhookRepo(db), queue: services.queue, encryption: services.encryption, sender: services.sender,
    fairness: createDeliveryFairness({ slowMs: config.webhooks.slowMs }),
  });
  const judging = createJudgingService({
    db: db.kysely, clock, sandbox: services.sandbox, queue: services.queue, repo: createJudgingRepo(db), sessions: codingRepo, catalog, coding,
    model: services.model, judgeBudgetMs: judgeBudgetMs(config), emit: webhooks.emitEvent,
  });
  const psychometric = createPsychometricService({
    db: db.kysely, database: db, clock, credits: services.credits, candidateAccess, queue: services.queue,
    catalog: createPsychometricCatalog(db), emit: webhooks.emitEvent,
  });
  subjects.set('psychometric', psychometric.provider);
  const promptRepo = createPromptRepo(db);
  const promptCatalog = createPromptCatalog(db);
  const grader = createGrader({
    db: db.kysely, clock, repo: promptRepo, catalog: promptCatalog, model: services.model, sandbox: services.sandbox,
    limit: createLimiter(config.model?.concurrency ?? 1),
  });
  const promptEngineering = createPromptEngineeringService({
    db: db.kysely, clock, credits: services.credits, candidateAccess, queue: services.queue, repo: promptRepo, catalog: promptCatalog, grader,
    emit: webhooks.emitEvent,
  });
  subjects.set('prompt_engineering', promptEngineering.provider);
  const candidateRepo = createCandidateRepo(db);
  let parsePool: ParsePool | null = null; // started on the first upload: most processes never parse a file
  const resumes = createResumeService({
    db: db.kysely, clock, repo: createResumeRepo(db), storage: services.files.storage, credits: services.credits, queue: services.queue,
    model: services.model, emit: webhooks.emitEvent,
    parser: () => (parsePool ??= createParsePool({
      workers: config.resumes.parseWorkers, timeoutMs: config.resumes.parseTimeoutMs, memoryMb: config.resumes.parseMemoryMb, maxQueued: 16, maxQueuedPerOwner: 8,
    })),
    candidates: { exists: async (tx, tenant, id) => Boolean(await candidateRepo.get(tx, tenant, id)), lock: candidateRepo.lock },
  });
  const interviewRepo = createInterviewRepo(db);
  const channelHub = createChannelHub({ repo: interviewRepo });
  const channelUrl = `${config.publicUrl.replace(/^http/, 'ws')}${CHANNEL_PATH}`;
  // The conversation and the service tell each other of changes: the channel sends what is new, the interviewer reacts.
  const interviewsHolder: { conversation?: ReturnType<typeof createConversation> } = {};
  const interviews = createInterviewService({
    db: db.kysely, clock, repo: interviewRepo, credits: services.credits, queue: services.queue, emit: webhooks.emitEvent, candidateAccess,
    sandbox: services.sandbox, storage: services.files.storage, smtpConfigured: config.smtp !== null, channelUrl,
    onTranscriptChange: (id, react) => {
      channelHub.listener.changed(id);
      // Tied to the interview's channel in this process, if one is open: the reaction is for it, and is abandoned when it
      // closes (the next connection has what is owed said); with none here it is said for a channel elsewhere.
      if (react) void interviewsHolder.conversation?.nudge(id, channelHub.signalOf(id)).catch(() => undefined);
    },
  });
  subjects.set('interview', interviews.provider);
  const conversation = createConversation({
    db: db.kysely, clock, repo: interviewRepo, ending: interviews.ending, model: services.model, limit: createLimiter(config.model?.concurrency ?? 1),
    listener: channelHub.listener,
  });
  interviewsHolder.conversation = conversation;
  const close = async () => {
    await parsePool?.close();
    await services.files.storage.close();
  };
  return {
    domainRepo, domains, candidateAccess, coding, judging, psychometric, promptEngineering, grader, branding, webhooks, resumes,
    interviews, interviewRepo, conversation, channelHub, channelUrl, close,
  };
}

export type ModuleServices = ReturnType<typeof createModuleServices>;

/** Every API area, each registering its own routes with the services it needs. */
export function registerModules(app: App, services: Services, modules: ModuleServices, auth: { authenticateSession: SessionAuthenticator }): void {
  const { core } = services;
  metaRoutes(app, core.db);
  usageRoutes(app, services);
  apiKeyRoutes(app, services.apiKeys);
  brandingRoutes(app, modules.branding);
  memberRoutes(app, services.organizationRepo);
  analyticsRoutes(app, core);
  catalogueRoutes(app, core);
  candidateRoutes(app, core, [modules.coding.eraseCandidate, modules.psychometric.eraseCandidate, modules.promptEngineering.eraseCandidate, modules.resumes.eraseCandidate,
    modules.interviews.eraseCandidate]);
  domainRoutes(app, modules.domains);
  candidateAccessRoutes(app, { candidateAccess: modules.candidateAccess, signingKeys: services.signingKeys, branding: modules.branding.get });
  embedRoutes(app, {
    origins: async (tenant) => (await modules.domainRepo.all(tenant)).map((d) => d.origin),
    branding: modules.branding.get,
  });
  codingRoutes(app, modules.coding, modules.judging.languages);
  judgingRoutes(app, modules.judging);
  psychometricRoutes(app, modules.psychometric);
  promptEngineeringRoutes(app, modules.promptEngineering);
  questionBankRoutes(app, createQuestionBankService({ repo: createQuestionBankRepo(core.db), clock: core.clock, cursorKey: () => loadEncryptionKey(core.config) }));
  resumeRoutes(app, modules.resumes);
  interviewRoutes(app, modules.interviews, { languages: modules.judging.languages, channelUrl: modules.channelUrl, now: () => core.clock.now() });
  channelRoute(app, {
    hub: modules.channelHub, repo: modules.interviewRepo, service: modules.interviews, conversation: modules.conversation, clock: core.clock,
    authenticate: auth.authenticateSession, heartbeatMs: core.config.channelHeartbeatMs,
  });
  if (services.files.local) storageRoutes(app, services.files.local);
  webhookRoutes(app, modules.webhooks);
  const s3 = core.config.storage.s3;
  // The room uploads straight to S3 (whiteboard images, recording pieces): the launch page's CSP must allow it.
  const uploadOrigins = s3 ? s3UploadOrigins(s3) : [];
  roomRoutes(app, { candidateAccess: modules.candidateAccess, branding: modules.branding.get, uploadOrigins });
}
