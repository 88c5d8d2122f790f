import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { testClient, type Reply } from '../helpers/client.js';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';
import { slotPools } from '../helpers/coding.js';
import { startServe } from '../helpers/processes.js';

const DAY = 86_400_000;
const MINUTE = 60_000;
const WINDOW_SECONDS = 7 * 86_400;

/** Calls and fixtures over one harness (the sandbox-quota block runs its own harness), delegating to the shared test client. */
function client(h: Harness) {
  const c = testClient(h);
  const { call } = c;
  const candidate = (key: string, name?: string) => c.candidate(key, { name });
  /** The raw reply (the tests check its 201, 200 when resumed, 402, …). */
  const assign = (key: string, candidate_id: string, coding_test_id: string) =>
    call('POST', '/v1/coding-sessions', { key, body: { candidate_id, coding_test_id } });
  const assigned = (key: string, testId: string, candidateId?: string) => c.assign(key, 'coding', testId, candidateId);
  /** A session token bound to one coding session and ORIGIN (allowlisting it first). */
  const token = (key: string, sessionId: string) => c.token(key, 'coding', sessionId);

  async function codingCredits(key: string): Promise<number> {
    const res = await call('GET', '/v1/usage', { key });
    expect(res.status).toBe(200);
    return res.body.credits.coding;
  }

  const row = (id: string) => h.db.kysely.selectFrom('coding_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const ledger = (reservationId: string) => h.db.kysely.selectFrom('credit_ledger').selectAll()
    .where('reservation_id', '=', reservationId).orderBy('created_at').orderBy('id').execute();

  return { call, candidate, assign, assigned, token, codingCredits, row, ledger };
}

function expectError(res: Reply, status: number, code: string, param?: string | null) {
  expect(res.status, res.raw).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

const sec = (ms: number) => Math.floor(ms / 1000);

let h: Harness;
let api: ReturnType<typeof client>;
/** Catalogue tests by slug: a timed one (60 min), another timed one, and the untimed one. */
let TIMED: { id: string; minutes: number };
let OTHER: { id: string; minutes: number };
let UNTIMED: { id: string };

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  api = client(h);
  const tests = await h.db.kysely.selectFrom('coding_tests').selectAll().where('organization_id', 'is', null).execute();
  const bySlug = (slug: string) => tests.find((t) => t.slug === slug)!;
  TIMED = { id: bySlug('core-data-structures-screen').id, minutes: bySlug('core-data-structures-screen').duration_minutes! };
  OTHER = { id: bySlug('algorithms-deep-dive').id, minutes: bySlug('algorithms-deep-dive').duration_minutes! };
  UNTIMED = { id: bySlug('foundations-practice-set').id };
  expect(TIMED.minutes).toBeGreaterThan(20);
  expect(bySlug('foundations-practice-set').duration_minutes).toBeNull();
});
afterAll(() => h.close());

/** A fresh organisation (10 credits of each kind in both environments) and its sandbox secret key. */
async function freshOrg(credits = 10): Promise<{ org: Org; key: string }> {
  const org = await h.createOrg('Coding Co', credits);
  return { org, key: org.keys.secret_test };
}


