import { sql, type Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { testClient, type TestClient } from '../helpers/client.js';
import { DIALECT, startHarness, type Harness } from '../helpers/harness.js';
import { psychometricKit } from '../helpers/psychometric.js';
import { startReceivers, webhookKit } from '../helpers/webhooks.js';

let h: Harness;
let client: TestClient;
let receivers: Awaited<ReturnType<typeof startReceivers>>;
beforeAll(async () => {
  receivers = await startReceivers(1);
  h = await startHarness({ env: {
    PREP_RATE_LIMIT: '100000', PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: receivers.caFile,
  } });
  client = testClient(h);
});
afterAll(async () => { await h?.close(); await receivers?.close(); });

const N = 20;

/** A new organisation's questionnaire assigned (not started), the clock a second before its 7-day window ends. */
async function assignmentAtWindowEnd(name: string) {
  const org = await h.createOrg(name, 100);
  const key = org.keys.secret_test;
  const s = await psychometricKit(h).session(key, 'mini-ipip', { start: false });
  const row = await h.db.kysely.selectFrom('psychometric_sessions').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
  const windowEnd = row.created_at + 7 * 86_400_000;
  h.clock.set(windowEnd - 1_000);
  return { org, key, s, row, windowEnd, token: await client.token(key, 'psychometric', s.id) };
}

/**
 * A transaction that does `work` and then holds its locks, uncommitted, until `end()`: it then commits, or rolls back
 * with `rollBack`. Resolves once `work` is done; `ended` settles when the transaction has.
 */
async function heldTransaction(work: (tx: Transaction<Database>) => Promise<unknown>, options: { rollBack?: boolean } = {}) {
  let end!: () => void;
  const ending = new Promise<void>((resolve) => { end = resolve; });
  let holding!: () => void;
  const holds = new Promise<void>((resolve) => { holding = resolve; });
  let pid = 0;
  const ended = h.db.kysely.transaction().execute(async (tx) => {
    if (DIALECT === 'postgres') pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]!.pid;
    await work(tx);
    holding();
    await ending;
    if (options.rollBack) throw new Error('rolled back');
  }).catch((error) => { if (!options.rollBack) throw error; });
  await holds;
  return { end, ended, pid };
}

/**
 * Waits until a backend other than `known` waits on a lock one of `known` holds, and returns it (PostgreSQL: where
 * transactions run at once, the request or job under test has then read what it reads first). On SQLite writers queue
 * before they read anything: a moment is left, as before, and 0 returned.
 */
async function waitingOn(known: number[]): Promise<number> {
  if (DIALECT !== 'postgres') {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return 0;
  }
  for (const end = Date.now() + 20_000; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 20))) {
    const { rows } = await sql<{ pid: number }>`select pid from pg_stat_activity where pg_blocking_pids(pid) && ${known}::int[]`.execute(h.db.kysely);
    const waiter = rows.map((r) => r.pid).find((p) => !known.includes(p));
    if (waiter !== undefined) return waiter;
  }
  throw new Error(`nothing came to wait on ${known.join(', ')}`);
}

/**
 * Requests racing on one thing, on both engines. On PostgreSQL (READ COMMITTED) transactions run at once, so a
 * read-decide-write without a row lock or a conditional write lets two of them through; on SQLite writers queue.
 * Each case was a bug on PostgreSQL (found by a review) and passed on SQLite.
 */
