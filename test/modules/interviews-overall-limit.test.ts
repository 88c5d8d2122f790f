import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobHandlers } from '../../src/modules/jobs.js';
import type { Harness, Org } from '../helpers/harness.js';
import { ORIGIN } from '../helpers/client.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';
import { settleJobs } from '../helpers/settle.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
const key = () => org.keys.secret_test;
beforeAll(async () => { ({ h, kit, org } = await interviewSuite()); });
afterAll(async () => { await h?.close(); });

// An interview is over twice its length and a pause's limit (30 minutes) after its first join, however it was paused
// (docs/interviews.md). Test mode: five minutes, so 40 minutes after the join.
describe('interview clock across pauses', () => {
  // Was a defect: a resume near the "twice its length plus 30 minutes" limit stamped a deadline past it, so the timer
  // promised minutes the interview did not have; the next read ended it as abandoned with the candidate in the room.
  it('a resume near the overall limit is timed to that limit: the timer never promises time past it', async () => {
    const i = await kit.create(key()); // test mode: five minutes, so the limit is 10 + 30 minutes after the join
    const join = async () => kit.join(await kit.token(key(), i.id), i.id);
    const call = async (method: 'GET' | 'POST', op: string) => kit.call(method, `/v1/interviews/${i.id}/${op}`, { token: await kit.token(key(), i.id) });
    const t0 = h.clock.now();
    await join();
    h.clock.set(t0 + 60_000);
    await call('POST', 'pause');
    h.clock.set(t0 + 30 * 60_000);
    await join();
    h.clock.set(t0 + 31 * 60_000);
    await call('POST', 'pause'); // two minutes used, three left
    h.clock.set(t0 + 38 * 60_000);
    const token = await kit.token(key(), i.id);
    const resumed = await kit.join(token, i.id);
    expect(resumed.status).toBe('in_progress');
    expect(resumed.clock.remaining_seconds).toBe(120); // to the limit, not the three minutes of the clock
    const row = await h.db.kysely.selectFrom('interviews').select(['deadline_at', 'status']).where('id', '=', i.id).executeTakeFirstOrThrow();
    // (The interviewer, told of the resume, may already be closing for time: a short time left is now known to it.)
    if (row.status === 'in_progress') expect(row.deadline_at).toBe(t0 + 40 * 60_000);
    h.clock.set(t0 + 39 * 60_000);
    const timer = (await kit.call('GET', `/v1/interviews/${i.id}/timer`, { token })).body;
    expect(timer.remaining_seconds).toBeLessThanOrEqual(60);
    h.clock.set(t0 + 40 * 60_000 + 1000);
    await settleJobs(h, ['interview.timeout'], 'the limit');
    const ended = await kit.client.ok('GET', `/v1/interviews/${i.id}`, { key: key() }, 200);
    // Its time ran out at the limit with the candidate in the room (time up, at the limit, not when it was noticed),
    // unless the interviewer closed first.
    expect(['time_up', 'interviewer']).toContain(ended.end_reason);
    // The interviewer's own closing, under load, may land after the clock was moved past the limit (1 s).
    const by = ended.end_reason === 'time_up' ? t0 + 40 * 60_000 : t0 + 40 * 60_000 + 1000;
    expect(ended.ended_at).toBeLessThanOrEqual(Math.floor(by / 1000));
  });
});

describe('interview overall limit, paused', () => {
  it('the sweep ends an interview paused past its overall limit, however recent the pause', async () => {
    const i = await kit.create(key());
    const join = async () => kit.join(await kit.token(key(), i.id), i.id);
    const pause = async () => kit.call('POST', `/v1/interviews/${i.id}/pause`, { token: await kit.token(key(), i.id) });
    const t0 = h.clock.now();
    await join();
    h.clock.set(t0 + 60_000);
    await pause();
    h.clock.set(t0 + 30 * 60_000);
    await join();
    h.clock.set(t0 + 30.5 * 60_000);
    await pause();
    h.clock.set(t0 + 38 * 60_000);
    await join();
    h.clock.set(t0 + 38.5 * 60_000);
    await pause(); // a minute and a half before the overall limit, long before this pause's own
    h.clock.set(t0 + 40 * 60_000 + 1000);
    const sweep = jobHandlers(h.services, h.modules).find((x) => x.kind === 'interview.sweep')!;
    await sweep.run({}, {} as never);
    const row = await h.db.kysely.selectFrom('interviews').select(['status', 'end_reason']).where('id', '=', i.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'ended', end_reason: 'abandoned' });
  });
});

describe('an interview over by its pause, before the sweep has come by', () => {
  // Was a defect: candidate access read a paused interview past its pause's limit (or past the overall limit) as open,
  // so new session tokens were minted for it until the sweep (or a read) ended it.
  it('mints no session token for it: session_already_finalized, as for one that ran out of time', async () => {
    const i = await kit.create(key());
    await kit.join(await kit.token(key(), i.id), i.id);
    await kit.call('POST', `/v1/interviews/${i.id}/pause`, { token: await kit.token(key(), i.id) });
    h.clock.advance(30 * 60_000 + 1000);
    const mint = await kit.call('POST', '/v1/sessions', { key: key(), body: { origin: ORIGIN, interview_id: i.id } });
    expect(mint.body.error?.code, mint.raw).toBe('session_already_finalized');
  });
});
