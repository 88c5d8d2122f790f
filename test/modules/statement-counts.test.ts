import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testClient } from '../helpers/client.js';
import { countStatements, planOf } from '../helpers/sql-count.js';
import { settleJobs } from '../helpers/settle.js';
import { newId } from '../../src/platform/ids.js';

/**
 * How many SQL statements a request runs does not grow with the page it answers or with the data under it (no N+1).
 * Counts, never timings: the statements are counted below Kysely and the read cache (helpers/sql-count.ts).
 */
let h: Harness;
let c: ReturnType<typeof testClient>;
let key: string;
let orgId: string;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '1000000' } });
  c = testClient(h);
  const org = await h.createOrg('Counted', 1000);
  key = org.keys.secret_test;
  orgId = org.id;
});
afterAll(() => h?.close());

/** The body of a GET and the statements it ran, after a call that warms what every request reads the same (the key, the module switch). */
async function counted(url: string, auth: { key?: string; token?: string } = { key }): Promise<{ body: any; statements: string[] }> {
  await c.ok('GET', '/v1/candidates?limit=1', { key });
  const { result, statements } = await countStatements(() => c.call('GET', url, auth));
  expect(result.status, result.raw).toBe(200);
  return { body: result.body, statements };
}

describe('prompt-engineering assessments', () => {
  it('a page of assessments reads their tasks at once, not once per assessment', async () => {
    const { body, statements } = await counted('/v1/prompt-engineering-assessments?limit=100');
    expect(body.data.length).toBeGreaterThan(5);
    expect(body.data.every((a: { task_count: number }) => a.task_count > 0)).toBe(true);
    // The tasks' digests once for the page, and their contents once for those not yet kept in the process.
    const taskReads = statements.filter((sql) => sql.includes('"prompt_engineering_tasks"'));
    expect(taskReads.length, statements.join('\n')).toBeLessThanOrEqual(2);
  });
});

describe('coding submissions', () => {
  it('the list and a submission are read without their source, which neither returns', async () => {
    const test = (await c.ok('GET', '/v1/coding-tests', { key })).data[0];
    const session = await c.assign(key, 'coding', test.id);
    const token = await c.token(key, 'coding', session.id);
    await c.ok('POST', `/v1/coding-sessions/${session.id}/start`, { token }, 200);
    const { problem_id } = await h.db.kysely.selectFrom('coding_session_problems').select('problem_id').where('session_id', '=', session.id).executeTakeFirstOrThrow();
    const now = h.clock.now();
    const ids = Array.from({ length: 30 }, () => newId()).sort();
    await h.db.kysely.insertInto('coding_submissions').values(ids.map((id) => ({
      id, organization_id: orgId, livemode: 0 as const, session_id: session.id, problem_id, language: 'python', source: 'print(42)  # padding\n'.repeat(3000),
      status: 'judged' as const, verdict: 'ACCEPTED', results: JSON.stringify({ compile: null, cases: [] }), cases_passed: 3, cases_total: 3,
      hidden_passed: 2, hidden_total: 2, large_time_ms: null, max_time_ms: 5, max_memory_kb: 100, error: null, created_at: now, updated_at: now, judged_at: now,
    }))).execute();
    const readsSource = (sql: string) => sql.includes('"coding_submissions"') && (sql.startsWith('select *') || sql.includes('"source"'));

    const list = await counted(`/v1/coding-sessions/${session.id}/submissions?problem_id=${problem_id}&limit=100`, { token });
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual(ids);
    expect(list.statements.filter(readsSource), list.statements.join('\n')).toEqual([]);
    expect(list.statements.some((sql) => sql.includes('"coding_submissions"'))).toBe(true);

    const one = await counted(`/v1/coding-sessions/${session.id}/submissions/${ids[0]}`, { token });
    expect(one.body).toMatchObject({ id: ids[0], verdict: 'ACCEPTED', cases_passed: 3 });
    expect(one.body).not.toHaveProperty('source');
    expect(one.statements.filter(readsSource), one.statements.join('\n')).toEqual([]);
  });
});

