import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, testClient } from '../helpers/client.js';
import { startHarness, type Harness, type Org } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';
import { psychometricKit } from '../helpers/psychometric.js';
import { testWorker } from '../helpers/settle.js';

/**
 * An untimed session (no deadline: every psychometric session, the untimed coding tests) that the candidate starts
 * and never finishes is closed 7 days after its start, by the timeout job queued when it started, and announced once.
 */

const DAY = 86_400_000;
/** The untimed limit (UNTIMED_SESSION_LIMIT_MS), written out. */
const SEVEN_DAYS = 7 * DAY;
const WRONG_PY = 'import sys\nprint(0)\n';

let h: Harness;
let org: Org;
const key = () => org.keys.secret_test;
const tenant = () => ({ organizationId: org.id, livemode: false });

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  org = await h.createOrg('Untimed', 100);
});
afterAll(() => h.close());

/** Runs the due jobs of these kinds only (no sweep: the job queued at start must do it on its own). */
async function runJobs(kinds: string[]): Promise<void> {
  const worker = testWorker(h, undefined, kinds);
  while ((await worker.runOnce()) > 0) { /* drain */ }
}

async function eventsOf(type: string, id: string) {
  return (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', type).execute())
    .map((e) => JSON.parse(e.payload).data.object).filter((o) => o.id === id);
}

const PSYCHOMETRIC_JOBS = ['psychometric.timeout', 'psychometric.complete'];
const CODING_JOBS = ['coding.timeout', 'coding.complete', 'coding.judge'];

describe('psychometric (always untimed)', () => {
  const row = (id: string) => h.db.kysely.selectFrom('psychometric_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('started, some answers, 7 days pass: closed by its timeout job, announced abandoned once; no more answers or submit; report not ready', async () => {
    const kit = psychometricKit(h);
    const s = await kit.session(key(), 'mini-ipip');
    const saved = await kit.call('POST', `/v1/psychometric-sessions/${s.id}/progress`, { token: s.token, body: { answers: s.items.slice(0, 5).map((i) => ({ item_id: i.id, value: 4 })) } });
    expect(saved.status, saved.raw).toBe(200);
    const startedAt = (await row(s.id)).started_at!;

    h.clock.set(startedAt + SEVEN_DAYS - 1000);
    await runJobs(PSYCHOMETRIC_JOBS);
    expect((await row(s.id)).status).toBe('in_progress'); // not a second early
    expect((await h.modules.psychometric.progress(tenant(), s.id, [{ item_id: s.items[5]!.id, value: 2 }])).answered).toBe(6);

    h.clock.set(startedAt + SEVEN_DAYS);
    await runJobs(PSYCHOMETRIC_JOBS);
    const closed = await kit.call('GET', `/v1/psychometric-sessions?candidate_id=${s.candidateId}`, { key: key() });
    expect(closed.body.data[0]).toMatchObject({ id: s.id, status: 'timed_out', answered_count: 6, ended_at: Math.floor((startedAt + SEVEN_DAYS) / 1000) });
    expect(await eventsOf('psychometric.completed', s.id)).toMatchObject([
      { status: 'timed_out', outcome: 'abandoned', candidate_id: s.candidateId, norm_group: null, flagged: [] },
    ]);

    await expect(h.modules.psychometric.progress(tenant(), s.id, [{ item_id: s.items[6]!.id, value: 2 }])).rejects.toMatchObject({ code: 'session_already_finalized' });
    await expect(h.modules.psychometric.submit(tenant(), s.id)).rejects.toMatchObject({ code: 'session_already_finalized' });
    const mint = await kit.call('POST', '/v1/sessions', { key: key(), body: { origin: ORIGIN, psychometric_session_id: s.id } });
    expect(mint.body.error?.code, mint.raw).toBe('session_already_finalized');
    const report = await kit.call('GET', `/v1/psychometric-sessions/${s.id}/report`, { key: key() });
    expect(report.status).toBe(400);
    expect(report.body.error.code).toBe('report_not_ready');

    // Announced once: the sweep and the completion job again change nothing.
    await h.modules.psychometric.expireDue();
    await h.modules.psychometric.complete(s.id);
    expect(await eventsOf('psychometric.completed', s.id)).toHaveLength(1);
    expect((await row(s.id)).answers.replace(/0/g, '')).toHaveLength(6);
  });

  it('an answer saved after the 7 days, before the job has run, is refused and closes the session', async () => {
    const kit = psychometricKit(h);
    const s = await kit.session(key(), 'mini-ipip');
    const startedAt = (await row(s.id)).started_at!;
    h.clock.set(startedAt + SEVEN_DAYS + 1000);
    await expect(h.modules.psychometric.progress(tenant(), s.id, [{ item_id: s.items[0]!.id, value: 2 }])).rejects.toMatchObject({ code: 'session_already_finalized' });
    expect(await row(s.id)).toMatchObject({ status: 'timed_out', answers: '0'.repeat(20) });
    await runJobs(PSYCHOMETRIC_JOBS);
    expect(await eventsOf('psychometric.completed', s.id)).toMatchObject([{ status: 'timed_out', outcome: 'abandoned' }]);
  });

  it('every item answered but never submitted: scored when closed (outcome timed_out), its report served', async () => {
    const kit = psychometricKit(h);
    const s = await kit.session(key(), 'mini-ipip');
    const saved = await kit.call('POST', `/v1/psychometric-sessions/${s.id}/progress`, { token: s.token, body: { answers: s.items.map((i) => ({ item_id: i.id, value: 3 })) } });
    expect(saved.body).toMatchObject({ answered_count: 20, item_count: 20 });
    h.clock.set((await row(s.id)).started_at! + SEVEN_DAYS);
    await runJobs(PSYCHOMETRIC_JOBS);
    const report = await kit.call('GET', `/v1/psychometric-sessions/${s.id}/report`, { key: key() });
    expect(report.status, report.raw).toBe(200);
    expect(report.body).toMatchObject({ object: 'psychometric_report', status: 'timed_out' });
    expect(report.body.domains).toHaveLength(5);
    expect(await eventsOf('psychometric.completed', s.id)).toMatchObject([{ status: 'timed_out', outcome: 'timed_out', summary: report.body.summary }]);
    // Was a bug: the stored report said outcome "completed" whatever the event said.
    const stored = await h.db.kysely.selectFrom('psychometric_reports').select('report').where('session_id', '=', s.id).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.report).outcome).toBe('timed_out');
  });

  // Was a gap: the psychometric completion job had no way to give up (coding's and prompt engineering's had): failed
  // for good (its last try throwing, or its worker dying on every try), it left the closed session unreported for ever.
  it('a completion job that fails for good still reports the session: scored once more, else announced unscored', async () => {
    const kit = psychometricKit(h);
    const closedUnsubmitted = async () => {
      const s = await kit.session(key(), 'mini-ipip');
      const saved = await kit.call('POST', `/v1/psychometric-sessions/${s.id}/progress`, { token: s.token, body: { answers: s.items.map((i) => ({ item_id: i.id, value: 3 })) } });
      expect(saved.status, saved.raw).toBe(200);
      h.clock.set((await row(s.id)).started_at! + SEVEN_DAYS);
      await runJobs(['psychometric.timeout']); // closed; its completion job queued, not run
      expect((await row(s.id)).status).toBe('timed_out');
      return s;
    };
    const reportOf = (s: { id: string }) => kit.call('GET', `/v1/psychometric-sessions/${s.id}/report`, { key: key() });
    const { psychometricJobs } = await import('../../src/modules/psychometric/service.js');
    const completion = (service: typeof h.modules.psychometric) => psychometricJobs(service).find((j) => j.kind === 'psychometric.complete')!;
    const failing = { ...h.modules.psychometric, complete: () => Promise.reject(new Error('database unavailable')) };

    // Its last try fails (the database, say): the give-up scores the session once more.
    const lastTry = await closedUnsubmitted();
    await expect(completion(failing).run({ session_id: lastTry.id }, { attempts: 60, max_attempts: 60 } as never)).rejects.toThrow('database unavailable');
    expect((await reportOf(lastTry)).body).toMatchObject({ object: 'psychometric_report', status: 'timed_out' });
    expect(await eventsOf('psychometric.completed', lastTry.id)).toMatchObject([{ status: 'timed_out', outcome: 'timed_out' }]);

    // Its worker died on every try: the same, from the abandoned hook.
    const died = await closedUnsubmitted();
    await completion(failing).abandoned!({ session_id: died.id }, {} as never);
    expect((await reportOf(died)).status).toBe(200);

    // A sheet that cannot be scored at all: announced unscored (outcome abandoned) and said so by the report.
    const unscorable = await closedUnsubmitted();
    await h.db.kysely.updateTable('psychometric_sessions').set({ item_order: 'not a list' }).where('id', '=', unscorable.id).execute();
    await expect(completion(h.modules.psychometric).run({ session_id: unscorable.id }, { attempts: 60, max_attempts: 60 } as never)).rejects.toThrow();
    expect(await eventsOf('psychometric.completed', unscorable.id)).toMatchObject([{ status: 'timed_out', outcome: 'abandoned' }]);
    const refused = await reportOf(unscorable);
    expect(refused.body.error).toMatchObject({ code: 'report_not_ready' });
    expect(refused.body.error.message).toMatch(/could not be scored/);
    // Given up once: a later give-up announces nothing more.
    await completion(h.modules.psychometric).abandoned!({ session_id: unscorable.id }, {} as never);
    expect(await eventsOf('psychometric.completed', unscorable.id)).toHaveLength(1);
  });

  it('a session submitted within the 7 days is untouched when its timeout job fires', async () => {
    const kit = psychometricKit(h);
    const s = await kit.session(key(), 'mini-ipip');
    const done = await kit.answerAll(s, () => 2);
    expect(done.status).toBe('completed');
    const before = await row(s.id);
    h.clock.set(before.started_at! + SEVEN_DAYS + 1000);
    await runJobs(PSYCHOMETRIC_JOBS);
    expect(await row(s.id)).toEqual(before);
    expect(await eventsOf('psychometric.completed', s.id)).toMatchObject([{ status: 'completed', outcome: 'completed' }]);
    expect((await kit.call('GET', `/v1/psychometric-sessions/${s.id}/report`, { key: key() })).status).toBe(200);
  });

  it('the sweep closes one started before it had a timeout job', async () => {
    const kit = psychometricKit(h);
    const s = await kit.session(key(), 'mini-ipip');
    await h.db.kysely.deleteFrom('background_jobs').where('kind', '=', 'psychometric.timeout').where('payload', 'like', `%${s.id}%`).execute();
    h.clock.set((await row(s.id)).started_at! + SEVEN_DAYS);
    await runJobs(PSYCHOMETRIC_JOBS);
    expect((await row(s.id)).status).toBe('started');
    expect(await h.modules.psychometric.expireDue()).toBeGreaterThanOrEqual(1);
    await runJobs(PSYCHOMETRIC_JOBS);
    expect((await row(s.id)).status).toBe('timed_out');
    expect(await eventsOf('psychometric.completed', s.id)).toMatchObject([{ outcome: 'abandoned' }]);
  });
});

