import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, testClient, type TestClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';
import { promptKit } from '../helpers/prompt-engineering.js';
import { psychometricKit } from '../helpers/psychometric.js';
import { settleJobs } from '../helpers/settle.js';

/**
 * The assessment-session lifecycle, as every kind must keep it: one suite, run for each kind. A new kind adds a row
 * to KINDS: how to find a test, how to finish a started session, and the names of its path, field and event.
 */
interface Kind {
  kind: 'coding' | 'psychometric' | 'prompt_engineering';
  path: string;
  testField: string;
  tokenField: string;
  credit: 'coding' | 'psychometric' | 'prompt_engineering';
  event: string;
  test(h: Harness, key: string): Promise<string>;
  /** Brings a started session to completion, with its token. */
  finish(h: Harness, id: string, token: string): Promise<void>;
  /** The kind's lifecycle service (its sweep). */
  lifecycle(h: Harness): { expireDue(): Promise<number> };
  /** A timed test whose session is finished by `POST …/finalize` (scored in the background), if the kind has one. */
  finalizable?: true;
}

const KINDS: Kind[] = [
  {
    kind: 'coding', path: '/v1/coding-sessions', testField: 'coding_test_id', tokenField: 'coding_session_id', credit: 'coding', event: 'coding.completed',
    test: async (h) => (await h.db.kysely.selectFrom('coding_tests').select('id').where('slug', '=', 'foundations-practice-set').executeTakeFirstOrThrow()).id,
    async finish(h, id, token) {
      const kit = judgingKit(h);
      expect((await kit.call('POST', `/v1/coding-sessions/${id}/finalize`, { token })).status).toBe(202);
      await kit.settle();
    },
    lifecycle: (h) => h.modules.coding,
  },
  {
    kind: 'psychometric', path: '/v1/psychometric-sessions', testField: 'psychometric_test_id', tokenField: 'psychometric_session_id', credit: 'psychometric',
    event: 'psychometric.completed',
    test: (h, key) => psychometricKit(h).testId(key, 'mini-ipip'),
    async finish(h, id, token) {
      const kit = psychometricKit(h);
      const items = (await kit.call('GET', `/v1/psychometric-sessions/${id}`, { token })).body.items as Array<{ id: string }>;
      await kit.answerAll({ id, token, items }, () => 3, 20);
    },
    lifecycle: (h) => h.modules.psychometric,
  },
  {
    kind: 'prompt_engineering', path: '/v1/prompt-engineering-sessions', testField: 'prompt_engineering_assessment_id',
    tokenField: 'prompt_engineering_session_id', credit: 'prompt_engineering', event: 'prompt_engineering.completed',
    test: async (h, key) => (await testClient(h).ok('GET', '/v1/prompt-engineering-assessments', { key }, 200)).data[0].id,
    async finish(h, id, token) {
      const kit = promptKit(h);
      expect((await kit.call('POST', `/v1/prompt-engineering-sessions/${id}/finalize`, { token })).status).toBe(202);
      await kit.settle();
    },
    lifecycle: (h) => h.modules.promptEngineering,
    finalizable: true,
  },
];

let h: Harness;
let client: TestClient;
beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  client = testClient(h);
});
afterAll(() => h.close());

