import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrganizationCodingTest } from '../../src/modules/coding/catalog-seed.js';
import { newId } from '../../src/platform/ids.js';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';
import { slotPools } from '../helpers/coding.js';

let h: Harness;
let orgA: Org;
let orgB: Org;
/** The organisation-owned test inserted for org A. */
let ownTestId: string;
let sharedProblemId: string;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  orgA = await h.createOrg('Org A');
  orgB = await h.createOrg('Org B');

  // Org A's own test: one slot whose pool reuses a problem of the shared catalogue.
  const db = h.db.kysely;
  const problem = await db.selectFrom('coding_problems').select('id').where('slug', '=', 'kayak-pairing').executeTakeFirstOrThrow();
  sharedProblemId = problem.id;
  ownTestId = newId();
  const slotId = newId();
  await db.insertInto('coding_tests').values({
    id: ownTestId, organization_id: orgA.id, slug: 'acme-house-screen', name: 'Acme house screen', description: 'Our own screen.',
    difficulty: 'medium', skills: JSON.stringify(['sorting', 'acme-internal']), duration_minutes: 45, attempts_per_problem: 10, created_at: h.clock.now(),
  }).execute();
  await db.insertInto('coding_test_slots').values({ id: slotId, test_id: ownTestId, position: 0, title: 'House problem' }).execute();
  await db.insertInto('coding_slot_problems').values({ slot_id: slotId, problem_id: sharedProblemId, position: 0 }).execute();
});
afterAll(() => h.close());

const key = () => h.org.keys.secret_test;

async function get(url: string, apiKey = key()) {
  const res = await h.app.inject({ method: 'GET', url, headers: bearer(apiKey) });
  return { status: res.statusCode, body: res.json() as any, raw: res.body };
}

function expectError(res: { status: number; body: any }, status: number, code: string, param?: string | null) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

/** The shared catalogue as stored: what every expectation is computed from. */
async function sharedTests() {
  const rows = await h.db.kysely.selectFrom('coding_tests').selectAll().where('organization_id', 'is', null).execute();
  return rows.map((r) => ({ ...r, skills: JSON.parse(r.skills) as string[] }));
}


/**
 * Strings that must never appear in a response: the secret field names, and the text of every problem's
 * hidden case inputs (JSON-escaped, as they would appear in a body) that is not also public text.
 */
async function secrets(): Promise<string[]> {
  const problems = await h.db.kysely.selectFrom('coding_problems').selectAll().execute();
  const needles = ['hidden_cases', 'expected_complexity', 'comparator'];
  for (const p of problems) {
    const publicText = JSON.stringify([p.statement, p.examples, p.input_format, p.output_format, p.constraints]);
    const inputs = (JSON.parse(p.hidden_cases) as Array<{ input: string }>).map((c) => JSON.stringify(c.input).slice(1, -1))
      .filter((s) => s.length >= 12 && !publicText.includes(s));
    expect(inputs.length, `problem ${p.slug} has a distinctive hidden input to look for`).toBeGreaterThan(0);
    // The scan must be able to fail: each hidden input looked for is stored, in that form, in the database (looked
    // for in its own problem's row: in all 70 MB of them at once, this check alone took 30 s).
    for (const input of inputs) expect(p.hidden_cases.includes(input), `${p.slug}: a hidden input as stored`).toBe(true);
    needles.push(...inputs);
    needles.push(JSON.stringify(p.expected_complexity));
  }
  return needles;
}

function expectNoLeak(raw: string, needles: string[]) {
  for (const needle of needles) expect(raw.includes(needle), `response leaks ${needle.slice(0, 60)}`).toBe(false);
}

async function collectAll(query: string, apiKey = key()) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page++) {
    const res = await get(`/v1/coding-tests?limit=1${query}${cursor ? `&starting_after=${cursor}` : ''}`, apiKey);
    expect(res.status).toBe(200);
    ids.push(...res.body.data.map((t: any) => t.id));
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull();
      return ids;
    }
    expect(res.body.next_cursor).toBe(res.body.data[0].id);
    cursor = res.body.next_cursor;
  }
  throw new Error('pagination did not end');
}