describe('POST /v1/coding-sessions (assign)', () => {
  it('assigns (201): a variant per slot, no clock running, a 7-day window, one coding credit reserved', async () => {
    const { key } = await freshOrg();
    expect(await api.codingCredits(key)).toBe(10);
    const candidateId = await api.candidate(key);
    const res = await api.assign(key, candidateId, TIMED.id);
    expect(res.status, res.raw).toBe(201);
    const s = res.body;
    expect(s).toMatchObject({
      object: 'coding_session', status: 'assigned', resumed: false, livemode: false, candidate_id: candidateId, coding_test_id: TIMED.id,
      started_at: null, deadline_at: null, ended_at: null, duration_seconds: TIMED.minutes * 60, created_at: sec(h.clock.now()),
    });
    expect(s.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(s.assignment_expires_at).toBe(s.created_at + WINDOW_SECONDS);

    const pools = await slotPools(h.db.kysely, TIMED.id);
    expect(s.problems).toHaveLength(pools.size);
    s.problems.forEach((p: any, i: number) => {
      expect(p.position).toBe(i);
      expect(p.slot_title).toBe(pools.get(i)!.title);
      expect(pools.get(i)!.problems).toContain(p.problem.id);
      expect(p).toMatchObject({ attempts_used: 0, scored: false });
      expect(p.attempts_remaining).toBeGreaterThan(0);
      expect(p.problem.statement.length).toBeGreaterThan(0);
    });
    // The draw is stored: the detail shows the same problems.
    const locked = await h.db.kysely.selectFrom('coding_session_problems').selectAll().where('session_id', '=', s.id).orderBy('position').execute();
    expect(locked.map((p) => p.problem_id)).toEqual(s.problems.map((p: any) => p.problem.id));

    expect(await api.codingCredits(key)).toBe(9);
    const stored = await api.row(s.id);
    expect(stored.credit_reservation_id).not.toBeNull();
    const entries = await api.ledger(stored.credit_reservation_id!);
    expect(entries.map((e) => [e.entry_type, e.amount, e.kind])).toEqual([['reserve', -1, 'coding']]);
  });

  it('draws each slot from its whole pool across sessions', async () => {
    const { key } = await freshOrg(40);
    const pools = await slotPools(h.db.kysely, TIMED.id);
    const seen = new Map<number, Set<string>>();
    for (let i = 0; i < 24; i++) {
      const s = await api.assigned(key, TIMED.id);
      for (const p of s.problems) seen.set(p.position, (seen.get(p.position) ?? new Set()).add(p.problem.id));
    }
    // Every pool has two variants; 24 draws miss one with probability 2^-23.
    for (const [position, pool] of pools) expect([...seen.get(position)!].sort()).toEqual([...pool.problems].sort());
  });

  it('returns the open session of the same candidate and test (200, resumed, no charge), also once started', async () => {
    const { key } = await freshOrg();
    const candidateId = await api.candidate(key);
    const first = await api.assigned(key, TIMED.id, candidateId);
    h.clock.advance(MINUTE);
    const again = await api.assign(key, candidateId, TIMED.id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.id, resumed: true, status: 'assigned', created_at: first.created_at });
    expect(again.body.problems).toEqual(first.problems);
    expect(await api.codingCredits(key)).toBe(9);

    const token = await api.token(key, first.id);
    expect((await api.call('POST', `/v1/coding-sessions/${first.id}/start`, { token })).status).toBe(200);
    const whileStarted = await api.assign(key, candidateId, TIMED.id);
    expect(whileStarted.status).toBe(200);
    expect(whileStarted.body).toMatchObject({ id: first.id, resumed: true, status: 'started' });
    expect(await api.codingCredits(key)).toBe(9);
    expect(await h.db.kysely.selectFrom('coding_sessions').select('id').where('candidate_id', '=', candidateId).execute()).toHaveLength(1);
  });

  it('makes exactly one session and one charge for 5 concurrent assignments of the same candidate and test', async () => {
    const { key } = await freshOrg();
    const candidateId = await api.candidate(key);
    const results = await Promise.all(Array.from({ length: 5 }, () => api.assign(key, candidateId, TIMED.id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.body.resumed === false)).toHaveLength(1);
    expect(await h.db.kysely.selectFrom('coding_sessions').select('id').where('candidate_id', '=', candidateId).execute()).toHaveLength(1);
    expect(await api.codingCredits(key)).toBe(9);
  });

  it('makes a new session (and charge) for another test or another candidate', async () => {
    const { key } = await freshOrg();
    const ada = await api.candidate(key);
    const bob = await api.candidate(key, 'Bob');
    const a = await api.assigned(key, TIMED.id, ada);
    const b = await api.assigned(key, OTHER.id, ada);
    const c = await api.assigned(key, TIMED.id, bob);
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect(b).toMatchObject({ resumed: false, coding_test_id: OTHER.id, candidate_id: ada });
    expect(c).toMatchObject({ resumed: false, coding_test_id: TIMED.id, candidate_id: bob });
    expect(await api.codingCredits(key)).toBe(7);
  });

  it('makes a new session once the previous one is cancelled or timed out', async () => {
    const { key } = await freshOrg();
    const candidateId = await api.candidate(key);
    const first = await api.assigned(key, TIMED.id, candidateId);
    expect((await api.call('POST', `/v1/coding-sessions/${first.id}/cancel`, { key })).status).toBe(200);
    const second = await api.assigned(key, TIMED.id, candidateId);
    expect(second.id).not.toBe(first.id);

    const token = await api.token(key, second.id);
    expect((await api.call('POST', `/v1/coding-sessions/${second.id}/start`, { token })).status).toBe(200);
    h.clock.advance(TIMED.minutes * MINUTE + 1000);
    const third = await api.assign(key, candidateId, TIMED.id);
    expect(third.status).toBe(201);
    expect(third.body.id).not.toBe(second.id);
    expect((await api.row(second.id)).status).toBe('timed_out');
    // 10 - first (returned on cancel) - second (spent) - third.
    expect(await api.codingCredits(key)).toBe(8);
  });

  it('never overspends: concurrent assignments of distinct candidates against one credit make exactly one session', async () => {
    const org = await h.createOrg('One Credit Co', 0);
    await h.services.organizations.grantCredits(org.id, 'coding', 1, [true]);
    const key = org.keys.secret_live;
    const candidates = await Promise.all(['Ada', 'Bob', 'Cy', 'Di'].map((name) => api.candidate(key, name)));
    const results = await Promise.all(candidates.map((id) => api.assign(key, id, TIMED.id)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402, 402]);
    for (const r of results.filter((x) => x.status === 402)) expect(r.body.error.code).toBe('insufficient_credits');
    expect(await h.db.kysely.selectFrom('coding_sessions').select('id').where('organization_id', '=', org.id).execute()).toHaveLength(1);
    expect(await api.codingCredits(key)).toBe(0);
  });

  it('refuses with 402 insufficient_credits when out of live credits, creating nothing', async () => {
    const org = await h.createOrg('Broke Co', 0);
    const key = org.keys.secret_live;
    const candidateId = await api.candidate(key);
    const res = await api.assign(key, candidateId, TIMED.id);
    expectError(res, 402, 'insufficient_credits');
    expect(res.body.error.type).toBe('insufficient_credits');
    expect(await h.db.kysely.selectFrom('coding_sessions').select('id').where('organization_id', '=', org.id).execute()).toHaveLength(0);
    expect(await api.codingCredits(key)).toBe(0);

    await h.services.organizations.grantCredits(org.id, 'coding', 1, [true]);
    expect((await api.assign(key, candidateId, TIMED.id)).status).toBe(201);
    expectError(await api.assign(key, await api.candidate(key), TIMED.id), 402, 'insufficient_credits');
    expect(await api.codingCredits(key)).toBe(0);
  });

  it('answers 404 naming the parameter for an unknown or foreign candidate or test', async () => {
    const { key } = await freshOrg();
    const other = await freshOrg();
    const candidateId = await api.candidate(key);
    expectError(await api.assign(key, newId(), TIMED.id), 404, 'resource_not_found', 'candidate_id');
    expectError(await api.assign(key, candidateId, newId()), 404, 'resource_not_found', 'coding_test_id');
    expectError(await api.assign(key, await api.candidate(other.key), TIMED.id), 404, 'resource_not_found', 'candidate_id');
    // The same organisation's other environment is another tenant too.
    expectError(await api.assign(other.org.keys.secret_live, await api.candidate(other.key), TIMED.id), 404, 'resource_not_found', 'candidate_id');
    expect(await api.codingCredits(key)).toBe(10);
  });

  it('refuses a malformed body with 400', async () => {
    const { key } = await freshOrg();
    const candidateId = await api.candidate(key);
    const post = (body: unknown) => api.call('POST', '/v1/coding-sessions', { key, body });
    expectError(await post({ coding_test_id: TIMED.id }), 400, 'parameter_missing', 'candidate_id');
    expectError(await post({ candidate_id: candidateId }), 400, 'parameter_missing', 'coding_test_id');
    expectError(await post({ candidate_id: 'nope', coding_test_id: TIMED.id }), 400, 'parameter_invalid', 'candidate_id');
    expectError(await post({ candidate_id: candidateId, coding_test_id: TIMED.id, duration: 5 }), 400, 'parameter_unknown', 'duration');
    expect(await api.codingCredits(key)).toBe(10);
  });

  it('after the 7-day window lapses unopened, assigning again makes a new session and returns the lapsed credit', async () => {
    const { key } = await freshOrg();
    const candidateId = await api.candidate(key);
    const first = await api.assigned(key, TIMED.id, candidateId);
    expect(await api.codingCredits(key)).toBe(9);

    h.clock.advance(7 * DAY - 1000); // one second before the window closes: still the same assignment
    const inside = await api.assign(key, candidateId, TIMED.id);
    expect(inside.status).toBe(200);
    expect(inside.body.id).toBe(first.id);

    h.clock.advance(1000);
    const after = await api.assign(key, candidateId, TIMED.id);
    expect(after.status).toBe(201);
    expect(after.body).toMatchObject({ resumed: false, status: 'assigned' });
    expect(after.body.id).not.toBe(first.id);
    expect(await api.codingCredits(key)).toBe(9);
    const lapsed = await api.row(first.id);
    expect(lapsed.status).toBe('assigned'); // unchanged, per the state table
    expect((await api.ledger(lapsed.credit_reservation_id!)).map((e) => e.entry_type)).toEqual(['reserve', 'release']);
  });
});

describe('sandbox quota', () => {
  let q: Harness;
  let qa: ReturnType<typeof client>;
  beforeAll(async () => {
    q = await startHarness({ env: { PREP_SANDBOX_MONTHLY_QUOTA: '1', PREP_RATE_LIMIT: '100000' } });
    qa = client(q);
  });
  afterAll(() => q.close());

  it('refuses the second distinct sandbox assignment with 402 sandbox_quota_exceeded; resuming the first is free', async () => {
    const key = q.org.keys.secret_test;
    const test = await q.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', 'core-data-structures-screen').executeTakeFirstOrThrow();
    const ada = await qa.candidate(key);
    expect((await qa.assign(key, ada, test.id)).status).toBe(201);
    const second = await qa.assign(key, await qa.candidate(key, 'Bob'), test.id);
    expectError(second, 402, 'sandbox_quota_exceeded');
    expect(second.body.error.type).toBe('insufficient_credits');
    expect((await qa.assign(key, ada, test.id)).body).toMatchObject({ resumed: true });
    expect((await qa.call('GET', '/v1/usage', { key })).body.sandbox_quota).toMatchObject({ limit: 1, used: 1, remaining: 0 });
    expect(await qa.codingCredits(key)).toBe(9);
    // Live credits are a separate budget.
    const live = q.org.keys.secret_live;
    expect((await qa.assign(live, await qa.candidate(live), test.id)).status).toBe(201);
  });
});

describe('GET /v1/coding-sessions', () => {
  it('lists newest first with total_count, pages by cursor and filters by status', async () => {
    const { key } = await freshOrg();
    const a = await api.assigned(key, TIMED.id);
    const b = await api.assigned(key, TIMED.id);
    const c = await api.assigned(key, UNTIMED.id);
    await api.call('POST', `/v1/coding-sessions/${a.id}/cancel`, { key });
    const token = await api.token(key, b.id);
    await api.call('POST', `/v1/coding-sessions/${b.id}/start`, { token });

    const all = await api.call('GET', '/v1/coding-sessions', { key });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null, total_count: 3 });
    expect(all.body.data.map((s: any) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(all.body.data.map((s: any) => s.status)).toEqual(['assigned', 'started', 'cancelled']);
    expect(all.body.data[0].problems).toBeUndefined();

    const first = await api.call('GET', '/v1/coding-sessions?limit=2', { key });
    expect(first.body).toMatchObject({ has_more: true, next_cursor: b.id, total_count: 3 });
    expect(first.body.data.map((s: any) => s.id)).toEqual([c.id, b.id]);
    const second = await api.call('GET', `/v1/coding-sessions?limit=2&starting_after=${first.body.next_cursor}`, { key });
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null, total_count: 3 });
    expect(second.body.data.map((s: any) => s.id)).toEqual([a.id]);

    for (const [status, ids] of [['assigned', [c.id]], ['started', [b.id]], ['cancelled', [a.id]], ['timed_out', []]] as const) {
      const res = await api.call('GET', `/v1/coding-sessions?status=${status}`, { key });
      expect(res.status).toBe(200);
      expect(res.body.total_count).toBe(ids.length);
      expect(res.body.data.map((s: any) => s.id)).toEqual(ids);
    }
    const paged = await api.call('GET', '/v1/coding-sessions?status=assigned&limit=1', { key });
    expect(paged.body).toMatchObject({ total_count: 1, has_more: false });

    expectError(await api.call('GET', '/v1/coding-sessions?status=finished', { key }), 400, 'parameter_invalid', 'status');
    expectError(await api.call('GET', '/v1/coding-sessions?starting_after=zzz', { key }), 400, 'invalid_cursor', 'starting_after');

    // Tenancy: another organisation and the other environment see none of these.
    const other = await freshOrg();
    expect((await api.call('GET', '/v1/coding-sessions', { key: other.key })).body).toMatchObject({ data: [], total_count: 0 });
  });
});

