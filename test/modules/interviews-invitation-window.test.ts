import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';
import { settleJobs } from '../helpers/settle.js';

let h: Harness;
let kit: InterviewKit;
let smtp: SMTPServer;
let org: Org;
const mails: Array<{ to: string[]; raw: string }> = [];
const live = () => org.keys.secret_live;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'], logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (d) => (raw += d));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  const port = (smtp.server.address() as AddressInfo).port;
  ({ h, kit, org } = await interviewSuite({ PREP_SMTP_URL: `smtp://127.0.0.1:${port}`, PREP_SMTP_FROM: 'Acme Hiring <hiring@acme.test>' }));
});
afterAll(async () => {
  await h.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

describe('review: the invitation to an interview booked more than 7 days ahead', () => {
  it('carries a link that still opens the room at the booked time (it lapsed 7 days after creation)', async () => {
    const candidate = await kit.client.candidate(live(), { email: 'booked@example.com', name: 'Booked Ahead' });
    const scheduledAt = Math.floor(h.clock.now() / 1000) + 30 * 86_400;
    const interview = await kit.create(live(), { send_invitation: true, scheduled_at: scheduledAt }, candidate);
    expect(interview.invitation).toMatchObject({ status: 'queued' });
    await settleJobs(h, ['interview.invite'], 'the invitation');
    const mail = mails.find((m) => m.to.includes('booked@example.com'))!;
    expect(mail).toBeDefined();
    const link = /http:\/\/localhost:8080\/launch#token=[0-9A-Za-z]+/.exec(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
    expect(link).not.toBeNull();
    // The candidate opens it at the booked time, as the message says they may.
    expect(h.clock.now()).toBeLessThanOrEqual(scheduledAt * 1000);
    h.clock.set(scheduledAt * 1000);
    const exchanged = await kit.call('POST', '/v1/launch/exchange', { body: { token: link![0].split('token=')[1] }, origin: 'http://localhost:8080' });
    expect(exchanged.status, exchanged.raw).toBe(201);
  });
});

describe('review: an invitation still queued when its interview is cancelled', () => {
  // Was a bug: it read `queued` for ever (its job sends to scheduled interviews only, and wrote nothing).
  it('reads not_sent, interview_closed, and nothing is sent', async () => {
    const candidate = await kit.client.candidate(live(), { email: 'cancelled@example.com', name: 'Called Off' });
    const scheduledAt = Math.floor(h.clock.now() / 1000) + 20 * 86_400;
    const interview = await kit.create(live(), { send_invitation: true, scheduled_at: scheduledAt }, candidate);
    expect(interview.invitation).toMatchObject({ status: 'queued', reason: null });
    expect((await kit.call('POST', `/v1/interviews/${interview.id}/cancel`, { key: live() })).status).toBe(200);
    const read = (await kit.call('GET', `/v1/interviews/${interview.id}`, { key: live() })).body;
    expect(read.invitation).toMatchObject({ status: 'not_sent', reason: 'interview_closed', sent_at: null });
    h.clock.set((scheduledAt - 7 * 86_400) * 1000);
    await settleJobs(h, ['interview.invite'], 'the invitation');
    expect(mails.some((m) => m.to.includes('cancelled@example.com'))).toBe(false);
    expect((await kit.call('GET', `/v1/interviews/${interview.id}`, { key: live() })).body.invitation).toMatchObject({ status: 'not_sent', reason: 'interview_closed' });
  });
});