describe('GET /v1/coding-tests', () => {
  it('lists the shared catalogue in the list envelope with total_count', async () => {
    const shared = await sharedTests();
    expect(shared.length).toBeGreaterThanOrEqual(3);
    const res = await get('/v1/coding-tests');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object', 'total_count']);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null, total_count: shared.length });
    expect(res.body.data.map((t: any) => t.id).sort()).toEqual(shared.map((t) => t.id).sort());
    for (const t of res.body.data) {
      const row = shared.find((s) => s.id === t.id)!;
      const pools = await slotPools(h.db.kysely, t.id);
      expect(t).toMatchObject({
        object: 'coding_test', slug: row.slug, name: row.name, difficulty: row.difficulty, skills: row.skills,
        duration_minutes: row.duration_minutes, slot_count: pools.size, custom: false,
      });
    }
    // Newest first, by id.
    const ids = res.body.data.map((t: any) => t.id);
    expect(ids).toEqual([...ids].sort().reverse());
  });

  it('filters by difficulty, counting every match', async () => {
    const shared = await sharedTests();
    for (const difficulty of ['easy', 'medium', 'hard'] as const) {
      const expected = shared.filter((t) => t.difficulty === difficulty).map((t) => t.id).sort();
      expect(expected.length, `catalogue has a ${difficulty} test`).toBeGreaterThan(0);
      const res = await get(`/v1/coding-tests?difficulty=${difficulty}`);
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(expected.length);
      expect(res.body.data.map((t: any) => t.id).sort()).toEqual(expected);
      expect(res.body.data.every((t: any) => t.difficulty === difficulty)).toBe(true);
    }
  });

  it('refuses an unknown difficulty with 400 naming the parameter', async () => {
    for (const bad of ['extreme', 'EASY', '']) {
      expectError(await get(`/v1/coding-tests?difficulty=${bad}`), 400, 'parameter_invalid', 'difficulty');
    }
  });

  it('filters by skill_slug (exact skill, not a substring), counting every match', async () => {
    const shared = await sharedTests();
    for (const skill of ['stacks', 'graphs', 'hashing', 'two-pointers']) {
      const expected = shared.filter((t) => t.skills.includes(skill)).map((t) => t.id).sort();
      expect(expected.length).toBeGreaterThan(0);
      const res = await get(`/v1/coding-tests?skill_slug=${skill}`);
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(expected.length);
      expect(res.body.data.map((t: any) => t.id).sort()).toEqual(expected);
    }
    // "stack" is a prefix of "stacks" but not a skill of any test.
    const partial = await get('/v1/coding-tests?skill_slug=stack');
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ data: [], total_count: 0, has_more: false });
    // Combined with difficulty.
    const both = await get('/v1/coding-tests?skill_slug=sorting&difficulty=hard');
    const expected = shared.filter((t) => t.skills.includes('sorting') && t.difficulty === 'hard').map((t) => t.id).sort().reverse();
    expect(both.body.total_count).toBe(expected.length);
    expect(both.body.data.map((t: any) => t.id)).toEqual(expected); // newest first
    expectError(await get('/v1/coding-tests?skill_slug=Not%20A%20Slug'), 400, 'parameter_invalid', 'skill_slug');
  });

  it('counts all matches in total_count, not just the page, and pages with the cursor', async () => {
    const shared = await sharedTests();
    const first = await get('/v1/coding-tests?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.has_more).toBe(true);
    expect(first.body.total_count).toBe(shared.length);

    const all = await collectAll('');
    expect(all).toHaveLength(shared.length);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual((await get('/v1/coding-tests')).body.data.map((t: any) => t.id));

    // Paging a filtered list keeps the filter, and total_count stays the filter's total on every page.
    const skill = 'sorting';
    const expected = shared.filter((t) => t.skills.includes(skill)).map((t) => t.id).sort();
    expect(expected.length).toBeGreaterThan(1);
    const filtered = await collectAll(`&skill_slug=${skill}`);
    expect([...filtered].sort()).toEqual(expected);
    const page = await get(`/v1/coding-tests?limit=1&skill_slug=${skill}&starting_after=${filtered[0]}`);
    expect(page.body.total_count).toBe(expected.length);
    expect(page.body.data[0].id).toBe(filtered[1]);

    expectError(await get('/v1/coding-tests?limit=0'), 400, 'parameter_invalid', 'limit');
    expectError(await get('/v1/coding-tests?limit=101'), 400, 'parameter_invalid', 'limit');
  });
});