describe('GET /v1/coding-sessions/{id}', () => {
  it('gives the locked problems with attempts used, attempts remaining and whether scored', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    const res = await api.call('GET', `/v1/coding-sessions/${s.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.resumed).toBeUndefined();
    const { resumed: _, ...withoutResumed } = s;
    expect(res.body).toEqual(withoutResumed);
    for (const p of res.body.problems) expect(p).toMatchObject({ attempts_used: 0, attempts_remaining: expect.any(Number), scored: false });
    expect(res.body.problems.every((p: any) => p.attempts_remaining > 0)).toBe(true);
  });

  it('answers 404 for another organisation, the other environment or an unknown id', async () => {
    const { org, key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    const other = await freshOrg();
    for (const k of [other.key, other.org.keys.secret_live, org.keys.secret_live]) {
      expectError(await api.call('GET', `/v1/coding-sessions/${s.id}`, { key: k }), 404, 'resource_not_found');
      expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/cancel`, { key: k }), 404, 'resource_not_found');
    }
    expectError(await api.call('GET', `/v1/coding-sessions/${newId()}`, { key }), 404, 'resource_not_found');
    expect((await api.row(s.id)).status).toBe('assigned');
  });
});

describe('POST /v1/coding-sessions/{id}/cancel', () => {
  it('cancels an assignment and returns its credit; a repeat answers 200 and changes nothing', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    expect(await api.codingCredits(key)).toBe(9);
    h.clock.advance(5000);
    const res = await api.call('POST', `/v1/coding-sessions/${s.id}/cancel`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: s.id, status: 'cancelled', ended_at: sec(h.clock.now()), started_at: null });
    expect(await api.codingCredits(key)).toBe(10);
    const before = await api.row(s.id);

    h.clock.advance(5000);
    const again = await api.call('POST', `/v1/coding-sessions/${s.id}/cancel`, { key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    expect(await api.row(s.id)).toEqual(before);
    expect(await api.codingCredits(key)).toBe(10);
    expect((await api.ledger(before.credit_reservation_id!)).map((e) => e.entry_type)).toEqual(['reserve', 'release']);
  });

  it('refuses after start with 400 session_already_started, changing nothing', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    const token = await api.token(key, s.id);
    expect((await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token })).status).toBe(200);
    const before = await api.row(s.id);
    expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/cancel`, { key }), 400, 'session_already_started');
    expect(await api.row(s.id)).toEqual(before);
    expect(await api.codingCredits(key)).toBe(9);
    expect((await api.ledger(before.credit_reservation_id!)).map((e) => e.entry_type)).toEqual(['reserve', 'commit']);
  });
});

describe('POST /v1/coding-sessions/{id}/start', () => {
  it('starts once: started_at stamped, deadline = started_at + duration, reserved credit committed; a repeat returns the same', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    h.clock.advance(3 * MINUTE);
    const token = await api.token(key, s.id);
    const res = await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token });
    expect(res.status, res.raw).toBe(200);
    const startedAt = sec(h.clock.now());
    expect(res.body).toMatchObject({ id: s.id, status: 'started', started_at: startedAt, deadline_at: startedAt + TIMED.minutes * 60, ended_at: null });
    expect(res.body.problems.map((p: any) => p.problem.id)).toEqual(s.problems.map((p: any) => p.problem.id));

    const stored = await api.row(s.id);
    expect(stored.started_at).toBe(h.clock.now());
    const entries = await api.ledger(stored.credit_reservation_id!);
    expect(entries.map((e) => [e.entry_type, e.amount])).toEqual([['reserve', -1], ['commit', 0]]);
    expect(await api.codingCredits(key)).toBe(9);

    h.clock.advance(2 * MINUTE);
    const again = await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'started', started_at: startedAt, deadline_at: startedAt + TIMED.minutes * 60 });
    expect(await api.row(s.id)).toEqual(stored);
    expect(await api.ledger(stored.credit_reservation_id!)).toHaveLength(2);
  });

  it('starts an untimed test with no deadline', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, UNTIMED.id);
    expect(s.duration_seconds).toBeNull();
    const res = await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token: await api.token(key, s.id) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'started', started_at: sec(h.clock.now()), deadline_at: null });
  });

  it('needs a session token bound to this session', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    const t = await api.assigned(key, TIMED.id);
    expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { key }), 401, 'invalid_session_token');
    expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token: await api.token(key, t.id) }), 403, 'session_scope_mismatch');
    expect((await api.row(s.id)).status).toBe('assigned');
  });

  it('refuses a cancelled session with 400 session_cancelled', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    const token = await api.token(key, s.id);
    await api.call('POST', `/v1/coding-sessions/${s.id}/cancel`, { key });
    expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token }), 400, 'session_cancelled');
    const stored = await api.row(s.id);
    expect(stored).toMatchObject({ status: 'cancelled', started_at: null });
    expect((await api.ledger(stored.credit_reservation_id!)).map((e) => e.entry_type)).toEqual(['reserve', 'release']);
  });

  it('refuses a lapsed assignment with 400 assignment_expired (start, launch-link mint and exchange), leaving it unchanged', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    // A link minted near the end of the window expires with the window, whatever ttl was asked for.
    h.clock.advance(7 * DAY - 5 * MINUTE);
    const link = await api.call('POST', `/v1/coding-sessions/${s.id}/launch-link`, { key, body: { ttl_seconds: 604_800 } });
    expect(link.status, link.raw).toBe(201);
    expect(link.body.expires_at).toBe(s.assignment_expires_at);
    const token = await api.token(key, s.id);

    h.clock.advance(6 * MINUTE);
    expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token }), 400, 'assignment_expired');
    expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/launch-link`, { key, body: {} }), 400, 'assignment_expired');
    // The capped link has expired with the window; were it still valid, the lapse is what refuses it.
    await h.db.kysely.updateTable('launch_links').set({ expires_at: h.clock.now() + DAY }).where('subject_id', '=', s.id).execute();
    const launchToken = new URL(link.body.url).hash.replace('#token=', '');
    expectError(await api.call('POST', '/v1/launch/exchange', { body: { token: launchToken } }), 400, 'assignment_expired');

    const stored = await api.row(s.id);
    expect(stored).toMatchObject({ status: 'assigned', started_at: null });
    expect(await api.ledger(stored.credit_reservation_id!)).toHaveLength(1);
  });

  it('refuses a timed-out session with 400 session_already_finalized', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    expect((await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token: await api.token(key, s.id) })).status).toBe(200);
    h.clock.advance((TIMED.minutes - 5) * MINUTE);
    const token = await api.token(key, s.id); // tokens live 15 minutes: a fresh one from before the deadline
    h.clock.advance(6 * MINUTE);
    expectError(await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token }), 400, 'session_already_finalized');
    // The refusal does not roll back the timeout it found: the row itself reads timed_out before any other read.
    expect(await api.row(s.id)).toMatchObject({ status: 'timed_out' });
    expect((await api.call('GET', `/v1/coding-sessions/${s.id}`, { key })).body).toMatchObject({ status: 'timed_out' });
  });
});

