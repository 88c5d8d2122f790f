import './node-check.js'; // first: stops on a Node.js too old to run the rest
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabase } from '../db/database.js';
import { makeServiceDirectories } from '../platform/directories.js';
import { prepareDatabase } from '../catalogues.js';
import { addOrganizationPromptCatalog } from '../modules/prompt-engineering/catalog.js';
import { TaskFileError } from '../modules/prompt-engineering/content.js';
import { addOrganizationInstrument } from '../modules/psychometric/catalog.js';
import { InstrumentError } from '../modules/psychometric/instrument.js';
import { addOrganizationQuestions, loadQuestionBank } from '../modules/question-bank/catalog.js';
import { QuestionFileError } from '../modules/question-bank/content.js';
import { importCompanyFolders } from '../modules/question-bank/import.js';
import { addOwnCatalogueEntries, CatalogueEntryError, ENTRY_KINDS, type EntryKind } from '../modules/catalogues/entries.js';
import { seedCatalogues } from '../modules/catalogues/seed.js';
import { addOrganizationCodingTest, CatalogueFileError, seedCodingCatalogue } from '../modules/coding/catalog-seed.js';
import { jobHandlers } from '../modules/jobs.js';
import { createWorker } from '../jobs/worker.js';
import { exitOnSignals } from './shutdown.js';
import { createModuleServices } from '../modules/index.js';
import { ListenError, startServer } from '../server.js';
import { createServices, type Services } from '../services.js';
import { MODULES, type ModuleName } from '../platform/context.js';
import { CREDIT_AMOUNT_MAX, CREDIT_KINDS, type CreditKind } from '../platform/credits.js';
import { ApiError } from '../platform/errors.js';
import { isUuid } from '../platform/ids.js';

/** A whole number from `min` to `max`: a port past 65535 failed `listen` with a stack (after the first start's keys were printed). */
function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new InvalidArgumentError(`A whole number from ${min} to ${max}.`);
    return Number(value);
  };
}

/**
 * A credit grant or a key's limit: from `min` to what the database's integer columns hold, refused here in a sentence
 * (PostgreSQL refused a larger one with its error's stack; SQLite stored it). A limit of 0 would refuse every request.
 */
function countFrom(min: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > CREDIT_AMOUNT_MAX) {
      throw new InvalidArgumentError(`A whole number from ${min} to ${CREDIT_AMOUNT_MAX}.`);
    }
    return Number(value);
  };
}

/** An --org or --key value: refused here unless it is an id (PostgreSQL's uuid columns would fail the query). */
function anId(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('Not an id.');
  return value.toLowerCase();
}

function config(): Config {
  return loadConfig();
}

/** Opens the configured database (migrated), runs `work` with the services, and closes it. */
async function withServices(work: (services: Services) => Promise<unknown>): Promise<void> {
  const cfg = config();
  const db = openDatabase(cfg);
  try {
    await prepareDatabase(db);
    await work(createServices(db, cfg));
  } finally {
    await db.close();
  }
}

const print = (value: unknown) => process.stdout.write((typeof value === 'string' ? value : JSON.stringify(value)) + '\n');

const program = new Command('prep').description('Prep: the preparation service').showHelpAfterError();