describe('GET /v1/coding-tests/{id}', () => {
  it('gives every slot with one example problem from its pool (statement and examples)', async () => {
    for (const test of await sharedTests()) {
      const res = await get(`/v1/coding-tests/${test.id}`);
      expect(res.status).toBe(200);
      const pools = await slotPools(h.db.kysely, test.id);
      expect(res.body).toMatchObject({ object: 'coding_test', id: test.id, slug: test.slug, custom: false, slot_count: pools.size });
      expect(res.body.slots).toHaveLength(pools.size);
      for (const slot of res.body.slots) {
        const pool = pools.get(slot.position)!;
        expect(slot.title).toBe(pool.title);
        expect(slot.variants).toBe(pool.problems.length);
        expect(pool.problems).toContain(slot.example_problem.id);
        expect(typeof slot.example_problem.statement).toBe('string');
        expect(slot.example_problem.statement.length).toBeGreaterThan(20);
        expect(slot.example_problem.examples.length).toBeGreaterThan(0);
        for (const ex of slot.example_problem.examples) {
          expect(typeof ex.input).toBe('string');
          expect(typeof ex.output).toBe('string');
        }
      }
    }
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expectError(await get(`/v1/coding-tests/${newId()}`), 404, 'resource_not_found');
    expectError(await get('/v1/coding-tests/not-a-uuid'), 400, 'parameter_invalid', 'id');
  });
});

describe('secrets of the catalogue', () => {
  it('never returns hidden cases, comparators or expected complexities in the list or any detail', async () => {
    const needles = await secrets();

    for (const apiKey of [key(), orgA.keys.secret_test]) {
      const list = await get('/v1/coding-tests?limit=100', apiKey);
      expect(list.status).toBe(200);
      expectNoLeak(list.raw, needles);
      for (const t of list.body.data) {
        const detail = await get(`/v1/coding-tests/${t.id}`, apiKey);
        expect(detail.status).toBe(200);
        expectNoLeak(detail.raw, needles);
      }
    }
  });
});

describe("an organisation's own tests", () => {
  it('appear for their organisation with custom: true, alongside the shared catalogue', async () => {
    const shared = await sharedTests();
    const list = await get('/v1/coding-tests', orgA.keys.secret_test);
    expect(list.body.total_count).toBe(shared.length + 1);
    const own = list.body.data.find((t: any) => t.id === ownTestId);
    expect(own).toMatchObject({ custom: true, slug: 'acme-house-screen', skills: ['sorting', 'acme-internal'], duration_minutes: 45, slot_count: 1 });
    expect(list.body.data.filter((t: any) => t.custom)).toHaveLength(1);

    // Filters apply to them too.
    const bySkill = await get('/v1/coding-tests?skill_slug=acme-internal', orgA.keys.secret_test);
    expect(bySkill.body).toMatchObject({ total_count: 1, data: [{ id: ownTestId }] });
    const medium = await get('/v1/coding-tests?difficulty=medium', orgA.keys.secret_test);
    expect(medium.body.total_count).toBe(shared.filter((t) => t.difficulty === 'medium').length + 1);
    expect(medium.body.data.map((t: any) => t.id)).toContain(ownTestId);

    // The live key of the same organisation sees it as well (tests belong to the organisation).
    const live = await get('/v1/coding-tests', orgA.keys.secret_live);
    expect(live.body.data.map((t: any) => t.id)).toContain(ownTestId);

    const detail = await get(`/v1/coding-tests/${ownTestId}`, orgA.keys.secret_test);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ custom: true, slots: [{ position: 0, title: 'House problem', variants: 1, example_problem: { id: sharedProblemId } }] });
  });

  it('are invisible to any other organisation', async () => {
    const shared = await sharedTests();
    for (const apiKey of [orgB.keys.secret_test, orgB.keys.secret_live, key()]) {
      const list = await get('/v1/coding-tests?limit=100', apiKey);
      expect(list.body.total_count).toBe(shared.length);
      expect(list.body.data.map((t: any) => t.id)).not.toContain(ownTestId);
      expect((await get('/v1/coding-tests?skill_slug=acme-internal', apiKey)).body).toMatchObject({ data: [], total_count: 0 });
      expectError(await get(`/v1/coding-tests/${ownTestId}`, apiKey), 404, 'resource_not_found');
    }
  });
});

