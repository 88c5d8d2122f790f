import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import type { App } from '../src/app-types.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Db } from '../src/db/database.js';
import { MIN_NODE, supportsNode } from '../src/platform/node-version.js';
import { bearer, throwawayDatabase } from './helpers/harness.js';

const run = promisify(execFile);
// Each `prep` here is a process of its own (start, migrate, run): a test running ten of them on a loaded 2-core
// machine took 30 s, the default limit.
vi.setConfig({ testTimeout: 120_000 });

let database: Awaited<ReturnType<typeof throwawayDatabase>>;
let env: Record<string, string>;

/** Runs `prep ...` (the package binary) against this suite's database. */
async function prep(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/prep.js', ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return { code: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
  }
}

let app: App;
let db: Db;

beforeAll(async () => {
  database = await throwawayDatabase();
  env = { ...database.env, PREP_LOG_LEVEL: 'silent' };
});
afterAll(async () => {
  await app?.close();
  await db?.close();
  await database.drop();
});

/** The HTTP app on the same database, to see what the CLI did. */
async function api(): Promise<App> {
  if (!app) {
    db = openDatabase(loadConfig(env));
    app = (await buildApp({ config: loadConfig(env), db, logger: false })).app;
  }
  return app;
}

describe('the Node.js it runs on', () => {
  it('accepts the versions package.json names and refuses older ones', () => {
    const engines = JSON.parse(readFileSync('package.json', 'utf8')).engines.node as string;
    expect(engines).toBe(`>=${MIN_NODE.major}.${MIN_NODE.minor}`);
    for (const v of ['22.13.0', '22.20.1', '23.0.0', '24.21.0', '30.1.2']) expect(supportsNode(v), v).toBe(true);
    for (const v of ['22.12.9', '21.7.3', '20.20.2', '18.0.0']) expect(supportsNode(v), v).toBe(false);
  });

  // The machines ship Node 20 as /usr/bin/node: prep refuses it in a sentence (before, opening SQLite crashed it).
  const system = '/usr/bin/node';
  const old = (() => {
    try {
      return existsSync(system) && !supportsNode(execFileSync(system, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim());
    } catch {
      return false;
    }
  })();
  it.skipIf(!old)('stops on an older Node.js with a sentence, before opening anything', async () => {
    const result = await run(system, ['bin/prep.js', 'serve'], { env: { ...process.env, ...env } }).then(() => ({ code: 0, stderr: '' }), (error: any) => ({ code: error.code, stderr: String(error.stderr) }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Prep needs Node\.js 22\.13 or later/);
  });
});

describe('prep CLI', () => {
  it('migrate applies every migration once', async () => {
    const first = await prep('migrate');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('0001_core');
    const again = await prep('migrate');
    expect(again.stdout).toContain('Already up to date');
  });

  // `prep serve` and `prep worker` started together on a fresh database (or after an upgrade) both prepare it: on
  // SQLite every such pair failed one of them ("table organizations already exists", "UNIQUE constraint failed:
  // coding_problems.slug"), half-way through its migrations or its catalogue load.
  it('two processes preparing one fresh database at once both succeed, and it is prepared once', async () => {
    const fresh = await throwawayDatabase();
    try {
      const prepOn = (command: string) => run(process.execPath, ['bin/prep.js', command], { env: { ...process.env, ...fresh.env, PREP_LOG_LEVEL: 'silent' } })
        .then(({ stdout }) => ({ code: 0, stdout, stderr: '' }), (error: any) => ({ code: error.code ?? 1, stdout: String(error.stdout), stderr: String(error.stderr) }));
      // `prep seed` too: its reload of the catalogues takes the same turn.
      const results = await Promise.all([prepOn('migrate'), prepOn('migrate'), prepOn('migrate'), prepOn('seed')]);
      for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
      // One applied the migrations: a migrate, which says so, or the seed when it came first (it prints no list).
      const migrates = results.slice(0, 3);
      expect(migrates.filter((r) => r.stdout.includes('0001_core')).length).toBeLessThanOrEqual(1);
      expect(migrates.filter((r) => r.stdout.includes('Already up to date')).length).toBeGreaterThanOrEqual(2);
      const check = openDatabase(loadConfig(fresh.env));
      try {
        const problems = await check.kysely.selectFrom('coding_problems').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', 'is', null).executeTakeFirstOrThrow();
        expect(Number(problems.n)).toBe(30);
      } finally {
        await check.close();
      }
    } finally {
      await fresh.drop();
    }
  });

  let org: { organization: { id: string; name: string }; keys: Record<string, string> };

  it('org create --json prints exactly the documented object, with working keys', async () => {
    const res = await prep('org', 'create', '--name', 'Globex', '--credits', '5', '--json');
    expect(res.code).toBe(0);
    org = JSON.parse(res.stdout);
    expect(Object.keys(org)).toEqual(['organization', 'keys']);
    expect(org.organization.name).toBe('Globex');
    expect(org.organization.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Object.keys(org.keys).sort()).toEqual(['publishable_live', 'publishable_test', 'secret_live', 'secret_test']);
    expect(org.keys.secret_live).toMatch(/^svc_sk_live_[0-9A-Za-z]{43,}$/);
    expect(org.keys.secret_test).toMatch(/^svc_sk_test_/);
    expect(org.keys.publishable_live).toMatch(/^svc_pk_live_/);
    expect(org.keys.publishable_test).toMatch(/^svc_pk_test_/);

    const a = await api();
    for (const key of [org.keys.secret_live, org.keys.secret_test]) {
      const usage = await a.inject({ method: 'GET', url: '/v1/usage', headers: bearer(key) });
      expect(usage.statusCode).toBe(200);
      expect(usage.json().credits.coding).toBe(5);
      expect(usage.json().credits.psychometric).toBe(5);
    }
  });

  it('org credits adds credits of one kind (both environments by default, or one with --env)', async () => {
    expect((await prep('org', 'credits', '--org', org.organization.id, '--kind', 'coding', '--add', '3')).code).toBe(0);
    expect((await prep('org', 'credits', '--org', org.organization.id, '--kind', 'resume', '--add', '2', '--env', 'live')).code).toBe(0);
    const a = await api();
    const live = (await a.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.keys.secret_live) })).json();
    const test = (await a.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.keys.secret_test) })).json();
    expect([live.credits.coding, test.credits.coding]).toEqual([8, 8]);
    expect([live.credits.resume, test.credits.resume]).toEqual([7, 5]);

    const bad = await prep('org', 'credits', '--org', org.organization.id, '--kind', 'gold', '--add', '3');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--kind');
    const unknownOrg = await prep('org', 'credits', '--org', '01890000-0000-7000-8000-000000000000', '--kind', 'coding', '--add', '1');
    expect(unknownOrg.code).not.toBe(0);
    expect(unknownOrg.stderr).toContain('No such organization');
  });

  it('org modules switches a module, which the API reports and enforces', async () => {
    expect((await prep('org', 'modules', '--org', org.organization.id, '--disable', 'interviews')).code).toBe(0);
    const a = await api();
    const usage = (await a.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.keys.secret_test) })).json();
    expect(usage.modules.interviews).toBe(false);
    const gated = await a.inject({ method: 'GET', url: '/v1/round-types', headers: bearer(org.keys.secret_test) });
    expect(gated.statusCode).toBe(403);
    expect(gated.json().error.code).toBe('module_not_enabled');
    expect((await prep('org', 'modules', '--org', org.organization.id, '--enable', 'interviews')).code).toBe(0);
    expect((await a.inject({ method: 'GET', url: '/v1/round-types', headers: bearer(org.keys.secret_test) })).statusCode).toBe(200);
    expect((await prep('org', 'modules', '--org', org.organization.id, '--disable', 'teleport')).code).not.toBe(0);
  });

  it('org api --disable drives public_api_not_enabled', async () => {
    expect((await prep('org', 'api', '--org', org.organization.id, '--disable')).code).toBe(0);
    const a = await api();
    const res = await a.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.keys.secret_live) });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('public_api_not_enabled');
    expect((await prep('org', 'api', '--org', org.organization.id, '--enable')).code).toBe(0);
    expect((await a.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.keys.secret_live) })).statusCode).toBe(200);
  });

  it('refuses an --org or --key that is not an id in a sentence, on either engine (PostgreSQL printed its uuid error\'s stack)', async () => {
    for (const args of [['org', 'api', '--org', 'nope', '--enable'], ['org', 'credits', '--org', 'nope', '--kind', 'coding', '--add', '1'],
      ['keys', 'limit', '--org', org.organization.id, '--key', 'nope', '--max', '5']]) {
      const res = await prep(...args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr, args.join(' ')).toMatch(/argument 'nope' is invalid\. Not an id\.\n/);
      expect(res.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  });

  it('refuses a grant or a limit outside what a key and the ledger can hold, in a sentence, on either engine', async () => {
    const id = org.organization.id;
    const keyId = JSON.parse((await prep('keys', 'create', '--org', id, '--env', 'test', '--name', 'bounds')).stdout).id;
    // Past the ledger's integer column PostgreSQL printed its out-of-range error's stack (SQLite stored it); a limit of 0
    // answered every request of the key 429.
    for (const args of [['org', 'credits', '--org', id, '--kind', 'coding', '--add', '3000000000'],
      ['org', 'create', '--name', 'Huge', '--credits', '3000000000'], ['keys', 'limit', '--org', id, '--key', keyId, '--max', '0'],
      ['keys', 'limit', '--org', id, '--key', keyId, '--max', '3000000000']]) {
      const res = await prep(...args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr, args.join(' ')).toMatch(/is invalid\. A whole number from [01] to 2147483647\.\n/);
      expect(res.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
    const a = await api();
    expect((await a.inject({ method: 'GET', url: '/v1/usage', headers: bearer(org.keys.secret_test) })).json().credits.coding).toBe(8);
  });

  it('org member add adds staff, whose address can then not be a candidate', async () => {
    const res = await prep('org', 'member', 'add', '--org', org.organization.id, '--email', 'Boss@Globex.test', '--name', 'Hank');
    expect(res.code).toBe(0);
    const a = await api();
    const members = (await a.inject({ method: 'GET', url: '/v1/members', headers: bearer(org.keys.secret_test) })).json();
    expect(members.data.map((m: any) => m.email)).toContain('boss@globex.test');
    const candidate = await a.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(org.keys.secret_test), payload: { email: 'boss@globex.test', name: 'Hank' } });
    expect(candidate.statusCode).toBe(400);
    expect(candidate.json().error.code).toBe('email_is_platform_account');
    expect((await prep('org', 'member', 'add', '--org', org.organization.id, '--email', 'nope', '--name', 'X')).code).not.toBe(0);
    const again = await prep('org', 'member', 'add', '--org', org.organization.id, '--email', 'boss@GLOBEX.test', '--name', 'Hank');
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/^prep: boss@globex\.test is already a member of this organisation\.\n$/);
  });

  it('org coding-test add loads the organisation\'s own problems and test, seen only by that organisation', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prep-own-problem-'));
    const problemDir = path.join(dir, 'acme-sum');
    cpSync('catalog/coding/problems/kayak-pairing', problemDir, { recursive: true });
    const problem = JSON.parse(readFileSync(path.join(problemDir, 'problem.json'), 'utf8'));
    writeFileSync(path.join(problemDir, 'problem.json'), JSON.stringify({ ...problem, slug: 'acme-kayaks', title: 'Acme Kayaks' }));
    const testFile = path.join(dir, 'test.json');
    writeFileSync(testFile, JSON.stringify({
      slug: 'acme-screen', name: 'Acme screen', description: 'Ours.', difficulty: 'medium', skills: ['sorting'], duration_minutes: 30,
      attempts_per_problem: 3, slots: [{ title: 'House', problems: ['acme-kayaks'] }, { title: 'Shared', problems: ['lantern-colour-tally'] }],
    }));
    const res = await prep('org', 'coding-test', 'add', '--org', org.organization.id, '--file', testFile, '--problem', problemDir);
    expect(res.code, res.stderr).toBe(0);
    const a = await api();
    const list = (await a.inject({ method: 'GET', url: '/v1/coding-tests?limit=100', headers: bearer(org.keys.secret_test) })).json();
    const own = list.data.find((t: any) => t.slug === 'acme-screen');
    expect(own).toMatchObject({ custom: true, slot_count: 2, duration_minutes: 30 });
    const detail = (await a.inject({ method: 'GET', url: `/v1/coding-tests/${own.id}`, headers: bearer(org.keys.secret_test) })).json();
    expect(detail.slots.map((s: any) => s.example_problem.slug)).toEqual(['acme-kayaks', 'lantern-colour-tally']);
    const other = JSON.parse((await prep('org', 'create', '--name', 'Other', '--json')).stdout);
    expect((await a.inject({ method: 'GET', url: `/v1/coding-tests/${own.id}`, headers: bearer(other.keys.secret_test) })).statusCode).toBe(404);

    writeFileSync(testFile, JSON.stringify({ slug: 'broken', name: 'Broken', difficulty: 'easy', slots: [{ title: 'X', problems: ['no-such-problem'] }] }));
    const broken = await prep('org', 'coding-test', 'add', '--org', org.organization.id, '--file', testFile);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain("no problem 'no-such-problem'");
  });

  it('org psychometric-test add loads the organisation\'s own instrument after checking its keys, seen only by that organisation', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prep-own-instrument-'));
    const file = path.join(dir, 'instrument.json');
    const mini = JSON.parse(readFileSync('catalog/psychometric/mini-ipip.json', 'utf8'));
    writeFileSync(file, JSON.stringify({ ...mini, slug: 'acme-short-form', name: 'Acme short form' }));
    const res = await prep('org', 'psychometric-test', 'add', '--org', org.organization.id, '--file', file);
    expect(res.code, res.stderr).toBe(0);
    const a = await api();
    const list = (await a.inject({ method: 'GET', url: '/v1/psychometric-tests', headers: bearer(org.keys.secret_test) })).json();
    const own = list.data.find((t: any) => t.slug === 'acme-short-form');
    expect(own).toMatchObject({ custom: true, item_count: 20, norm_group: null });
    const other = JSON.parse((await prep('org', 'create', '--name', 'Other instruments', '--json')).stdout);
    expect((await a.inject({ method: 'GET', url: `/v1/psychometric-tests/${own.id}`, headers: bearer(other.keys.secret_test) })).statusCode).toBe(404);

    // An item on a scale that does not exist is refused, naming it.
    writeFileSync(file, JSON.stringify({ ...mini, slug: 'broken', items: [...mini.items, { ...mini.items[0], id: 'x-1', domain: 'Z' }] }));
    const broken = await prep('org', 'psychometric-test', 'add', '--org', org.organization.id, '--file', file);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain('item x-1 is on unknown domain Z');
  });

  it('org bank add saves the organisation\'s own questions; bank import reads company folders and reports bad rows', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prep-own-bank-'));
    const file = path.join(dir, 'questions.json');
    const question = {
      slug: 'acme-incident-review', title: 'Reviewing an Acme incident', category: 'behavioral', difficulty: 'easy', topics: ['ownership'],
      prompt: 'Tell us about an incident you were on call for at a previous job: what broke, what you did in the first hour, how the review went and what changed afterwards because of it.',
      guidance: { key_points: ['Names their own actions', 'Describes the timeline', 'Says what changed after'], follow_ups: ['What would you do differently?', 'Who else was involved?'] },
    };
    writeFileSync(file, JSON.stringify([question]));
    const added = await prep('org', 'bank', 'add', '--org', org.organization.id, '--file', file);
    expect(added.code, added.stderr).toBe(0);
    const a = await api();
    const own = (await a.inject({ method: 'GET', url: '/v1/question-bank/questions?search=acme%20incident', headers: bearer(org.keys.secret_test) })).json();
    expect(own.data.map((q: any) => q.title)).toEqual(['Reviewing an Acme incident']);
    writeFileSync(file, JSON.stringify([{ ...question, difficulty: 'trivial' }]));
    const refused = await prep('org', 'bank', 'add', '--org', org.organization.id, '--file', file);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('difficulty');

    const folder = path.join(dir, 'import', 'Globex');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'All.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link\nMEDIUM,Globex Gadgets,75,0.5,https://example.com/g\n');
    writeFileSync(path.join(folder, 'Thirty Days.csv'), 'Difficulty,Title,Frequency,Acceptance Rate,Link\nMEDIUM,Globex Gadgets,abc,0.5,https://example.com/g\n');
    const imported = await prep('bank', 'import', path.join(dir, 'import'));
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('imported Globex/All.csv (all): 1 rows, 1 changed');
    expect(imported.stdout).toContain('Globex/Thirty Days.csv:2: frequency "abc"');
    const companies = (await a.inject({ method: 'GET', url: '/v1/question-bank/companies', headers: bearer(org.keys.secret_test) })).json();
    expect(companies.data).toEqual([{ object: 'question_bank_company', slug: 'globex', name: 'Globex', question_count: 1 }]);
    expect((await prep('bank', 'import', path.join(dir, 'nowhere'))).stderr).toContain('not a readable folder');
  });

  // Was unchecked: a missing name was stored as "undefined", a round of 0 or 10,000 minutes became every interview's
  // default length (slots assume at most 120), a job could name any company id, a bad entry midway kept those before
  // it, and a slug the organisation had was a stack trace.
  it('org catalog add checks every entry first and adds all or none', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prep-own-catalog-'));
    const file = path.join(dir, 'entries.json');
    const add = async (kind: string, entries: unknown) => {
      writeFileSync(file, JSON.stringify(entries));
      return prep('org', 'catalog', 'add', '--org', org.organization.id, '--kind', kind, '--file', file);
    };
    const round = { slug: 'acme-panel', name: 'Acme panel', description: 'Ours.', duration_minutes: 40 };
    for (const [entries, says] of [
      [[round, { ...round, slug: 'acme-zero', duration_minutes: 0 }], 'duration_minutes is a whole number from 5 to 120'],
      [[{ ...round, duration_minutes: 10_000 }], 'duration_minutes'],
      [[{ slug: 'acme-nameless', duration_minutes: 30 }], 'name is text'],
      [[round, round], 'names acme-panel twice'],
    ] as const) {
      const refused = await add('round-type', entries);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(says);
    }
    const a = await api();
    const rounds = async () => (await a.inject({ method: 'GET', url: '/v1/round-types?limit=100', headers: bearer(org.keys.secret_test) })).json().data.map((r: any) => r.slug);
    expect(await rounds()).not.toContain('acme-panel'); // the good entry before the bad one was not kept
    expect((await add('round-type', [round])).code).toBe(0);
    expect(await rounds()).toContain('acme-panel');
    const again = await add('round-type', [round]);
    expect(again.stderr).toContain('acme-panel: the organisation already has a round-type with this slug');
    expect(again.stderr).not.toMatch(/at .*\.js:\d+/);
    const other = JSON.parse((await prep('org', 'create', '--name', 'Other catalogue', '--json')).stdout);
    const theirs = await a.inject({ method: 'GET', url: '/v1/companies?limit=1', headers: bearer(other.keys.secret_test) });
    const job = { slug: 'acme-job', title: 'Engineer', company_id: '018f0000-0000-7000-8000-000000000000' };
    expect((await add('job', [job])).stderr).toContain('is no company of this organisation');
    expect((await add('job', [{ ...job, company_id: theirs.json().data[0].id }])).code).toBe(0); // a shared company
  });

  it('keys create and keys limit mint a live key and raise its limit', async () => {
    const created = await prep('keys', 'create', '--org', org.organization.id, '--env', 'live', '--type', 'secret', '--name', 'ci');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.secret).toMatch(/^svc_sk_live_/);
    expect((await prep('keys', 'limit', '--org', org.organization.id, '--key', key.id, '--max', '5000')).code).toBe(0);
    const a = await api();
    const list = (await a.inject({ method: 'GET', url: '/v1/api-keys', headers: bearer(key.secret) })).json();
    expect(list.data.find((k: any) => k.id === key.id).rate_limit).toBe(5000);
  });

  it('refuses bad configuration with a clear message', async () => {
    const res = await run(process.execPath, ['bin/prep.js', 'migrate'], { env: { ...process.env, ...env, PORT: 'eighty' } }).catch((e) => e);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('PORT must be a whole number');
  });

  // Was a bug: a PREP_DATA_DIR that was a file printed mkdir's EEXIST stack, and one under /proc spun at 100% CPU in
  // Node's recursive mkdirSync. Both are one sentence naming PREP_DATA_DIR.
  it('refuses a PREP_DATA_DIR that cannot be a directory in a sentence, on SQLite', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prep-datadir-'));
    writeFileSync(path.join(dir, 'a-file'), '');
    const sqlite = { ...process.env, ...env, DATABASE_URL: '' };
    for (const [dataDir, why] of [[path.join(dir, 'a-file'), 'not a directory'], [path.join(dir, 'a-file', 'below'), 'not a directory'], ['/proc/nope', 'cannot be made']]) {
      const res = await run(process.execPath, ['bin/prep.js', 'migrate'], { env: { ...sqlite, PREP_DATA_DIR: dataDir }, timeout: 20_000 }).catch((e) => e);
      expect(res.code, dataDir).toBe(1);
      expect(res.stderr, dataDir).toContain(`prep: configuration error: PREP_DATA_DIR (${dataDir}): `);
      expect(res.stderr, dataDir).toContain(why);
      expect(res.stderr, dataDir).not.toMatch(/\n\s+at /);
    }
  });

  // Was a bug: PREP_STORAGE_DIR and PREP_SANDBOX_DIR were not looked at until the first upload or code run, then made
  // by Node's recursive mkdir (spinning for ever under /proc). A worker or server now refuses them at start, as it
  // does PREP_DATA_DIR (the sandbox's only as root, the one case where code runs).
  it('refuses a PREP_STORAGE_DIR or PREP_SANDBOX_DIR that cannot be a directory at start, in a sentence', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prep-dirs-'));
    writeFileSync(path.join(dir, 'a-file'), '');
    const fresh = { ...process.env, ...env, DATABASE_URL: '', PREP_DATA_DIR: path.join(dir, 'data') };
    const settings = process.getuid?.() === 0 ? ['PREP_STORAGE_DIR', 'PREP_SANDBOX_DIR'] : ['PREP_STORAGE_DIR'];
    for (const setting of settings) {
      for (const [value, why] of [[path.join(dir, 'a-file', 'below'), 'not a directory'], ['/proc/nope', 'cannot be made']]) {
        const res = await run(process.execPath, ['bin/prep.js', 'worker'], { env: { ...fresh, [setting]: value }, timeout: 30_000, killSignal: 'SIGKILL' }).catch((e) => e);
        expect(res.code, `${setting}=${value}`).toBe(1);
        expect(res.stderr, `${setting}=${value}`).toContain(`prep: configuration error: ${setting} (${value}): ${why}`);
        expect(res.stderr, `${setting}=${value}`).not.toMatch(/\n\s+at /);
      }
    }
    const serve = await run(process.execPath, ['bin/prep.js', 'serve', '--port', '0'], { env: { ...fresh, HOST: '127.0.0.1', PREP_STORAGE_DIR: '/proc/nope' }, timeout: 30_000, killSignal: 'SIGKILL' }).catch((e) => e);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toContain('prep: configuration error: PREP_STORAGE_DIR (/proc/nope): cannot be made');
    expect(serve.stdout).not.toContain('svc_sk_test_');
  });

  // Was a bug: --port took any whole number; past 65535 `listen` failed with a stack, after the first start's keys were printed.
  it('refuses a --port past 65535 in a sentence, before opening the database', async () => {
    const res = await prep('serve', '--port', '70000');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('A whole number from 0 to 65535');
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(res.stdout).not.toContain('svc_sk_test_');
  });

  // Was a bug: --concurrency 0 was taken, and the worker ran on claiming nothing, saying it was running.
  it('refuses worker --concurrency 0 in a sentence instead of running a worker that claims no job', async () => {
    const res = await run(process.execPath, ['bin/prep.js', 'worker', '--concurrency', '0'], { env: { ...process.env, ...env }, timeout: 20_000 }).catch((e) => e);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('A whole number from 1 to 1024');
  });

  // Was a bug: a PostgreSQL that refused the connection (or an unknown host, role, database) printed pg-pool's stack.
  it('says in a sentence that the configured PostgreSQL cannot be reached, its password left out', async () => {
    const res = await run(process.execPath, ['bin/prep.js', 'migrate'], { env: { ...process.env, ...env, DATABASE_URL: 'postgres://prep:hunter2@127.0.0.1:1/prep' } }).catch((e) => e);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('prep: cannot use the database at postgres://prep:***@127.0.0.1:1/prep (DATABASE_URL): connect ECONNREFUSED');
    expect(res.stderr).not.toContain('hunter2');
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  // Was a bug: no connect time-out was set, so a PostgreSQL host that drops packets (or takes the connection and never
  // answers its start-up) held `prep migrate` and `prep serve` for the operating system's TCP time-out, minutes.
  it('gives up on a PostgreSQL that never answers after PREP_DATABASE_CONNECT_TIMEOUT_MS, in a sentence', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer((socket) => { sockets.add(socket); socket.on('error', () => undefined); }); // takes, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `postgres://prep:hunter2@127.0.0.1:${(silent.address() as AddressInfo).port}/prep`;
    try {
      for (const command of [['migrate'], ['serve', '--port', '0']]) {
        const res = await run(process.execPath, ['bin/prep.js', ...command], {
          env: { ...process.env, ...env, DATABASE_URL: url, PREP_DATABASE_CONNECT_TIMEOUT_MS: '500', HOST: '127.0.0.1' }, timeout: 60_000, killSignal: 'SIGKILL',
        }).catch((e) => e);
        expect(res.killed, command[0]).toBeFalsy();
        expect(res.code, command[0]).toBe(1);
        expect(res.stderr, command[0]).toContain(`prep: cannot use the database at postgres://prep:***@127.0.0.1:${(silent.address() as AddressInfo).port}/prep (DATABASE_URL): no answer within 0.5 s (PREP_DATABASE_CONNECT_TIMEOUT_MS)`);
        expect(res.stderr, command[0]).not.toMatch(/\n\s+at /);
        expect(sockets.size, command[0]).toBeGreaterThan(0); // it did reach the server
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('refuses a PREP_DATABASE_CONNECT_TIMEOUT_MS that is not a whole number of milliseconds', () => {
    expect(() => loadConfig({ PREP_DATABASE_CONNECT_TIMEOUT_MS: '5s' })).toThrow('PREP_DATABASE_CONNECT_TIMEOUT_MS must be a whole number');
    expect(loadConfig({}).databaseConnectTimeoutMs).toBe(10_000);
  });
});
