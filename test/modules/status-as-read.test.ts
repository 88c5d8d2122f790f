import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testClient } from '../helpers/client.js';
import { newId } from '../../src/platform/ids.js';
import { createLifecycle, statusAsReadSql, UNTIMED_SESSION_LIMIT_MS, type AssessmentStatus } from '../../src/modules/assessments/lifecycle.js';
import { createEnding } from '../../src/modules/interviews/ending.js';
import { interviewStatusAsReadSql } from '../../src/modules/interviews/states.js';
import { INTERVIEW_STATUSES, PAUSE_LIMIT_MS } from '../../src/modules/interviews/states.js';
import type { InterviewStatus } from '../../src/db/schema.js';

/**
 * The status a read of a session shows is decided twice: in TypeScript, as a read settles the row (the lifecycle's
 * timeout, the interview's `settle`), and in SQL for counts (`statusAsReadSql`, `interviewStatusAsReadSql`). Rows
 * generated around every boundary those rules have are inserted at once and read back through the SQL expression;
 * each must show what the TypeScript read makes of it, on each engine.
 */
let h: Harness;
let orgId: string;
let codingRow: Record<string, unknown>;
let interviewRow: Record<string, unknown>;

beforeAll(async () => {
  h = await startHarness();
  const c = testClient(h);
  const org = await h.createOrg('Status as read', 100);
  orgId = org.id;
  const key = org.keys.secret_test;
  const test = (await c.ok('GET', '/v1/coding-tests', { key })).data[0];
  const session = await c.assign(key, 'coding', test.id);
  codingRow = await h.db.kysely.selectFrom('coding_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow() as Record<string, unknown>;
  const candidate = await c.candidate(key);
  const made = await c.ok('POST', '/v1/interviews', { key, body: { candidate_id: candidate, round_type: 'behavioral', difficulty: 3, role: 'Engineer' } });
  interviewRow = await h.db.kysely.selectFrom('interviews').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow() as Record<string, unknown>;
  await h.db.kysely.deleteFrom('coding_sessions').where('organization_id', '=', orgId).execute();
  await h.db.kysely.deleteFrom('interviews').where('organization_id', '=', orgId).execute();
});
afterAll(() => h?.close());

const NOW = 1_900_000_000_000;
const RUNS = 300;
/** An offset around a boundary: on it, a millisecond either side, or well either side. */
const near = fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -3_600_000, max: 3_600_000 }));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 3 });

/** In-memory stand-ins for what a read's settling touches (the row's store, its lock, the queue, the events). */
function store<Row extends { id: string; status: string }>(rows: Row[]) {
  const byId = new Map(rows.map((r) => [r.id, { ...r }]));
  const repo = {
    get: async (_tx: unknown, _tenant: unknown, id: string) => byId.get(id),
    byId: async (_tx: unknown, id: string) => byId.get(id),
    locked: async (_tx: unknown, id: string) => byId.get(id),
    lock: async () => undefined,
    transition: async (_tx: unknown, id: string, from: string[], changes: Partial<Row>) => {
      const row = byId.get(id)!;
      if (!from.includes(row.status)) return false;
      byId.set(id, { ...row, ...changes });
      return true;
    },
  };
  const db = { transaction: () => ({ execute: <T>(fn: (tx: unknown) => Promise<T>) => fn(db) }) };
  return { repo, db, queue: { enqueue: async () => undefined }, clock: { now: () => NOW } };
}

describe('statusAsReadSql', () => {
  const sessionArb = fc.record({
    status: fc.constantFrom<AssessmentStatus>('assigned', 'started', 'in_progress', 'completed', 'timed_out', 'cancelled'),
    started: maybe(near),
    deadline: maybe(near),
    finalized: maybe(fc.integer({ min: 0, max: 3_600_000 })),
  });

  for (const finalizable of [true, false]) {
    it(`shows what a read of a session shows (${finalizable ? 'a kind that finalizes' : 'no finalize'})`, async () => {
      const drawn = fc.sample(sessionArb, { numRuns: RUNS, seed: finalizable ? 16 : 61 });
      const rows = drawn.map((d) => ({
        ...codingRow, id: newId(), status: d.status, created_at: NOW - 8 * 86_400_000, updated_at: NOW - 8 * 86_400_000,
        // Untimed, the limit after the start is the boundary; timed, the deadline.
        started_at: d.started === null ? null : NOW - UNTIMED_SESSION_LIMIT_MS + d.started,
        deadline_at: d.deadline === null ? null : NOW + d.deadline,
        finalize_requested_at: finalizable && d.finalized !== null ? NOW - d.finalized : null,
      }));
      await h.db.kysely.deleteFrom('coding_sessions').where('organization_id', '=', orgId).execute();
      await h.db.kysely.insertInto('coding_sessions').values(rows as never).execute();
      const got = await h.db.kysely.selectFrom('coding_sessions').select(['id', statusAsReadSql(NOW, finalizable).as('read')])
        .where('organization_id', '=', orgId).execute();
      const sql = new Map(got.map((r) => [r.id, r.read]));

      const stubs = store(rows as never as Array<{ id: string; status: string }>);
      const lifecycle = createLifecycle({ ...stubs, credits: {}, candidateAccess: {} } as never, { kind: 'coding', noun: 'coding session', repo: stubs.repo } as never);
      const tenant = { organizationId: orgId, livemode: false };
      const mismatches = [];
      for (const row of rows) {
        const read = (await lifecycle.settled(tenant, row.id)).status;
        if (sql.get(row.id) !== read) mismatches.push({ row, ts: read, sql: sql.get(row.id) });
      }
      expect(got.length).toBe(RUNS);
      expect(mismatches.slice(0, 3), `${mismatches.length} of ${RUNS} disagree`).toEqual([]);
    });
  }
});