describe('races', () => {
  it('API key: concurrent rotations of one key make exactly one replacement', async () => {
    const org = await h.createOrg('Rot');
    const key = org.keys.secret_test;
    const list = await client.ok('GET', '/v1/api-keys?limit=100', { key }, 200);
    const target = list.data.find((k: any) => k.type === 'publishable').id;
    const replies = await Promise.all(Array.from({ length: N }, () =>
      client.call('POST', `/v1/api-keys/${target}/rotate`, { key, body: { grace_seconds: 3600 } })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    const after = await client.ok('GET', '/v1/api-keys?limit=100', { key }, 200);
    const live = after.data.filter((k: any) => k.type === 'publishable' && k.status === 'active');
    expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(1);
    expect(live).toHaveLength(1);
  });

  it('webhooks: concurrent creates never exceed 16 endpoints', async () => {
    const kit = webhookKit(h);
    const org = await h.createOrg('Hooks');
    const key = org.keys.secret_test;
    for (let i = 0; i < 15; i++) await kit.createEndpoint(key, { url: receivers.receivers[0]!.url });
    const replies = await Promise.all(Array.from({ length: N }, () =>
      kit.call('POST', '/v1/webhook-endpoints', key, { url: receivers.receivers[0]!.url })));
    const count = await h.db.kysely.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', org.id).where('livemode', '=', 0).where('deleted_at', 'is', null).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(16);
    expect(replies.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.statusCode !== 201).map((r) => r.json().error.code)).toEqual(Array(N - 1).fill('webhook_endpoint_limit'));
  });

  it('erasure: an assignment racing DELETE /v1/candidates never keeps the erased person (nor their credit)', async () => {
    const tests = await h.db.kysely.selectFrom('coding_tests').selectAll().where('organization_id', 'is', null).execute();
    const testIds = tests.slice(0, 5).map((t) => t.id);
    let leaked = 0;
    for (let round = 0; round < 10 && leaked === 0; round++) {
      const org = await h.createOrg(`Erase${round}`, 100);
      const key = org.keys.secret_test;
      const cand = await client.candidate(key);
      const assigns = testIds.map((t) => client.call('POST', '/v1/coding-sessions', { key, body: { candidate_id: cand, coding_test_id: t } }));
      const erase = client.call('DELETE', `/v1/candidates/${cand}`, { key });
      const replies = await Promise.all([...assigns, erase]);
      expect(replies.map((r) => r.status).filter((s) => s >= 500)).toEqual([]);
      const rows = await h.db.kysely.selectFrom('coding_sessions').select(['id', 'status']).where('candidate_id', '=', cand).execute();
      leaked += rows.length;
    }
    expect(leaked).toBe(0);
  });

  it('assessment cancel: concurrent cancels of one assignment all answer 200 (a repeat is harmless)', async () => {
    const tests = await h.db.kysely.selectFrom('coding_tests').selectAll().where('organization_id', 'is', null).execute();
    const org = await h.createOrg('Cancel', 100);
    const key = org.keys.secret_test;
    const s = await client.assign(key, 'coding', tests[0]!.id);
    const replies = await Promise.all(Array.from({ length: N }, () => client.call('POST', `/v1/coding-sessions/${s.id}/cancel`, { key })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.every((x) => x === 200)).toBe(true);
  });

  // Was a bug on PostgreSQL: a start whose conditional write lost to a cancel answered 200 with the cancelled session.
  it('assessment start racing cancel: one of them wins, and the start that lost is refused session_cancelled', async () => {
    const kit = psychometricKit(h);
    const org = await h.createOrg('Start or cancel', 100);
    const key = org.keys.secret_test;
    for (let round = 0; round < 10; round++) {
      const s = await kit.session(key, 'mini-ipip', { start: false });
      const [start, cancel] = await Promise.all([
        client.call('POST', `/v1/psychometric-sessions/${s.id}/start`, { token: s.token }),
        client.call('POST', `/v1/psychometric-sessions/${s.id}/cancel`, { key }),
      ]);
      const outcome = `start ${start.status} ${start.body.status ?? start.body.error?.code}, cancel ${cancel.status} ${cancel.body.status ?? cancel.body.error?.code}`;
      expect(['start 200 started, cancel 400 session_already_started', 'start 400 session_cancelled, cancel 200 cancelled']).toContain(outcome);
    }
  });

  // Was a bug on PostgreSQL: proctoring signals read the session before taking its lock, so a post that met a finalize
  // under way (holding the lock) recorded its signals once the candidate had finished.
  it('proctoring signals racing a finalize: none is recorded once the finalize has committed', async () => {
    const org = await h.createOrg('Signals racing finalize', 100);
    const key = org.keys.secret_test;
    const testId = (await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', 'foundations-practice-set').executeTakeFirstOrThrow()).id;
    const a = await client.assign(key, 'coding', testId);
    const token = await client.token(key, 'coding', a.id);
    expect((await client.call('POST', `/v1/coding-sessions/${a.id}/start`, { token })).status).toBe(200);
    // Another transaction finalizes the session (as finalize does, under the row's lock) and holds it uncommitted.
    const finalizer = await heldTransaction((tx) => tx.updateTable('coding_sessions')
      .set({ status: 'in_progress', finalize_requested_at: h.clock.now(), updated_at: h.clock.now() }).where('id', '=', a.id).execute());
    const reply = client.call('POST', `/v1/coding-sessions/${a.id}/events`, { token, body: { events: [{ type: 'tab_hidden' }] } });
    await waitingOn([finalizer.pid]);
    finalizer.end();
    await finalizer.ended;
    const answered = await reply;
    expect(answered.status, answered.raw).toBe(202);
    expect(answered.body.recorded).toBe(0);
    const kept = await h.db.kysely.selectFrom('proctoring_events').select('id').where('subject_id', '=', a.id).execute();
    expect(kept).toHaveLength(0);
  });

  // Was a bug on PostgreSQL: a start (or a cancel) that read its assignment open just before the 7-day window closed,
  // then waited on the row while the lapse was announced (abandoned event, credit back, a report of nothing), went on:
  // a session announced abandoned was started (its submit could never store its report), or cancelled.
  for (const operation of ['start', 'cancel'] as const) {
    it(`assessment ${operation} at the end of the window: it waits for an abandonment under way, then is refused assignment_expired`, async () => {
      const { org, key, s, row, windowEnd, token } = await assignmentAtWindowEnd(`Window end ${operation}`);
      // Another transaction holds a report row for the session (uncommitted), so the abandonment waits inside its own,
      // holding the session's lock; the operation reads the assignment while it is still open and then meets that lock.
      const blocker = await heldTransaction((tx) => tx.insertInto('psychometric_reports').values({
        session_id: s.id, organization_id: org.id, livemode: 0, test_id: row.test_id, raw_scores: '{}', report: '{}', created_at: windowEnd,
      }).execute(), { rollBack: true });
      h.clock.set(windowEnd + 1_000);
      const abandonment = h.modules.psychometric.complete(s.id);
      const abandoner = await waitingOn([blocker.pid]); // it has read the clock: lapsed
      h.clock.set(windowEnd - 500);
      const reply = operation === 'start'
        ? client.call('POST', `/v1/psychometric-sessions/${s.id}/start`, { token })
        : client.call('POST', `/v1/psychometric-sessions/${s.id}/cancel`, { key });
      await waitingOn([blocker.pid, abandoner]); // it has read the assignment open
      h.clock.set(windowEnd + 1_500);
      blocker.end();
      await blocker.ended;
      await abandonment;
      const answered = await reply;
      const after = await h.db.kysely.selectFrom('psychometric_sessions').select('status').where('id', '=', s.id).executeTakeFirstOrThrow();
      const events = (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', 'psychometric.completed').execute())
        .map((e) => JSON.parse(e.payload).data.object).filter((o) => o.id === s.id);
      expect(events).toMatchObject([{ outcome: 'abandoned' }]);
      expect(after.status).toBe('assigned');
      expect(answered.body.error?.code, answered.raw).toBe('assignment_expired');
    });
  }

  // Was a bug on PostgreSQL: assigning the test again returns a lapsed assignment's credit without the session's lock;
  // a start that read the assignment open just before the window closed then waited on the balance, found its credit
  // returned, spent nothing, and started: a session taken for free (and the new assignment beside it).
  it('assessment start racing a re-assignment that finds the assignment lapsed: never started without its credit', async () => {
    const { org, key, s, row, windowEnd, token } = await assignmentAtWindowEnd('Start or reassign');
    // Another transaction holds the sandbox quota's row, so the re-assignment (balance locked, the assignment seen
    // lapsed, its credit returned) waits there; the start reads the assignment open and then waits on the balance.
    const blocker = await heldTransaction((tx) => tx.updateTable('sandbox_quota').set({ used: sql`used` }).where('organization_id', '=', org.id).execute());
    h.clock.set(windowEnd + 1_000);
    const reassign = client.call('POST', '/v1/psychometric-sessions', { key, body: { candidate_id: s.candidateId, psychometric_test_id: row.test_id } });
    const reassigner = await waitingOn([blocker.pid]);
    h.clock.set(windowEnd - 500);
    const start = client.call('POST', `/v1/psychometric-sessions/${s.id}/start`, { token });
    await waitingOn([blocker.pid, reassigner]);
    blocker.end();
    await blocker.ended;
    const [assigned, started] = await Promise.all([reassign, start]);
    expect([200, 201], assigned.raw).toContain(assigned.status);
    const entries = await h.db.kysely.selectFrom('credit_ledger').select(['entry_type']).where('reservation_id', '=', row.credit_reservation_id!).execute();
    const after = await h.db.kysely.selectFrom('psychometric_sessions').select('status').where('id', '=', s.id).executeTakeFirstOrThrow();
    if (started.status === 200) {
      // The start went first: its credit is spent and the re-assignment resumed it.
      expect(entries.map((e) => e.entry_type).sort()).toEqual(['commit', 'reserve']);
      expect(assigned.body).toMatchObject({ id: s.id, resumed: true });
    } else {
      // The re-assignment went first: the lapsed assignment gave its credit back and stays unstarted.
      expect(started.body.error?.code, started.raw).toBe('assignment_expired');
      expect(entries.map((e) => e.entry_type).sort()).toEqual(['release', 'reserve']);
      expect(after.status).toBe('assigned');
      expect(assigned.body).toMatchObject({ resumed: false });
    }
    const balance = await h.services.credits.balance(h.db.kysely, { organizationId: org.id, livemode: false }, 'psychometric');
    expect(balance).toBe(99);
  });
});