describe('the coding module switch', () => {
  it('refuses the catalogue with 403 module_not_enabled while the module is off, and serves it again once on', async () => {
    const org = await h.createOrg('Switched off');
    const test = (await sharedTests())[0];
    await h.services.organizations.setModule(org.id, 'coding', false);
    for (const apiKey of [org.keys.secret_test, org.keys.secret_live]) {
      expectError(await get('/v1/coding-tests', apiKey), 403, 'module_not_enabled');
      expectError(await get(`/v1/coding-tests/${test.id}`, apiKey), 403, 'module_not_enabled');
    }
    // Other organisations are unaffected.
    expect((await get('/v1/coding-tests')).status).toBe(200);

    await h.services.organizations.setModule(org.id, 'coding', true);
    expect((await get('/v1/coding-tests', org.keys.secret_test)).status).toBe(200);
    expect((await get(`/v1/coding-tests/${test.id}`, org.keys.secret_test)).status).toBe(200);
  });
});

describe('an organisation\'s own problem folder', () => {
  // Was a bug: a solution file's extension was looked up as SOLUTION_LANGUAGES[ext], so `reference.constructor` (or
  // `.toString`, `.__proto__`) found Object's own properties and was stored as a reference solution under the name
  // "function Object() { [native code] }" (or "[object Object]").
  it('keeps reference solutions of known languages only, whatever other files are named', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'prep-own-problem-'));
    const problemDir = path.join(dir, 'acme-kayaks');
    cpSync('catalog/coding/problems/kayak-pairing', problemDir, { recursive: true });
    const problem = JSON.parse(readFileSync(path.join(problemDir, 'problem.json'), 'utf8'));
    writeFileSync(path.join(problemDir, 'problem.json'), JSON.stringify({ ...problem, slug: 'acme-inherited-kayaks' }));
    for (const ext of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) writeFileSync(path.join(problemDir, 'solutions', `reference.${ext}`), 'print(1)\n');
    const testFile = path.join(dir, 'test.json');
    writeFileSync(testFile, JSON.stringify({ slug: 'acme-inherited', name: 'Acme', difficulty: 'easy', slots: [{ title: 'X', problems: ['acme-inherited-kayaks'] }] }));
    const org = await h.createOrg('Inherited Solutions Ltd');
    await addOrganizationCodingTest(h.db.kysely, org.id, testFile, [problemDir]);
    const row = await h.db.kysely.selectFrom('coding_problems').select('reference_solutions')
      .where('organization_id', '=', org.id).where('slug', '=', 'acme-inherited-kayaks').executeTakeFirstOrThrow();
    const solutions = JSON.parse(row.reference_solutions!);
    expect(Object.keys(solutions).sort()).toEqual(['cpp', 'python']);
    expect(solutions.python).toBe(readFileSync('catalog/coding/problems/kayak-pairing/solutions/reference.py', 'utf8'));
  });
});
