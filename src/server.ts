import type { App } from './app-types.js';
import { buildApp } from './app.js';
import { ConfigError, type Config } from './config.js';
import { openDatabase, type Db } from './db/database.js';
import { prepareDatabase } from './catalogues.js';
import type { OrganizationKeys } from './modules/organizations/service.js';
import { jobHandlers } from './modules/jobs.js';
import { createWorker } from './jobs/worker.js';
import { CREDIT_KINDS } from './platform/credits.js';
import { makeServiceDirectories } from './platform/directories.js';

/** Sandbox credits the default organisation starts with, so the quick start can assign and score at once. */
const DEFAULT_ORG_SANDBOX_CREDITS = 100;

/** The address could not be listened on (taken, not this machine's, a privileged port): said in a sentence, no stack. */
export class ListenError extends Error {}

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
export async function startServer(config: Config, options: {
  workers: boolean; print?: (line: string) => void;
  /** Asked once the database is prepared, before listening: false (a signal came) closes everything and returns null. */
  proceed?: () => boolean;
} = { workers: true }): Promise<RunningServer | null> {
  const print = options.print ?? ((line: string) => process.stdout.write(line + '\n'));
  const db = openDatabase({ ...config, backgroundCheckpoints: true });
  try {
    makeServiceDirectories(config);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  await prepareDatabase(db);
  const { app, services, modules } = await buildApp({ config, db });
  await services.signingKeys.ensureKey();
  try {
    await services.signingKeys.signingKey();
  } catch (error) {
    // Written under another encryption key (PREP_ENCRYPTION_KEY not set alike on every machine, encryption.key
    // replaced): every session token would fail with a 500. Said at start instead.
    await app.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw new ConfigError('the signing key in the database cannot be decrypted with this encryption key (PREP_ENCRYPTION_KEY, '
      + `else ${config.dataDir}/encryption.key): give every process the key it was written with (${(error as Error).message})`);
  }

  const worker = options.workers
    ? createWorker({ queue: services.queue, clock: services.core.clock, handlers: jobHandlers(services, modules), log: app.log, leaseMs: config.jobLeaseMs })
    : null;
  const stop = async () => {
    await worker?.stop();
    await app.close();
    await db.close();
  };
  if (options.proceed && !options.proceed()) {
    await stop();
    return null;
  }
  // Background work starts once the port is ours: a server that cannot listen (the port is taken) must not stay
  // up running jobs with no HTTP and no signal handlers; it closes what it opened and fails.
  // The default organisation too: its keys are printed once, so they are made only when the server can be reached
  // (made before a listen that failed, they were never shown again and the next start printed none).
  let address: string | null = null;
  try {
    address = await app.listen({ port: config.port, host: config.host });
    // The live half of the default organisation's budget starts empty: live credits are bought, not given.
    const created = await services.organizations.bootstrapDefault(0);
    if (created) {
      for (const kind of CREDIT_KINDS) {
        await services.organizations.grantCredits(created.organization.id, kind, DEFAULT_ORG_SANDBOX_CREDITS, [false]);
      }
      printFirstStartKeys(created.organization.id, created.keys, print);
    }
    await worker?.start();
  } catch (error) {
    await stop().catch(() => undefined);
    if (address === null) throw new ListenError(`cannot listen on ${config.host} port ${config.port} (HOST, PORT): ${(error as Error).message}`);
    throw error;
  }
  const url = address.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');
  return { app, db, url, stop };
}