describe('coding, an untimed test', () => {
  const row = (id: string) => h.db.kysely.selectFrom('coding_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('started with work in it, 7 days pass: closed and scored as a timed-out session, announced once; the timer still says untimed', async () => {
    const kit = judgingKit(h);
    const s = await kit.session(key(), 'foundations-practice-set');
    const problem = s.problems[0]!;
    const sent = await kit.call('POST', `/v1/coding-sessions/${s.id}/submissions`, { token: s.token, body: { problem_id: problem.id, language: 'python', source: WRONG_PY } });
    expect(sent.status, sent.raw).toBe(202);
    await runJobs(['coding.judge']);
    const startedAt = (await row(s.id)).started_at!;
    expect((await row(s.id)).duration_seconds).toBeNull();

    h.clock.set(startedAt + SEVEN_DAYS);
    await runJobs(CODING_JOBS);
    const detail = await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key: key() });
    expect(detail.body).toMatchObject({ status: 'timed_out', duration_seconds: null, deadline_at: null, ended_at: Math.floor((startedAt + SEVEN_DAYS) / 1000) });
    const report = await kit.call('GET', `/v1/coding-sessions/${s.id}/report`, { key: key() });
    expect(report.status, report.raw).toBe(200);
    expect(report.body).toMatchObject({ status: 'timed_out', outcome: 'timed_out', problems_solved: 0, duration_seconds: SEVEN_DAYS / 1000 });
    expect(report.body.problems[0].attempts.judged).toBe(1);
    expect(await eventsOf('coding.completed', s.id)).toMatchObject([{ status: 'timed_out', outcome: 'timed_out', overall_score: report.body.overall_score }]);
    expect(await h.modules.coding.timer(tenant(), s.id)).toMatchObject({ timed: false, remaining: 0, row: { status: 'timed_out', deadline_at: null } });

    await expect(h.modules.coding.finalize(tenant(), s.id)).resolves.toMatchObject({ status: 'timed_out' });
    await h.modules.coding.expireDue();
    await runJobs(CODING_JOBS);
    expect(await eventsOf('coding.completed', s.id)).toHaveLength(1);
  }, 120_000);

  it('a session finalized within the 7 days is untouched when its timeout job fires', async () => {
    const kit = judgingKit(h);
    const s = await kit.session(key(), 'foundations-practice-set');
    const startedAt = (await row(s.id)).started_at!;
    h.clock.set(startedAt + 2 * DAY);
    expect((await kit.call('POST', `/v1/coding-sessions/${s.id}/finalize`, { token: await testClient(h).token(key(), 'coding', s.id) })).status).toBe(202);
    await runJobs(['coding.complete']);
    const before = await row(s.id);
    expect(before).toMatchObject({ status: 'completed', ended_at: startedAt + 2 * DAY });
    h.clock.set(startedAt + SEVEN_DAYS + 1000);
    await runJobs(CODING_JOBS);
    expect(await row(s.id)).toEqual(before);
    expect(await eventsOf('coding.completed', s.id)).toMatchObject([{ status: 'completed', outcome: 'completed' }]);
  }, 120_000);
});
