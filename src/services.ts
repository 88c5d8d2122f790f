import type { Config } from './config.js';
import { readFileSync } from 'node:fs';
import type { Db } from './db/database.js';
import { createOutboundSender } from './platform/outbound/index.js';
import { createJobQueue } from './jobs/queue.js';
import { createApiKeyRepo } from './modules/api-keys/repo.js';
import { createApiKeyService } from './modules/api-keys/service.js';
import { createOrganizationRepo } from './modules/organizations/repo.js';
import { createOrganizationService } from './modules/organizations/service.js';
import { systemClock, type Clock } from './platform/clock.js';
import { createCredits } from './platform/credits.js';
import { createEncryption, loadEncryptionKey } from './platform/encryption.js';
import { createSigningKeyRepo } from './modules/signing-keys/repo.js';
import { createSigningKeys } from './modules/signing-keys/service.js';
import { processSandbox } from './sandbox/sandbox.js';
import { createModel } from './ai/model.js';
import { createStorage } from './storage/index.js';

/** What every module may depend on. Modules take the narrow part they need. */
export interface Core {
  db: Db;
  config: Config;
  clock: Clock;
}

/** Services shared by the HTTP app and the CLI. Module-private services are built in their route modules. */
export function createServices(db: Db, config: Config, clock: Clock = systemClock) {
  const core: Core = { db, config, clock };
  const credits = createCredits({ clock, sandboxMonthlyQuota: config.sandboxMonthlyQuota });
  const apiKeys = createApiKeyService({ db: db.kysely, clock, repo: createApiKeyRepo(db) });
  const organizationRepo = createOrganizationRepo(db);
  const organizations = createOrganizationService({ db: db.kysely, clock, repo: organizationRepo, apiKeys, credits });
  const encryption = createEncryption(() => loadEncryptionKey(config));
  const signingKeys = createSigningKeys({ db: db.kysely, clock, encryption, repo: createSigningKeyRepo(db.kysely) });
  const queue = createJobQueue({ db, clock });
  const sender = createOutboundSender({
    timeoutMs: config.webhooks.timeoutMs,
    allowLoopbackHosts: config.webhooks.allowLoopbackHosts,
    ...(config.webhooks.caFile ? { ca: readFileSync(config.webhooks.caFile) } : {}),
  });
  const sandbox = processSandbox(config.sandbox);
  const model = createModel(config.model);
  const files = createStorage(config, () => loadEncryptionKey(config), () => clock.now());
  return { core, credits, apiKeys, organizations, organizationRepo, signingKeys, encryption, queue, sender, sandbox, model, files };
}

export type Services = ReturnType<typeof createServices>;