describe('GET /v1/coding-sessions/{id}/timer', () => {
  it('counts down by the server clock once started, and reads timed_out with 0 left when time runs out', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, TIMED.id);
    const duration = TIMED.minutes * 60;
    let token = await api.token(key, s.id);
    const timer = () => api.call('GET', `/v1/coding-sessions/${s.id}/timer`, { token });

    h.clock.advance(10 * MINUTE); // the clock does not run before start
    const before = await timer();
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ object: 'coding_timer', timed: true, remaining_seconds: duration, status: 'assigned', deadline_at: null, server_time: sec(h.clock.now()) });

    token = await api.token(key, s.id); // the first one has 5 minutes left
    await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token });
    h.clock.advance(90_000);
    expect((await timer()).body).toMatchObject({ timed: true, status: 'started', remaining_seconds: duration - 90 });
    h.clock.advance(10 * MINUTE + 500);
    expect((await timer()).body.remaining_seconds).toBe(duration - 90 - 600); // partial seconds round up

    h.clock.advance((TIMED.minutes - 15) * MINUTE);
    token = await api.token(key, s.id);
    expect((await timer()).body.remaining_seconds).toBeGreaterThan(0);
    h.clock.advance(5 * MINUTE);
    const out = await timer();
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ timed: true, status: 'timed_out', remaining_seconds: 0 });
    const stored = await api.row(s.id);
    expect(stored).toMatchObject({ status: 'timed_out', ended_at: stored.deadline_at });
  });

  it('reports timed: false for an untimed test, before and long after start', async () => {
    const { key } = await freshOrg();
    const s = await api.assigned(key, UNTIMED.id);
    const token = await api.token(key, s.id);
    expect((await api.call('GET', `/v1/coding-sessions/${s.id}/timer`, { token })).body).toMatchObject({ timed: false, status: 'assigned', deadline_at: null });
    await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token });
    h.clock.advance(10 * MINUTE);
    const fresh = await api.token(key, s.id);
    h.clock.advance(5 * 60 * MINUTE);
    await h.modules.coding.expireDue();
    expect((await api.row(s.id)).status).toBe('started');
    const later = await api.call('GET', `/v1/coding-sessions/${s.id}/timer`, { token: fresh });
    expect(later.status).toBe(401); // that token expired meanwhile: a fresh one reads it
    const res = await api.call('GET', `/v1/coding-sessions/${s.id}/timer`, { token: await api.token(key, s.id) });
    expect(res.body).toMatchObject({ timed: false, status: 'started', deadline_at: null });
  });
});