program.command('migrate').description('Apply migrations to the configured database').action(async () => {
  const cfg = config();
  const db = openDatabase(cfg);
  try {
    const applied = await prepareDatabase(db);
    print(applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date.');
  } finally {
    await db.close();
  }
});

program.command('serve').description('Serve the API (and run background work unless --no-workers)')
  .option('--port <n>', 'port to listen on (default: PORT or 8080)', wholeNumber(0, 65535))
  .option('--no-workers', 'serve the API only; run `prep worker` elsewhere')
  .action(async (opts: { port?: number; workers: boolean }) => {
    const cfg = config();
    if (opts.port !== undefined) cfg.port = opts.port;
    if (!process.env.PREP_PUBLIC_URL && opts.port !== undefined) cfg.publicUrl = `http://localhost:${opts.port}`;
    const signals = exitOnSignals({ graceMs: cfg.shutdownGraceMs }); // from before the database is opened
    // A signal during start-up: it stops before listening (no port opened, no first-start keys made).
    const server = await startServer(cfg, { workers: opts.workers, proceed: () => !signals.signalled() });
    if (!server) {
      signals.started(async () => undefined);
      return;
    }
    if (signals.started(server.stop)) return;
    print(`Prep is listening on ${server.url} (database: ${server.db.dialect})`);
  });

program.command('worker').description('Run background jobs only (webhook deliveries, judging, grading, interview processing, invitations, timeouts, retention)')
  .option('--concurrency <n>', 'jobs run at once (1 to 1024)', wholeNumber(1, 1024), 16)
  .action(async (opts: { concurrency: number }) => {
    const cfg = config();
    const signals = exitOnSignals({ graceMs: cfg.shutdownGraceMs }); // from before the database is opened
    const db = openDatabase({ ...cfg, backgroundCheckpoints: true });
    try {
      makeServiceDirectories(cfg);
    } catch (error) {
      await db.close().catch(() => undefined);
      throw error;
    }
    await prepareDatabase(db);
    const services = createServices(db, cfg);
    const modules = createModuleServices(services);
    const log = { error: (obj: object, msg: string) => process.stderr.write(JSON.stringify({ level: 'error', msg, ...obj, err: String((obj as { err?: unknown }).err ?? '') }) + '\n') };
    const worker = createWorker({ queue: services.queue, clock: services.core.clock, handlers: jobHandlers(services, modules), log, concurrency: opts.concurrency, leaseMs: cfg.jobLeaseMs });
    if (signals.started(async () => {
      await worker.stop();
      await db.close();
    })) return;
    await worker.start();
    print(`Prep worker ${worker.id} is running (database: ${db.dialect})`);
  });

program.command('seed').description('Add shared catalogue entries missing from the database, refresh coding problems and the question bank').action(() =>
  // Under the lock start-up prepares the database with: a server starting meanwhile loads the same catalogues.
  withServices((s) => s.core.db.exclusive(async () => {
    print(`Added ${await seedCatalogues(s.core.db.kysely)} catalogue entries.`);
    print(`Seeded ${await seedCodingCatalogue(s.core.db.kysely)} coding problems and tests.`);
    const bank = await loadQuestionBank(s.core.db.kysely);
    print(`Question bank: ${bank.added} added, ${bank.updated} updated, ${bank.removed} removed.`);
  })));

program.command('bank').description('The question bank').command('import')
  .description('Import company-wise CSV folders (titles, links and statistics only; see docs/question-bank-import.md)')
  .argument('<dir>', 'a folder holding one folder per company')
  .option('--org <id>', 'visible to this organisation only (default: every organisation)', anId)
  .option('--json', 'print the summary as JSON')
  .action((dir: string, opts: { org?: string; json?: boolean }) => withServices(async (s) => {
    if (opts.org !== undefined && !(await s.organizationRepo.get(opts.org))) throw new InvalidArgumentError(`No organisation ${opts.org}.`);
    let summary;
    try {
      summary = await importCompanyFolders(s.core.db.kysely, dir, { organizationId: opts.org ?? null });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') throw new InvalidArgumentError(`${dir}: not a readable folder.`);
      throw error;
    }
    if (opts.json) print(summary);
    else {
      for (const f of summary.files) {
        print(`${f.status.padEnd(8)} ${f.file}${f.bucket ? ` (${f.bucket})` : ''}: ${f.status === 'imported' ? `${f.rows} rows, ${f.changed} changed` : f.note ?? `${f.errors.length} bad rows`}`);
        for (const e of f.errors) print(`  ${f.file}:${e.line}: ${e.message}`);
      }
      print(`${summary.companies} companies, ${summary.questions_created} questions created, ${summary.statistics_changed} statistics changed.`);
    }
    if (summary.files.some((f) => f.status === 'rejected')) process.exitCode = 1;
  }));

const org = program.command('org').description('Organisations: create, credits, modules, API access, members, catalogue');

org.command('create').description('Create an organisation with live and test keys')
  .requiredOption('--name <name>', 'organisation name')
  .option('--credits <n>', 'credits of every kind granted in both environments', countFrom(0), 0)
  .option('--json', 'print one JSON object')
  .action((opts: { name: string; credits: number; json?: boolean }) => withServices(async (s) => {
    if (!opts.name.trim() || opts.name.length > 200) throw new InvalidArgumentError('--name must be 1 to 200 characters.');
    const result = await s.organizations.create(opts.name.trim(), opts.credits);
    if (opts.json) return print(result);
    print(`Organisation ${result.organization.id} (${result.organization.name})`);
    for (const [name, key] of Object.entries(result.keys)) print(`  ${name.padEnd(18)} ${key}`);
  }));

org.command('credits').description('Grant credits of one kind')
  .requiredOption('--org <id>', 'organisation id', anId).requiredOption('--kind <kind>', CREDIT_KINDS.join(', '))
  .requiredOption('--add <n>', 'credits to add', countFrom(1))
  .addOption(new Option('--env <env>', 'which environment').choices(['live', 'test', 'both']).default('both'))
  .action((opts: { org: string; kind: string; add: number; env: string }) => withServices(async (s) => {
    if (!(CREDIT_KINDS as readonly string[]).includes(opts.kind)) throw new InvalidArgumentError(`--kind must be one of ${CREDIT_KINDS.join(', ')}.`);
    const envs = opts.env === 'both' ? [true, false] : [opts.env === 'live'];
    await s.organizations.grantCredits(opts.org, opts.kind as CreditKind, opts.add, envs);
    print(`Granted ${opts.add} ${opts.kind} credits (${opts.env}).`);
  }));

org.command('modules').description('Enable or disable a module')
  .requiredOption('--org <id>', 'organisation id', anId)
  .option('--enable <module>', MODULES.join(', ')).option('--disable <module>', MODULES.join(', '))
  .action((opts: { org: string; enable?: string; disable?: string }) => withServices(async (s) => {
    const name = opts.enable ?? opts.disable;
    if (!name || (opts.enable && opts.disable)) throw new InvalidArgumentError('Give exactly one of --enable MODULE or --disable MODULE.');
    if (!(MODULES as readonly string[]).includes(name)) throw new InvalidArgumentError(`Module must be one of ${MODULES.join(', ')}.`);
    await s.organizations.setModule(opts.org, name as ModuleName, Boolean(opts.enable));
    print(`${name} ${opts.enable ? 'enabled' : 'disabled'}.`);
  }));

org.command('api').description('Turn the public API on or off for an organisation')
  .requiredOption('--org <id>', 'organisation id', anId).option('--enable').option('--disable')
  .action((opts: { org: string; enable?: boolean; disable?: boolean }) => withServices(async (s) => {
    if (Boolean(opts.enable) === Boolean(opts.disable)) throw new InvalidArgumentError('Give exactly one of --enable or --disable.');
    await s.organizations.setApiEnabled(opts.org, Boolean(opts.enable));
    print(`Public API ${opts.enable ? 'enabled' : 'disabled'}.`);
  }));

org.command('coding-test').description("The organisation's own coding tests").command('add')
  .description('Add a coding test from a JSON file (as in catalog/coding/tests), with the organisation\'s own problem folders')
  .requiredOption('--org <id>', 'organisation id', anId).requiredOption('--file <path>', 'the test JSON; slots name problems by slug')
  .option('--problem <dir...>', 'problem folders in the catalogue format (catalog/coding/AUTHORING.md)', [])
  .action((opts: { org: string; file: string; problem: string[] }) => withServices(async (s) => {
    if (!(await s.organizationRepo.get(opts.org))) throw new InvalidArgumentError(`No organisation ${opts.org}.`);
    try {
      const added = await addOrganizationCodingTest(s.core.db.kysely, opts.org, opts.file, opts.problem);
      print(`Added coding test ${added.id} with ${added.problems} problem(s) of the organisation's own.`);
    } catch (error) {
      if (error instanceof CatalogueFileError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  }));

org.command('psychometric-test').description("The organisation's own psychometric tests").command('add')
  .description('Add an instrument from a JSON file in the catalogue format (as catalog/psychometric/mini-ipip.json)')
  .requiredOption('--org <id>', 'organisation id', anId).requiredOption('--file <path>', 'the instrument JSON: scales, items with keys and texts, choices, norms or null')
  .action((opts: { org: string; file: string }) => withServices(async (s) => {
    if (!(await s.organizationRepo.get(opts.org))) throw new InvalidArgumentError(`No organisation ${opts.org}.`);
    try {
      print(`Added psychometric test ${await addOrganizationInstrument(s.core.db.kysely, opts.org, opts.file)}.`);
    } catch (error) {
      if (error instanceof InstrumentError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  }));

org.command('bank').description("The organisation's own question-bank questions").command('add')
  .description('Add or update questions from a JSON file: the catalogue format (catalog/question-bank/AUTHORING.md) plus `category`')
  .requiredOption('--org <id>', 'organisation id', anId).requiredOption('--file <path>')
  .action((opts: { org: string; file: string }) => withServices(async (s) => {
    if (!(await s.organizationRepo.get(opts.org))) throw new InvalidArgumentError(`No organisation ${opts.org}.`);
    try {
      const ids = await addOrganizationQuestions(s.core.db.kysely, opts.org, opts.file);
      print(`Saved ${ids.length} question${ids.length === 1 ? '' : 's'}: ${ids.join(', ')}`);
    } catch (error) {
      if (error instanceof QuestionFileError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  }));

org.command('prompt-engineering').description("The organisation's own prompt-engineering tasks and assessments").command('add')
  .description('Add or update tasks and assessments from a folder in the catalogue format (catalog/prompt-engineering/AUTHORING.md)')
  .requiredOption('--org <id>', 'organisation id', anId).requiredOption('--dir <path>')
  .action((opts: { org: string; dir: string }) => withServices(async (s) => {
    if (!(await s.organizationRepo.get(opts.org))) throw new InvalidArgumentError(`No organisation ${opts.org}.`);
    try {
      const saved = await addOrganizationPromptCatalog(s.core.db.kysely, opts.org, opts.dir);
      print(`Saved ${saved.tasks} task${saved.tasks === 1 ? '' : 's'} and ${saved.assessments.length} assessment${saved.assessments.length === 1 ? '' : 's'}: ${saved.assessments.join(', ')}`);
    } catch (error) {
      if (error instanceof TaskFileError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  }));

org.command('member').description('Organisation staff').command('add').description('Add a staff member (platform account)')
  .requiredOption('--org <id>', 'organisation id', anId).requiredOption('--email <email>').requiredOption('--name <name>').option('--role <role>', 'role', 'member')
  .action((opts: { org: string; email: string; name: string; role: string }) => withServices(async (s) => {
    const member = await s.organizations.addMember(opts.org, opts);
    print({ id: member.id, email: member.email, name: member.name, role: member.role });
  }));

org.command('catalog').description("The organisation's own catalogue entries").command('add')
  .description('Add round types, companies or jobs from a JSON file (one object or an array, as in catalog/)')
  .requiredOption('--org <id>', 'organisation id', anId)
  .addOption(new Option('--kind <kind>').choices([...ENTRY_KINDS]).makeOptionMandatory())
  .requiredOption('--file <path>')
  .action((opts: { org: string; kind: EntryKind; file: string }) => withServices(async (s) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(opts.file, 'utf8'));
    } catch (error) {
      throw new InvalidArgumentError(`${opts.file}: not a readable JSON file (${(error as Error).message})`);
    }
    if (!(await s.organizationRepo.get(opts.org))) throw new InvalidArgumentError(`No organisation ${opts.org}.`);
    try {
      const added = await addOwnCatalogueEntries(s.core.db, opts.org, opts.kind, parsed, Date.now());
      print(`Added ${added} ${opts.kind} entries.`);
    } catch (error) {
      if (error instanceof CatalogueEntryError) throw new InvalidArgumentError(`${opts.file}: ${error.message}`);
      throw error;
    }
  }));

program.command('signing-keys').description('Session-token signing keys').command('rotate')
  .description('Add a signing key, published at once and signing 5 minutes later (JWKS caches hold it by then); tokens signed by the old one stay valid until they expire')
  .option('--now', 'sign with the new key at once (a leaked key): verifiers holding a JWKS cached before it may refuse tokens for up to 5 minutes')
  .action((opts: { now?: boolean }) => withServices(async (s) => {
    const { kid, signsFrom } = await s.signingKeys.rotate({ immediately: opts.now === true });
    print(opts.now ? `New signing key ${kid} is current.` : `New signing key ${kid} is published; it signs from ${new Date(signsFrom).toISOString()}.`);
  }));

const keys = program.command('keys').description('API keys');

keys.command('create').description('Mint a key for an organisation')
  .requiredOption('--org <id>', 'organisation id', anId)
  .addOption(new Option('--env <env>').choices(['live', 'test']).makeOptionMandatory())
  .addOption(new Option('--type <type>').choices(['secret', 'publishable']).default('secret'))
  .option('--name <name>')
  .action((opts: { org: string; env: string; type: 'secret' | 'publishable'; name?: string }) => withServices(async (s) => {
    if (!(await s.organizationRepo.get(opts.org))) throw new InvalidArgumentError(`No organisation ${opts.org}.`);
    const { row, secret } = await s.core.db.kysely.transaction().execute((tx) =>
      s.apiKeys.issue(tx, { organizationId: opts.org, livemode: opts.env === 'live', type: opts.type, name: opts.name ?? null }));
    print({ id: row.id, type: row.type, livemode: row.livemode === 1, secret });
  }));

keys.command('limit').description("Raise a key's rate limit (requests per window); a rotated key passes it on")
  .requiredOption('--org <id>', 'organisation id', anId).requiredOption('--key <id>', 'key id', anId)
  .option('--max <n>', 'requests per window', countFrom(1)).option('--reset', 'back to the configured default')
  .action((opts: { org: string; key: string; max?: number; reset?: boolean }) => withServices(async (s) => {
    if ((opts.max === undefined) === !opts.reset) throw new InvalidArgumentError('Give exactly one of --max N or --reset.');
    await s.apiKeys.setRateLimit(opts.org, opts.key, opts.reset ? null : opts.max!);
    print(opts.reset ? 'Limit reset to the default.' : `Limit set to ${opts.max} per window.`);
  }));

/**
 * The configured PostgreSQL could not be reached or refused the connection (no server, an unknown host, a wrong
 * password, database or schema): one sentence naming DATABASE_URL (its password left out), not the driver's stack.
 */
function databaseUnreachable(error: unknown): string | null {
  const url = process.env.DATABASE_URL?.trim();
  const code = (error as { code?: unknown } | null)?.code;
  if (!url || typeof code !== 'string') return null;
  const network = ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code);
  // SQLSTATE classes 08 (connection), 28 (authorisation), 3D/3F (no such database/schema), 57P03 (cannot connect now).
  if (!network && !/^(08|28|3D|3F|57P03)/.test(code)) return null;
  let shown = url;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    shown = parsed.toString();
  } catch { /* loadConfig checked its scheme; shown as given */ }
  return `cannot use the database at ${shown} (DATABASE_URL): ${(error as Error).message}`;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const unreachable = databaseUnreachable(error);
  if (unreachable) {
    process.stderr.write(`prep: ${unreachable}\n`);
  } else if (error instanceof ConfigError) {
    process.stderr.write(`prep: configuration error: ${error.message}\n`);
  } else if (error instanceof ApiError || error instanceof InvalidArgumentError || error instanceof ListenError) {
    process.stderr.write(`prep: ${error.message}\n`);
  } else {
    process.stderr.write(`prep: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exitCode = 1;
}