describe('events', () => {
  it('a page of events, of one status or all, is read through an index that serves its filter and its order', async () => {
    const now = h.clock.now();
    await h.db.kysely.insertInto('events').values(Array.from({ length: 300 }, (_, i) => ({
      id: `whevt_${String(i).padStart(20, '0')}`, organization_id: orgId, livemode: 0 as const, type: 'coding.completed', payload: '{}',
      status: i % 100 === 7 ? 'failed' : 'delivered', created_at: now - (i % 50),
    }))).execute();
    if (h.db.dialect === 'postgres') await sql`analyze events`.execute(h.db.kysely);
    for (const url of ['/v1/events?status=failed&limit=2', '/v1/events?limit=2']) {
      const { result: body, statements, parameters } = await countStatements(() => c.ok('GET', url, { key }));
      expect(body.data.length).toBe(2);
      const at = statements.findIndex((s) => /from "events"/.test(s) && /order by/.test(s));
      expect(at, statements.join('\n')).toBeGreaterThanOrEqual(0);
      const plan = await planOf(h.db, statements[at]!, parameters[at]!);
      // No step that scans the table, sorts (a temporary B-tree, a Sort node) or filters rows the index has read.
      expect(plan, `${url}\n${plan}`).not.toMatch(/SCAN events|TEMP B-TREE|Sort|Seq Scan|Filter:/);
    }
  });
});

describe('webhook endpoints', () => {
  it('re-enabling and deleting an endpoint read its pending deliveries and their attempts through indexes', async () => {
    // A disabled endpoint (written here: creating one resolves its host) holding a delivery that was tried once.
    const now = h.clock.now();
    const endpoint = { id: newId() };
    await h.db.kysely.insertInto('webhook_endpoints').values({
      id: endpoint.id, organization_id: orgId, livemode: 0, url: 'https://hooks.example.com/prep', description: null, enabled_events: '[]',
      disabled: 1, secret: 'unused', retired_secrets: '[]', created_at: now, updated_at: now, deleted_at: null,
    }).execute();
    const event = 'whevt_held00000000000000000';
    await h.db.kysely.insertInto('events').values({ id: event, organization_id: orgId, livemode: 0, type: 'coding.completed', payload: '{}', status: 'pending', created_at: now }).execute();
    const delivery = newId();
    await h.db.kysely.insertInto('webhook_deliveries').values({ id: delivery, event_id: event, endpoint_id: endpoint.id, status: 'pending', created_at: now, updated_at: now }).execute();
    await h.db.kysely.insertInto('webhook_attempts').values({
      id: newId(), delivery_id: delivery, endpoint_id: endpoint.id, event_id: event, status_code: 500, response_body: '', response_ms: 5, error: null, succeeded: 0, created_at: now,
    }).execute();
    // Another endpoint's delivered deliveries, which neither request has any business reading.
    const other = newId();
    await h.db.kysely.insertInto('webhook_endpoints').values({
      id: other, organization_id: orgId, livemode: 0, url: 'https://hooks.example.com/other', description: null, enabled_events: '[]',
      disabled: 0, secret: 'unused', retired_secrets: '[]', created_at: now, updated_at: now, deleted_at: null,
    }).execute();
    await h.db.kysely.insertInto('webhook_deliveries').values(Array.from({ length: 300 }, () => ({
      id: newId(), event_id: event, endpoint_id: other, status: 'delivered' as const, created_at: now, updated_at: now,
    }))).execute();
    if (h.db.dialect === 'postgres') await sql`analyze webhook_deliveries`.execute(h.db.kysely);
    const plans = async (method: 'PATCH' | 'DELETE', body?: unknown) => {
      const { result, statements, parameters } = await countStatements(() => c.call(method, `/v1/webhook-endpoints/${endpoint.id}`, { key, body }));
      expect(result.status, result.raw).toBe(200);
      const at = statements.findIndex((s) => /from "webhook_deliveries"/.test(s) && /"webhook_attempts"/.test(s));
      expect(at, statements.join('\n')).toBeGreaterThanOrEqual(0);
      return planOf(h.db, statements[at]!, parameters[at]!);
    };
    for (const plan of [await plans('PATCH', { disabled: false }), await plans('DELETE')]) {
      // Deliveries found by endpoint and status, attempts by delivery and time: no table scanned, nothing left to filter.
      expect(plan).not.toMatch(/SCAN webhook_|Seq Scan|Filter:/);
      expect(plan).toMatch(/webhook_deliveries_endpoint_idx/);
      expect(plan).toMatch(/webhook_attempts_delivery_idx/);
    }
  });
});

describe('GET /v1/session', () => {
  it('reads the session context without writing: the candidate is read, not locked by a no-op update', async () => {
    const test = (await c.ok('GET', '/v1/psychometric-tests', { key })).data[0];
    const candidate = await c.candidate(key, { name: 'Grace Hopper' });
    const session = await c.assign(key, 'psychometric', test.id, candidate);
    const token = await c.token(key, 'psychometric', session.id);
    for (let i = 0; i < 2; i++) {
      const { result, statements } = await countStatements(() => c.call('GET', '/v1/session', { token }));
      expect(result.status, result.raw).toBe(200);
      expect(result.body.candidate).toEqual({ id: candidate, name: 'Grace Hopper' });
      expect(statements.filter((sql) => /^\s*(insert|update|delete)\b/i.test(sql)), statements.join('\n')).toEqual([]);
    }
  });
});