describe('timing out without anyone calling', () => {
  it('the scheduled sweep ends a started session at its deadline; GET then reads timed_out', async () => {
    const { key } = await freshOrg();
    const due = await api.assigned(key, TIMED.id);
    await api.call('POST', `/v1/coding-sessions/${due.id}/start`, { token: await api.token(key, due.id) });
    h.clock.advance(30 * MINUTE);
    const later = await api.assigned(key, TIMED.id); // started later: not yet due
    await api.call('POST', `/v1/coding-sessions/${later.id}/start`, { token: await api.token(key, later.id) });
    const waiting = await api.assigned(key, TIMED.id); // never started
    h.clock.advance((TIMED.minutes - 30) * MINUTE + 1000);

    expect(await h.modules.coding.expireDue()).toBeGreaterThanOrEqual(1);
    // Read the rows directly first: a GET would also end a due session on read.
    const swept = await api.row(due.id);
    expect(swept.status).toBe('timed_out');
    expect(swept.ended_at).toBe(swept.deadline_at);
    expect((await api.row(later.id)).status).toBe('started');
    expect((await api.row(waiting.id)).status).toBe('assigned');

    const res = await api.call('GET', `/v1/coding-sessions/${due.id}`, { key });
    expect(res.body).toMatchObject({ status: 'timed_out', ended_at: res.body.deadline_at });
    expect(res.body.deadline_at).toBe(res.body.started_at + TIMED.minutes * 60);
    expect(await h.modules.coding.expireDue()).toBe(0);
  });

  it('`prep serve` runs the sweep by itself', async () => {
    const candidateId = await api.candidate(h.org.keys.secret_test);
    const now = Date.now();
    const id = newId();
    await h.db.kysely.insertInto('coding_sessions').values({
      id, organization_id: h.org.id, livemode: 0, candidate_id: candidateId, test_id: TIMED.id, status: 'started',
      duration_seconds: 60, credit_reservation_id: null, created_at: now - 10 * MINUTE, updated_at: now - 2 * MINUTE,
      started_at: now - 2 * MINUTE, deadline_at: now - MINUTE, ended_at: null,
    }).execute();

    const server = await startServe(h.env, []);
    try {
      let status = 'started';
      for (const until = Date.now() + 15_000; status !== 'timed_out' && Date.now() < until;) {
        await new Promise((r) => setTimeout(r, 250));
        status = (await api.row(id)).status; // not through the API, which would also end it on read
      }
      expect(status, server.output()).toBe('timed_out');
      const res = await fetch(`${server.url}/v1/coding-sessions/${id}`, { headers: bearer(h.org.keys.secret_test) });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'timed_out', ended_at: sec(now - MINUTE) });
    } finally {
      await server.stop();
    }
  });
});