describe('interviewStatusAsReadSql', () => {
  it('shows what a read of an interview shows', async () => {
    const interviewArb = fc.record({
      status: fc.constantFrom<InterviewStatus>(...INTERVIEW_STATUSES),
      duration: fc.constantFrom(300, 1800, 3600, 7200),
      joinBy: near,
      joined: maybe(near),
      deadline: maybe(near),
      paused: maybe(near),
    });
    const drawn = fc.sample(interviewArb, { numRuns: RUNS, seed: 16 });
    const rows = drawn.map((d) => ({
      ...interviewRow, id: newId(), status: d.status, duration_seconds: d.duration,
      join_by: NOW + d.joinBy,
      // The overall limit after the first join, the clock's deadline, a pause's limit: each around now.
      joined_at: d.joined === null ? null : NOW - 2 * d.duration * 1000 - PAUSE_LIMIT_MS + d.joined,
      deadline_at: d.deadline === null ? null : NOW + d.deadline,
      paused_at: d.paused === null ? null : NOW - PAUSE_LIMIT_MS + d.paused,
      running_since: null, elapsed_ms: 0,
    }));
    await h.db.kysely.insertInto('interviews').values(rows as never).execute();
    const got = await h.db.kysely.selectFrom('interviews').select(['id', interviewStatusAsReadSql(NOW).as('read')])
      .where('organization_id', '=', orgId).execute();
    const sql = new Map(got.map((r) => [r.id, r.read]));

    const stubs = store(rows as never as Array<{ id: string; status: string }>);
    const ending = createEnding({ clock: stubs.clock as never, repo: stubs.repo as never, queue: stubs.queue as never, emit: (async () => '') as never });
    const mismatches = [];
    for (const row of rows) {
      const read = (await ending.settle(stubs.db as never, row as never)).status;
      if (sql.get(row.id) !== read) mismatches.push({ row, ts: read, sql: sql.get(row.id) });
    }
    expect(got.length).toBe(RUNS);
    expect(mismatches.slice(0, 3), `${mismatches.length} of ${RUNS} disagree`).toEqual([]);
  });
});

describe('session lists', () => {
  it('list, its status filter and total_count show a session past its deadline as a read of it does (timed_out)', async () => {
    const c = testClient(h);
    const key = (await h.createOrg('Lists as read', 10)).keys.secret_test;
    const test = (await c.ok('GET', '/v1/coding-tests', { key })).data.find((t: { duration_minutes: number | null }) => t.duration_minutes !== null);
    const session = await c.assign(key, 'coding', test.id);
    const token = await c.token(key, 'coding', session.id);
    await c.ok('POST', `/v1/coding-sessions/${session.id}/start`, { token }, 200);
    h.clock.advance(test.duration_minutes * 60_000 + 1000); // past the deadline; the sweep has not come by

    const listed = await c.ok('GET', '/v1/coding-sessions', { key });
    expect(listed.data.map((s: { status: string }) => s.status)).toEqual(['timed_out']);
    const started = await c.ok('GET', '/v1/coding-sessions?status=started', { key });
    expect({ ids: started.data.map((s: { id: string }) => s.id), total: started.total_count }).toEqual({ ids: [], total: 0 });
    const timedOut = await c.ok('GET', '/v1/coding-sessions?status=timed_out', { key });
    expect({ ids: timedOut.data.map((s: { id: string }) => s.id), total: timedOut.total_count }).toEqual({ ids: [session.id], total: 1 });
    expect((await c.ok('GET', `/v1/coding-sessions/${session.id}`, { key })).status).toBe('timed_out');
  });

  it('an interview list filtered on expired shows an interview past its join-by, as a read of it does', async () => {
    const c = testClient(h);
    const key = (await h.createOrg('Interview lists as read', 10)).keys.secret_test;
    const candidate = await c.candidate(key);
    const made = await c.ok('POST', '/v1/interviews', { key, body: { candidate_id: candidate, round_type: 'behavioral', difficulty: 3, role: 'Engineer' } });
    h.clock.advance(8 * 86_400_000); // never joined: past its join-by
    const expired = await c.ok('GET', '/v1/interviews?status=expired', { key });
    const scheduled = await c.ok('GET', '/v1/interviews?status=scheduled', { key });
    expect({ expired: expired.data.map((i: { id: string }) => i.id), scheduled: scheduled.data.length }).toEqual({ expired: [made.id], scheduled: 0 });
  });
});