describe('session lists', () => {
  it('a page of one status is read through an index that serves the filter and the order', async () => {
    const psychometric = (await c.ok('GET', '/v1/psychometric-tests', { key })).data[0].id;
    const candidate = await c.candidate(key);
    await c.assign(key, 'psychometric', psychometric, candidate);
    for (const url of ['/v1/coding-sessions?status=in_progress', '/v1/psychometric-sessions?status=assigned',
      '/v1/prompt-engineering-sessions?status=completed', '/v1/interviews?status=in_progress']) {
      const { result, statements, parameters } = await countStatements(() => c.call('GET', url, { key }));
      expect(result.status, result.raw).toBe(200);
      const at = statements.findIndex((s) => /"status" = /.test(s) && /order by "id" desc/.test(s));
      expect(at, statements.join('\n')).toBeGreaterThanOrEqual(0);
      const plan = await planOf(h.db, statements[at]!, parameters[at]!);
      expect(plan, `${url}\n${plan}`).toMatch(/status_page_idx/);
      expect(plan, `${url}\n${plan}`).not.toMatch(/SCAN |TEMP B-TREE|Sort|Seq Scan|Filter:/);
      // What the list settles first (sessions whose time is up) is found through an index of the tenant, on SQLite the
      // status one (only the open sessions); PostgreSQL, on these few rows, may take the tenant's time index instead.
      const first = statements.findIndex((s) => /"status" in /.test(s) && /case\s+when status/.test(s));
      expect(first, statements.join('\n')).toBeGreaterThanOrEqual(0);
      const settlePlan = await planOf(h.db, statements[first]!, parameters[first]!);
      expect(settlePlan, `${url}\n${settlePlan}`).toMatch(h.db.dialect === 'sqlite' ? /status_page_idx/ : /Index/);
      expect(settlePlan, `${url}\n${settlePlan}`).not.toMatch(/SCAN (?!.*USING INDEX)|Seq Scan/);
    }
  });
});

describe('deleting a webhook endpoint', () => {
  it('fails its held deliveries and settles their events in a few statements, not four per delivery', async () => {
    const now = h.clock.now();
    const endpoint = newId();
    await h.db.kysely.insertInto('webhook_endpoints').values({
      id: endpoint, organization_id: orgId, livemode: 0, url: 'https://hooks.example.com/held', description: null, enabled_events: '[]',
      disabled: 1, secret: 'unused', retired_secrets: '[]', created_at: now, updated_at: now, deleted_at: null,
    }).execute();
    // 40 events, each with a delivery held here (it was disabled with retries queued).
    const events = Array.from({ length: 40 }, (_, i) => `whevt_del${String(i).padStart(18, '0')}`);
    await h.db.kysely.insertInto('events').values(events.map((id) => ({ id, organization_id: orgId, livemode: 0 as const, type: 'coding.completed', payload: '{}', status: 'pending', created_at: now }))).execute();
    await h.db.kysely.insertInto('webhook_deliveries').values(events.map((event_id) => ({
      id: newId(), event_id, endpoint_id: endpoint, status: 'pending' as const, created_at: now, updated_at: now,
    }))).execute();
    const statusOf = async (ids: string[]) => (await h.db.kysely.selectFrom('events').select('status').where('id', 'in', ids).execute()).map((r) => r.status);

    const { result, statements } = await countStatements(() => c.call('DELETE', `/v1/webhook-endpoints/${endpoint}`, { key }));
    expect(result.status, result.raw).toBe(200);
    expect(new Set(await statusOf(events))).toEqual(new Set(['failed']));
    const pending = await h.db.kysely.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpoint).where('status', '=', 'pending').execute();
    expect(pending).toEqual([]);
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(12);
  });
});