describe.each(KINDS)('the assessment lifecycle: $kind', (k) => {
  const call: TestClient['call'] = (...args) => client.call(...args);
  const balance = async (key: string) => (await call('GET', '/v1/usage', { key })).body.credits[k.credit] as number;
  /** The raw reply, not the helper's `assign`: the tests check its 201, 200 (resumed) and 402. */
  const assign = async (key: string, candidateId: string) => call('POST', k.path, { key, body: { candidate_id: candidateId, [k.testField]: await k.test(h, key) } });

  it('assign reserves one credit; assigning again resumes the open session (200, resumed, no charge)', async () => {
    const org = await h.createOrg(`${k.kind} credits`, 3);
    const key = org.keys.secret_test;
    const who = await client.candidate(key);
    const first = await assign(key, who);
    expect(first.status, first.raw).toBe(201);
    expect(first.body).toMatchObject({ status: 'assigned', resumed: false, candidate_id: who });
    expect(await balance(key)).toBe(2);
    const again = await assign(key, who);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, resumed: true });
    expect(await balance(key)).toBe(2);
    const listed = await call('GET', `${k.path}?candidate_id=${who}`, { key });
    expect(listed.body.data.map((s: any) => s.id)).toEqual([first.body.id]);
    expect(listed.body.total_count).toBe(1);
  });

  it('402 without credit, creating nothing', async () => {
    const org = await h.createOrg(`${k.kind} broke`, 0);
    const key = org.keys.secret_test;
    const res = await assign(key, await client.candidate(key));
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('insufficient_credits');
    expect((await call('GET', k.path, { key })).body.data).toEqual([]);
  });

  it('cancel before start returns the credit; after start it is refused; a repeat changes nothing', async () => {
    const org = await h.createOrg(`${k.kind} cancel`, 3);
    const key = org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    const cancelled = await call('POST', `${k.path}/${a.body.id}/cancel`, { key });
    expect(cancelled.body.status).toBe('cancelled');
    expect(await balance(key)).toBe(3);
    expect((await call('POST', `${k.path}/${a.body.id}/cancel`, { key })).body.status).toBe('cancelled');
    expect(await balance(key)).toBe(3);

    const b = await assign(key, await client.candidate(key));
    const t = await client.token(key, k.kind, b.body.id);
    expect((await call('POST', `${k.path}/${b.body.id}/start`, { token: t })).status).toBe(200);
    const refused = await call('POST', `${k.path}/${b.body.id}/cancel`, { key });
    expect(refused.body.error.code).toBe('session_already_started');
    expect(await balance(key)).toBe(2); // spent at start
  });

  // Was a bug: an erased candidate's assignments stayed open and launchable, holding their credit until the window lapsed.
  it('erasing the candidate cancels their assignments not yet opened: the credit comes back, links and tokens are refused', async () => {
    const org = await h.createOrg(`${k.kind} erasure`, 3);
    const key = org.keys.secret_test;
    const who = await client.candidate(key);
    const open = await assign(key, who);
    const other = await assign(key, await client.candidate(key));
    const token = await client.token(key, k.kind, open.body.id);
    expect(await balance(key)).toBe(1);
    expect((await call('DELETE', `/v1/candidates/${who}`, { key })).status).toBe(200);
    expect(await balance(key)).toBe(2);
    const listed = async (id: string) => ((await call('GET', k.path, { key })).body.data as any[]).find((s) => s.id === id);
    expect(await listed(open.body.id)).toMatchObject({ status: 'cancelled', candidate_id: null });
    expect((await call('POST', `${k.path}/${open.body.id}/launch-link`, { key, body: {} })).body.error.code).toBe('session_cancelled');
    expect((await call('POST', `${k.path}/${open.body.id}/start`, { token })).status).toBeGreaterThanOrEqual(400);
    expect((await listed(other.body.id)).status).toBe('assigned'); // another candidate's: untouched
  });

  // Was a bug: a started session ran on after its candidate was erased, and what was added then (answers, prompts,
  // code) was kept, though the person had been erased.
  it('erasing the candidate closes their started session as timed out: completed once, anonymously, and no more work', async () => {
    const org = await h.createOrg(`${k.kind} erasure started`, 3);
    const key = org.keys.secret_test;
    const who = await client.candidate(key);
    const a = await assign(key, who);
    const token = await client.token(key, k.kind, a.body.id);
    expect((await call('POST', `${k.path}/${a.body.id}/start`, { token })).status).toBe(200);
    expect((await call('DELETE', `/v1/candidates/${who}`, { key })).status).toBe(200);
    const listed = ((await call('GET', k.path, { key })).body.data as any[]).find((s) => s.id === a.body.id);
    expect(listed).toMatchObject({ status: 'timed_out', candidate_id: null });
    // The token the person holds is revoked with them (it read the timer, and a questionnaire's answers, after).
    if (k.kind !== 'psychometric') expect((await call('GET', `${k.path}/${a.body.id}/timer`, { token })).body.error.code).toBe('invalid_session_token');
    await k.finish(h, a.body.id, token).catch(() => undefined); // the candidate's page carries on: nothing more is taken
    await settleJobs(h, [`${k.kind}.complete`, 'prompt_engineering.grade', 'coding.judge'], 'completion');
    const events = (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', k.event).execute())
      .map((e) => JSON.parse(e.payload).data.object).filter((o) => o.id === a.body.id);
    // A questionnaire closed unanswered is not scored: abandoned, as when its time runs out so.
    expect(events).toMatchObject([{ status: 'timed_out', outcome: k.kind === 'psychometric' ? 'abandoned' : 'timed_out', candidate_id: null }]);
    expect(await balance(key)).toBe(2); // the started session's credit stays spent
  });

  // Was a near miss: the subject's context (GET /v1/session, the launch preview) carried the candidate's whole row,
  // email included; only the response schema kept the address out of the candidate's page.
  it('the context a session reads holds the candidate\'s id and name only', async () => {
    const key = h.org.keys.secret_test;
    const who = await client.candidate(key, { name: 'Ada Lovelace' });
    const a = await assign(key, who);
    const { provider } = k.lifecycle(h) as unknown as { provider: { context(tenant: { organizationId: string; livemode: boolean }, id: string): Promise<{ candidate: unknown }> } };
    const context = await provider.context({ organizationId: h.org.id, livemode: false }, a.body.id);
    expect(context.candidate).toEqual({ id: who, name: 'Ada Lovelace' });
  });

  it('start is idempotent (the same started_at), spends the reserved credit, and the token is bound to its subject', async () => {
    const key = h.org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    const b = await assign(key, await client.candidate(key));
    const t = await client.token(key, k.kind, a.body.id);
    const first = await call('POST', `${k.path}/${a.body.id}/start`, { token: t });
    h.clock.advance(5_000);
    const second = await call('POST', `${k.path}/${a.body.id}/start`, { token: t });
    expect(second.body.started_at).toBe(first.body.started_at);
    const other = await call('POST', `${k.path}/${b.body.id}/start`, { token: t });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('session_scope_mismatch');
  });

  it('a launch link cannot outlive the 7-day window; past it, minting answers assignment_expired', async () => {
    const key = h.org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    const link = await call('POST', `${k.path}/${a.body.id}/launch-link`, { key, body: { ttl_seconds: 604_800 } });
    expect(link.status, link.raw).toBe(201);
    expect(link.body).toMatchObject({ subject_kind: k.kind, subject_id: a.body.id });
    expect(link.body.expires_at).toBeLessThanOrEqual(a.body.assignment_expires_at);
    h.clock.advance(7 * 86_400_000 + 1000);
    const late = await call('POST', `${k.path}/${a.body.id}/launch-link`, { key, body: {} });
    expect(late.body.error.code).toBe('assignment_expired');
  });

  it('another organisation or environment gets 404 for every operation', async () => {
    const key = h.org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    const other = (await h.createOrg(`${k.kind} other`)).keys.secret_test;
    for (const k2 of [other, h.org.keys.secret_live]) {
      for (const [method, url] of [['POST', `${k.path}/${a.body.id}/cancel`], ['POST', `${k.path}/${a.body.id}/launch-link`], ['GET', `${k.path}/${a.body.id}/report`]] as const) {
        const res = await call(method, url, { key: k2, body: method === 'POST' ? {} : undefined });
        expect(res.status, `${method} ${url}: ${res.raw}`).toBe(404);
      }
      expect((await call('GET', k.path, { key: k2 })).body.data.map((s: any) => s.id)).not.toContain(a.body.id);
      await call('POST', '/v1/domains', { key: k2, body: { origin: ORIGIN } });
      const mint = await call('POST', '/v1/sessions', { key: k2, body: { origin: ORIGIN, [k.tokenField]: a.body.id } });
      expect(mint.status, mint.raw).toBe(404);
    }
  });

  it('the report is not ready until completion; completion sends its event exactly once', async () => {
    const key = h.org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    const t = await client.token(key, k.kind, a.body.id);
    expect((await call('GET', `${k.path}/${a.body.id}/report`, { key })).body.error.code).toBe('report_not_ready');
    expect((await call('POST', `${k.path}/${a.body.id}/start`, { token: t })).status).toBe(200);
    await k.finish(h, a.body.id, t);
    await k.finish(h, a.body.id, t).catch(() => undefined); // finishing again changes nothing
    expect((await call('GET', `${k.path}/${a.body.id}/report`, { key })).status).toBe(200);
    const events = (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', k.event).execute())
      .map((e) => JSON.parse(e.payload)).filter((e) => e.data.object.id === a.body.id);
    expect(events).toHaveLength(1);
  });

  // Was a bug: the credit reserved at assign stayed reserved once the assignment lapsed unopened and was announced.
  it('an assignment that lapses unopened is announced abandoned once and gives its credit back; it cannot be cancelled then', async () => {
    const org = await h.createOrg(`${k.kind} lapse`, 3);
    const key = org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    expect(await balance(key)).toBe(2);
    h.clock.advance(7 * 86_400_000 + 1);
    await k.lifecycle(h).expireDue();
    await settleJobs(h, [`${k.kind}.complete`], 'the abandonment');
    await k.lifecycle(h).expireDue(); // a second sweep announces nothing more
    await settleJobs(h, [`${k.kind}.complete`], 'nothing');
    const events = (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', k.event).execute())
      .map((e) => JSON.parse(e.payload).data.object).filter((o) => o.id === a.body.id);
    expect(events).toMatchObject([{ outcome: 'abandoned', status: 'assigned' }]);
    expect(await balance(key)).toBe(3);
    const cancel = await call('POST', `${k.path}/${a.body.id}/cancel`, { key });
    expect(cancel.body.error?.code, cancel.raw).toBe('assignment_expired');
    expect(await balance(key)).toBe(3);
  });

  // Was a bug: a session finalized but not yet scored (its grading or judging still running) kept recording
  // proctoring signals, though the candidate had finished.
  it.runIf(k.kind !== 'psychometric')('records no proctoring signal once the candidate has finalized', async () => {
    const key = h.org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    const token = await client.token(key, k.kind, a.body.id);
    expect((await call('POST', `${k.path}/${a.body.id}/start`, { token })).status).toBe(200);
    const signal = { events: [{ type: 'tab_hidden' }] };
    expect((await call('POST', `${k.path}/${a.body.id}/events`, { token, body: signal })).body.recorded).toBe(1);
    expect((await call('POST', `${k.path}/${a.body.id}/finalize`, { token })).status).toBe(202);
    const row = (await call('GET', `${k.path}/${a.body.id}`, { key })).body;
    expect(['in_progress', 'completed']).toContain(row.status);
    expect((await call('POST', `${k.path}/${a.body.id}/events`, { token, body: signal })).body).toEqual({ object: 'proctoring_events', recorded: 0 });
    await settleJobs(h, [`${k.kind}.complete`, 'prompt_engineering.grade', 'coding.judge'], 'completion');
  });

  // Was a bug: a session finalized but not yet scored read as open to candidate access and to assignment: new session
  // tokens and launch links were minted for it, and assigning the test again handed it back as resumed, though it
  // takes no more work.
  it.runIf(k.kind !== 'psychometric')('a session finalized but not yet scored is finished: no new token or link, and assigning again makes a new one', async () => {
    const key = h.org.keys.secret_test;
    const candidate = await client.candidate(key);
    const a = await assign(key, candidate);
    const token = await client.token(key, k.kind, a.body.id);
    expect((await call('POST', `${k.path}/${a.body.id}/start`, { token })).status).toBe(200);
    expect((await call('POST', `${k.path}/${a.body.id}/finalize`, { token })).status).toBe(202);
    expect((await call('GET', `${k.path}/${a.body.id}`, { key })).body.status).toBe('in_progress'); // scoring not run yet
    const mint = await call('POST', '/v1/sessions', { key, body: { origin: ORIGIN, [k.tokenField]: a.body.id } });
    expect(mint.body.error?.code, mint.raw).toBe('session_already_finalized');
    const link = await call('POST', `${k.path}/${a.body.id}/launch-link`, { key, body: {} });
    expect(link.body.error?.code, link.raw).toBe('session_already_finalized');
    const refresh = await call('POST', '/v1/sessions/refresh', { token });
    expect(refresh.body.error?.code, refresh.raw).toBe('session_already_finalized');
    // The candidate's own repeat answers as before.
    expect((await call('POST', `${k.path}/${a.body.id}/finalize`, { token })).status).toBe(202);
    const again = await assign(key, candidate);
    expect(again.status, again.raw).toBe(201);
    expect(again.body.id).not.toBe(a.body.id);
    await settleJobs(h, [`${k.kind}.complete`, 'prompt_engineering.grade', 'coding.judge'], 'completion');
    expect((await call('GET', `${k.path}/${a.body.id}`, { key })).body.status).toBe('completed');
  });

  // Was a bug: a session finalized in time but scored after its deadline was timed out by the sweep (or any read).
  it.runIf(k.finalizable)('a session finalized before its deadline completes, not timed out, when it is scored after the deadline', async () => {
    const key = h.org.keys.secret_test;
    const a = await assign(key, await client.candidate(key));
    const started = await call('POST', `${k.path}/${a.body.id}/start`, { token: await client.token(key, k.kind, a.body.id) });
    const deadline = started.body.deadline_at * 1000;
    expect(deadline).toBeGreaterThan(0);
    h.clock.set(deadline - 5_000);
    const finalized = await call('POST', `${k.path}/${a.body.id}/finalize`, { token: await client.token(key, k.kind, a.body.id) });
    expect(finalized.status, finalized.raw).toBe(202);
    h.clock.set(deadline + 1_000); // the completion job has not run yet; the deadline passes; the sweep and a read come first
    await k.lifecycle(h).expireDue();
    expect((await call('GET', `${k.path}/${a.body.id}`, { key })).body.status).not.toBe('timed_out');
    await settleJobs(h, [`${k.kind}.complete`, `${k.kind}.timeout`, 'prompt_engineering.grade', 'coding.judge'], 'completion');
    const after = (await call('GET', `${k.path}/${a.body.id}`, { key })).body;
    expect(after).toMatchObject({ status: 'completed', ended_at: Math.floor((deadline - 5_000) / 1000) });
    const events = (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', k.event).execute())
      .map((e) => JSON.parse(e.payload).data.object).filter((o) => o.id === a.body.id);
    expect(events).toMatchObject([{ outcome: 'completed', status: 'completed' }]);
  });
});