describe('POST /v1/coding-sessions/{id}/events', () => {
  const events = (n: number, type = 'tab_hidden') => ({ events: Array.from({ length: n }, () => ({ type })) });
  const stored = (id: string) => h.db.kysely.selectFrom('proctoring_events').selectAll()
    .where('subject_kind', '=', 'coding').where('subject_id', '=', id).orderBy('id').execute();

  async function started(testId = TIMED.id) {
    const { org, key } = await freshOrg();
    const s = await api.assigned(key, testId);
    const token = await api.token(key, s.id);
    expect((await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token })).status).toBe(200);
    const post = (body: unknown) => api.call('POST', `/v1/coding-sessions/${s.id}/events`, { token, body });
    return { org, key, s, token, post };
  }

  it('stores the signals with their meta (202, recorded)', async () => {
    const { org, s, post } = await started();
    const meta = { visible_ms: 1200, nested: { reason: 'alt-tab', list: [1, 'two'] } };
    const res = await post({ events: [{ type: 'tab_hidden', meta }, { type: 'paste' }, { type: 'focus.lost:window-2' }] });
    expect(res.status, res.raw).toBe(202);
    expect(res.body).toEqual({ object: 'proctoring_events', recorded: 3 });
    const rows = await stored(s.id);
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.type).sort()).toEqual(['focus.lost:window-2', 'paste', 'tab_hidden']);
    const withMeta = rows.find((r) => r.type === 'tab_hidden')!;
    expect(JSON.parse(withMeta.meta!)).toEqual(meta);
    expect(rows.find((r) => r.type === 'paste')!.meta).toBeNull();
    expect(rows.every((r) => r.organization_id === org.id && r.livemode === 0 && r.created_at === h.clock.now())).toBe(true);
  });

  it('records nothing once the session has timed out or completed', async () => {
    const { key, s } = await started();
    h.clock.advance((TIMED.minutes - 5) * MINUTE);
    const token = await api.token(key, s.id);
    h.clock.advance(6 * MINUTE);
    const late = await api.call('POST', `/v1/coding-sessions/${s.id}/events`, { token, body: events(3) });
    expect(late.status).toBe(202);
    expect(late.body.recorded).toBe(0);
    expect(await stored(s.id)).toHaveLength(0);
    expect((await api.row(s.id)).status).toBe('timed_out');

    // Completion arrives with the judge; a completed row stands in for it here.
    const other = await started(UNTIMED.id);
    expect((await other.post(events(1))).body.recorded).toBe(1);
    await h.db.kysely.updateTable('coding_sessions').set({ status: 'completed', ended_at: h.clock.now() }).where('id', '=', other.s.id).execute();
    expect((await other.post(events(2))).body).toEqual({ object: 'proctoring_events', recorded: 0 });
    expect(await stored(other.s.id)).toHaveLength(1);
  });

  it('keeps at most 500 per session, then records 0', async () => {
    const { s, post } = await started(UNTIMED.id);
    for (let i = 0; i < 5; i++) {
      const res = await post(events(100));
      expect(res.status).toBe(202);
      expect(res.body.recorded).toBe(100);
    }
    const over = await post(events(1));
    expect(over.status).toBe(202);
    expect(over.body.recorded).toBe(0);
    expect(await stored(s.id)).toHaveLength(500);
  });

  it('keeps only what fits when a batch crosses the cap', async () => {
    const { s, post } = await started(UNTIMED.id);
    for (let i = 0; i < 4; i++) expect((await post(events(100))).body.recorded).toBe(100);
    expect((await post(events(60))).body.recorded).toBe(60);
    expect((await post(events(100))).body.recorded).toBe(40);
    expect(await stored(s.id)).toHaveLength(500);
  });

  it('refuses oversized meta, more than 100 events, an empty batch and bad types with 400, storing nothing', async () => {
    const { s, post } = await started();
    const big = { blob: 'x'.repeat(2100) };
    const res = await post({ events: [{ type: 'ok' }, { type: 'paste', meta: big }] });
    expectError(res, 400, 'parameter_invalid', 'events[1].meta');
    // Exactly at the limit is fine: {"blob":"…"} is 11 bytes of wrapping.
    expect((await post({ events: [{ type: 'paste', meta: { blob: 'x'.repeat(2048 - 11) } }] })).body.recorded).toBe(1);
    expectError(await post({ events: [{ type: 'paste', meta: { blob: 'x'.repeat(2048 - 10) } }] }), 400, 'parameter_invalid');

    expect((await post(events(101))).status).toBe(400);
    expect((await post({ events: [] })).status).toBe(400);
    for (const type of ['tab hidden', 'paste!', '<script>', '', 'x'.repeat(65)]) {
      const bad = await post({ events: [{ type }] });
      expect(bad.status, type).toBe(400);
      expect(bad.body.error.type).toBe('invalid_request_error');
    }
    expect((await post({ events: [{ type: 'paste', extra: 1 }] })).status).toBe(400);
    expect(await stored(s.id)).toHaveLength(1);
  });
});