describe('resumes', () => {
  it('a page of resumes is read without their sections (the whole text), which the list does not return', async () => {
    const candidate = await c.candidate(key);
    const now = h.clock.now();
    const ids = Array.from({ length: 5 }, () => newId()).sort();
    const parsed = {
      name: 'Ada', email: null, phone: null, location: null, links: { linkedin: null, github: null, site: null }, summary: null, experience: [], education: [],
      skills: [], languages: [], certifications: [], total_experience_months: 0, sections_found: ['experience'], warnings: [],
    };
    const sections = JSON.stringify([{ name: 'experience', heading: 'Experience', lines: Array.from({ length: 400 }, (_, i) => `Line ${i} of a long career.`) }]);
    await h.db.kysely.insertInto('resumes').values(ids.map((id) => ({
      id, organization_id: orgId, livemode: 0 as const, candidate_id: candidate, upload_key: `upload-${id}`, file_key: `file-${id}`, content_type: 'text/plain',
      size: 1000, pages: 1, sha256: '0'.repeat(64), parsed: JSON.stringify(parsed), sections, score_id: null, created_at: now,
    }))).execute();
    const { result, statements } = await countStatements(() => c.call('GET', `/v1/resumes?candidate_id=${candidate}&limit=100`, { key }));
    expect(result.status, result.raw).toBe(200);
    expect(result.body.data.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    expect(result.body.data[0].parsed).toEqual(parsed);
    const reads = statements.filter((sql) => /from "resumes"/.test(sql));
    expect(reads.length, statements.join('\n')).toBe(1);
    expect(reads[0]).not.toMatch(/"resumes"\.\*|"sections"/);
  });
});

describe('coding completion', () => {
  it('writes the report from the submissions without their sources, and reads reference timings once', async () => {
    const test = (await c.ok('GET', '/v1/coding-tests', { key })).data[0];
    const session = await c.assign(key, 'coding', test.id);
    const token = await c.token(key, 'coding', session.id);
    await c.ok('POST', `/v1/coding-sessions/${session.id}/start`, { token }, 200);
    const problems = await h.db.kysely.selectFrom('coding_session_problems').select('problem_id').where('session_id', '=', session.id).execute();
    expect(problems.length).toBeGreaterThan(1);
    const now = h.clock.now();
    await h.db.kysely.insertInto('coding_submissions').values(problems.flatMap(({ problem_id }) => Array.from({ length: 10 }, () => ({
      id: newId(), organization_id: orgId, livemode: 0 as const, session_id: session.id, problem_id, language: 'python', source: 'print(42)  # padding\n'.repeat(3000),
      status: 'judged' as const, verdict: 'ACCEPTED', results: JSON.stringify({ compile: null, cases: [] }), cases_passed: 3, cases_total: 3,
      hidden_passed: 2, hidden_total: 2, large_time_ms: null, max_time_ms: 5, max_memory_kb: 100, error: null, created_at: now, updated_at: now, judged_at: now,
    })))).execute();
    await c.ok('POST', `/v1/coding-sessions/${session.id}/finalize`, { token, body: {} }, 202);

    const { statements } = await countStatements(() => settleJobs(h, ['coding.complete'], 'completion', { only: true }));
    const report = await c.ok('GET', `/v1/coding-sessions/${session.id}/report`, { key });
    expect(report.problems.length).toBe(problems.length);
    expect(statements.filter((sql) => /from "coding_submissions"/.test(sql) && /^select \*/.test(sql)), statements.join('\n')).toEqual([]);
    expect(statements.filter((sql) => /"coding_reference_timings"/.test(sql)).length, statements.join('\n')).toBe(1);
  });
});

describe('GET /v1/analytics/activity', () => {
  it('a range of one environment is counted through an index on its time, per type: no table scanned, no row filtered', async () => {
    // A history of interviews before the range: on a few rows PostgreSQL would rather walk the status index, which
    // serves interviews' GROUP BY status, and filter the range; on an environment's history it takes the range's index.
    const candidate = await c.candidate(key);
    const made = await c.ok('POST', '/v1/interviews', { key, body: { candidate_id: candidate, round_type: 'behavioral', difficulty: 3, role: 'Engineer' } });
    const row = await h.db.kysely.selectFrom('interviews').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    await h.db.kysely.insertInto('interviews').values(Array.from({ length: 300 }, (_, i) => ({
      ...row, id: newId(), candidate_id: null, created_at: row.created_at - (i + 1) * 86_400_000,
    }))).execute();
    if (h.db.dialect === 'postgres') await sql`analyze interviews`.execute(h.db.kysely);
    const since = Math.floor(h.clock.now() / 1000) - 3600;
    const { result, statements, parameters } = await countStatements(() => c.call('GET', `/v1/analytics/activity?since=${since}&until=${since + 7200}`, { key }));
    expect(result.status, result.raw).toBe(200);
    const tables = ['candidates', 'coding_sessions', 'interviews', 'prompt_engineering_sessions', 'psychometric_sessions', 'resumes'];
    for (const table of tables) {
      const at = statements.findIndex((s) => s.includes(`from "${table}"`) && /"created_at" >= /.test(s));
      expect(at, `${table}\n${statements.join('\n')}`).toBeGreaterThanOrEqual(0);
      const plan = await planOf(h.db, statements[at]!, parameters[at]!);
      expect(plan, `${table}\n${plan}`).toMatch(new RegExp(`${table}_created_idx`));
      expect(plan, `${table}\n${plan}`).not.toMatch(/SCAN |Seq Scan|Filter:/);
    }
  });
});
