import type { App } from './app-types.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { openDatabase, type Db } from './db/database.js';
import { prepareDatabase } from './catalogues.js';
import type { OrganizationKeys } from './modules/organizations/service.js';
import { jobHandlers } from './modules/jobs.js';
import { createWorker } from './jobs/worker.js';
import { CREDIT_KINDS } from './platform/credits.js';

/** Sandbox credits the default organisation starts with, so the quick start can assign and score at once. */
const DEFAULT_ORG_SANDBOX_CREDITS = 100;

export interface RunningServer {
  app: App;
  db: Db;
  url: string;
  stop(): Promise<void>;
}

function printFirstStartKeys(organizationId: string, keys: OrganizationKeys, print: (line: string) => void) {
  print('');
  print('  First start: created the default organisation ' + organizationId);
  print('  These keys are shown once; store them now.');
  print('    sandbox secret key       ' + keys.secret_test);
  print('    sandbox publishable key  ' + keys.publishable_test);
  print('  Live keys: `npx prep keys create --org ' + organizationId + ' --env live --type secret`.');
  print('');
}

/** `prep serve`: migrate, create the default organisation on an empty database, listen, run background work. */
export async function startServer(config: Config, options: { workers: boolean; print?: (line: string) => void } = { workers: true }): Promise<RunningServer> {
  const print = options.print ?? ((line: string) => process.stdout.write(line + '\n'));
  const db = openDatabase({ ...config, backgroundCheckpoints: true });
  await prepareDatabase(db);
  const { app, services, modules } = await buildApp({ config, db });
  await services.signingKeys.ensureKey();

  // The live half of the default organisation's budget starts empty: live credits are bought, not given.
  const created = await services.organizations.bootstrapDefault(0);
  if (created) {
    for (const kind of CREDIT_KINDS) {
      await services.organizations.grantCredits(created.organization.id, kind, DEFAULT_ORG_SANDBOX_CREDITS, [false]);
    }
    printFirstStartKeys(created.organization.id, created.keys, print);
  }

  const worker = options.workers
    ? createWorker({ queue: services.queue, clock: services.core.clock, handlers: jobHandlers(services, modules), log: app.log, leaseMs: config.jobLeaseMs })
    : null;
  const stop = async () => {
    await worker?.stop();
    await app.close();
    await db.close();
  };
  // Background work starts once the port is ours: a server that cannot listen (the port is taken) must not stay
  // up running jobs with no HTTP and no signal handlers; it closes what it opened and fails.
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
    await worker?.start();
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const url = address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');
  return { app, db, url, stop };
}