describe('candidate erasure', () => {
  it('keeps the coding session without its candidate and deletes its proctoring events', async () => {
    const { key } = await freshOrg();
    const ada = await api.candidate(key);
    const bob = await api.candidate(key, 'Bob');
    const mine = await api.assigned(key, TIMED.id, ada);
    const theirs = await api.assigned(key, TIMED.id, bob);
    for (const s of [mine, theirs]) {
      const token = await api.token(key, s.id);
      await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token });
      expect((await api.call('POST', `/v1/coding-sessions/${s.id}/events`, { token, body: { events: [{ type: 'paste', meta: { who: 'x' } }] } })).body.recorded).toBe(1);
    }
    const count = async (id: string) => (await h.db.kysely.selectFrom('proctoring_events').select('id').where('subject_id', '=', id).execute()).length;

    const del = await api.call('DELETE', `/v1/candidates/${ada}`, { key });
    expect(del.status, del.raw).toBe(200);
    const res = await api.call('GET', `/v1/coding-sessions/${mine.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: mine.id, candidate_id: null, status: 'timed_out' }); // closed: nothing more is added
    expect(await count(mine.id)).toBe(0);
    // Someone else's session is untouched.
    expect((await api.row(theirs.id)).candidate_id).toBe(bob);
    expect(await count(theirs.id)).toBe(1);
  });
});

describe('candidate erasure: submissions', () => {
  it('deletes the source of the erased candidate\'s submissions (the docs promise it), keeping the verdicts', async () => {
    const { key } = await freshOrg();
    const ada = await api.candidate(key);
    const bob = await api.candidate(key, 'Bob');
    const mine = await api.assigned(key, TIMED.id, ada);
    const theirs = await api.assigned(key, TIMED.id, bob);
    const submit = async (sessionId: string, source: string) => {
      const problem = await h.db.kysely.selectFrom('coding_session_problems').select('problem_id').where('session_id', '=', sessionId).executeTakeFirstOrThrow();
      const id = newId();
      await h.db.kysely.insertInto('coding_submissions').values({
        id, organization_id: (await api.row(sessionId)).organization_id, livemode: 0, session_id: sessionId, problem_id: problem.problem_id,
        language: 'python', source, status: 'judged', verdict: 'ACCEPTED', results: null, cases_passed: 3, cases_total: 3, hidden_passed: 2,
        hidden_total: 2, large_time_ms: null, max_time_ms: 5, max_memory_kb: 100, error: null, created_at: h.clock.now(), updated_at: h.clock.now(), judged_at: h.clock.now(),
      }).execute();
      return id;
    };
    const adas = await submit(mine.id, '# Ada Lovelace, ada@example.com\nprint(42)');
    const bobs = await submit(theirs.id, '# Bob\nprint(42)');
    expect((await api.call('DELETE', `/v1/candidates/${ada}`, { key })).status).toBe(200);
    const stored = (id: string) => h.db.kysely.selectFrom('coding_submissions').select(['source', 'verdict', 'hidden_passed']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(await stored(adas)).toEqual({ source: '', verdict: 'ACCEPTED', hidden_passed: 2 });
    expect((await stored(bobs)).source).toBe('# Bob\nprint(42)');
  });
});

describe('GET /v1/analytics/activity', () => {
  it('counts coding sessions per status, per environment', async () => {
    const { org, key } = await freshOrg();
    const timedOut = await api.assigned(key, TIMED.id);
    await api.call('POST', `/v1/coding-sessions/${timedOut.id}/start`, { token: await api.token(key, timedOut.id) });
    h.clock.advance(TIMED.minutes * MINUTE + 1000);
    await h.modules.coding.expireDue();
    const started = await api.assigned(key, TIMED.id);
    await api.call('POST', `/v1/coding-sessions/${started.id}/start`, { token: await api.token(key, started.id) });
    const cancelled = await api.assigned(key, OTHER.id);
    await api.call('POST', `/v1/coding-sessions/${cancelled.id}/cancel`, { key });
    await api.assigned(key, TIMED.id);
    await api.assigned(key, UNTIMED.id);
    const live = org.keys.secret_live;
    await api.assigned(live, OTHER.id);

    const res = await api.call('GET', '/v1/analytics/activity', { key });
    expect(res.status).toBe(200);
    const coding = res.body.data.find((d: any) => d.type === 'coding');
    expect(coding).toEqual({
      type: 'coding', total: 5,
      stages: { assigned: 2, started: 1, in_progress: 0, completed: 0, timed_out: 1, cancelled: 1 },
    });
    const liveCoding = (await api.call('GET', '/v1/analytics/activity', { key: live })).body.data.find((d: any) => d.type === 'coding');
    expect(liveCoding).toEqual({
      type: 'coding', total: 1,
      stages: { assigned: 1, started: 0, in_progress: 0, completed: 0, timed_out: 0, cancelled: 0 },
    });
  });

  it('counts a session whose time is up as timed_out before the sweep writes it, as a read of it shows it', async () => {
    const { key } = await freshOrg();
    const coding = async () => (await api.call('GET', '/v1/analytics/activity', { key })).body.data.find((d: any) => d.type === 'coding').stages;
    const started = async (testId: string) => {
      const s = await api.assigned(key, testId);
      const token = await api.token(key, s.id);
      expect((await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token })).status).toBe(200);
      return { id: s.id, token };
    };
    const due = await started(TIMED.id);
    const finalized = await started(TIMED.id);
    expect((await api.call('POST', `/v1/coding-sessions/${finalized.id}/finalize`, { token: finalized.token })).status).toBe(202);
    const later = await started(OTHER.id);
    expect(OTHER.minutes).toBeGreaterThan(TIMED.minutes);
    const untimed = await started(UNTIMED.id);
    const startedAt = (await api.row(untimed.id)).started_at!;

    h.clock.advance(TIMED.minutes * MINUTE); // exactly at TIMED's deadline: a read times it out
    expect(await coding()).toMatchObject({ started: 2, in_progress: 1, timed_out: 1 });
    h.clock.set(startedAt + 7 * DAY); // the untimed limit, and every deadline past
    expect(await coding()).toMatchObject({ started: 0, in_progress: 1, timed_out: 3 });
    // Nothing was written: the stored rows still wait for the sweep; a read shows what was counted.
    expect((await api.row(due.id)).status).toBe('started');
    for (const s of [due, later, untimed]) expect((await api.call('GET', `/v1/coding-sessions/${s.id}`, { key })).body.status).toBe('timed_out');
    expect((await api.call('GET', `/v1/coding-sessions/${finalized.id}`, { key })).body.status).toBe('in_progress');
    expect(await coding()).toMatchObject({ started: 0, in_progress: 1, timed_out: 3 });
  });
});

describe('the coding module switch', () => {
  it('refuses every coding-session route with 403 module_not_enabled while the module is off', async () => {
    const { org, key } = await freshOrg();
    const candidateId = await api.candidate(key);
    const s = await api.assigned(key, TIMED.id, candidateId);
    const token = await api.token(key, s.id);
    await h.services.organizations.setModule(org.id, 'coding', false);

    const refused: Array<Promise<Reply>> = [
      api.call('GET', '/v1/coding-sessions', { key }),
      api.assign(key, candidateId, TIMED.id),
      api.call('GET', `/v1/coding-sessions/${s.id}`, { key }),
      api.call('POST', `/v1/coding-sessions/${s.id}/cancel`, { key }),
      api.call('POST', `/v1/coding-sessions/${s.id}/launch-link`, { key, body: {} }),
      api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token }),
      api.call('GET', `/v1/coding-sessions/${s.id}/timer`, { token }),
      api.call('POST', `/v1/coding-sessions/${s.id}/events`, { token, body: { events: [{ type: 'paste' }] } }),
    ];
    for (const res of await Promise.all(refused)) expectError(res, 403, 'module_not_enabled');
    expect(await api.row(s.id)).toMatchObject({ status: 'assigned' });
    expect(await api.codingCredits(key)).toBe(9);

    await h.services.organizations.setModule(org.id, 'coding', true);
    expect((await api.call('POST', `/v1/coding-sessions/${s.id}/start`, { token })).status).toBe(200);
  });
});

describe('secrets of the problems', () => {
  it('no response about a session leaks hidden cases, comparators or expected complexities', async () => {
    const { key } = await freshOrg();
    const candidateId = await api.candidate(key);
    const s = await api.assign(key, candidateId, TIMED.id);
    const token = await api.token(key, s.body.id);
    const id = s.body.id;
    const bodies: Reply[] = [
      await api.call('GET', '/v1/coding-tests?limit=100', { key }),
      await api.call('GET', `/v1/coding-tests/${TIMED.id}`, { key }),
      s,
      await api.assign(key, candidateId, TIMED.id),
      await api.call('GET', `/v1/coding-sessions/${id}`, { key }),
      await api.call('GET', '/v1/coding-sessions', { key }),
      await api.call('GET', `/v1/coding-sessions/${id}/timer`, { token }),
      await api.call('GET', '/v1/session', { token }),
      await api.call('POST', `/v1/coding-sessions/${id}/start`, { token }),
      await api.call('POST', `/v1/coding-sessions/${id}/start`, { token }),
      await api.call('GET', `/v1/coding-sessions/${id}/timer`, { token }),
    ];
    for (const b of bodies) expect(b.status, b.raw).toBeLessThan(300);

    // The problems this session drew, with their secrets as stored.
    const problemIds = s.body.problems.map((p: any) => p.problem.id);
    const problems = await h.db.kysely.selectFrom('coding_problems').selectAll().where('id', 'in', problemIds).execute();
    const needles = ['hidden_cases', 'expected_complexity', 'comparator'];
    for (const p of problems) {
      const cases = JSON.parse(p.hidden_cases) as Array<{ input: string }>;
      const publicText = JSON.stringify([p.statement, p.examples, p.input_format, p.output_format, p.constraints]);
      const distinctive = cases.map((c) => JSON.stringify(c.input).slice(1, -1)).filter((t) => t.length >= 12 && !publicText.includes(t));
      expect(distinctive.length, p.slug).toBeGreaterThan(0);
      needles.push(...distinctive);
    }
    for (const b of bodies) for (const needle of needles) expect(b.raw.includes(needle), `${b.raw.slice(0, 80)} leaks ${needle.slice(0, 40)}`).toBe(false);
  });
});
