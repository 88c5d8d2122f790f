import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN } from '../helpers/client.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type InterviewKit } from '../helpers/interviews.js';
import { until } from '../helpers/processes.js';

let h: Harness;
let kit: InterviewKit;
let org: Org;
const key = () => org.keys.secret_test;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite());
});
afterAll(async () => {
  await h.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('review: the concurrent-interview limit under concurrent first joins', () => {
  it('never lets more interviews run at once than max_concurrent_interviews', async () => {
    const small = await kit.organization('Limit one');
    await h.db.kysely.updateTable('organizations').set({ max_concurrent_interviews: 1 }).where('id', '=', small.id).execute();
    const k = small.keys.secret_test;
    // Several rounds: each round two different interviews of the organisation are joined at the same moment.
    let over = 0;
    for (let round = 0; round < 5; round++) {
      const a = await kit.create(k);
      const b = await kit.create(k);
      const [ta, tb] = [await kit.token(k, a.id), await kit.token(k, b.id)];
      const answers = await Promise.all([
        kit.call('POST', `/v1/interviews/${a.id}/join`, { token: ta }),
        kit.call('POST', `/v1/interviews/${b.id}/join`, { token: tb }),
      ]);
      const joined = answers.filter((r) => r.status === 200).length;
      if (joined > 1) over++;
      // End whatever started, so the next round starts from zero running.
      for (const [id, t] of [[a.id, ta], [b.id, tb]] as const) await kit.call('POST', `/v1/interviews/${id}/end`, { token: t });
    }
    expect(over).toBe(0);
  });
});

describe('review: booking the last place of a slot twice at once', () => {
  it('never books more interviews into one window than max_concurrent_interviews', async () => {
    const small = await kit.organization('Book one');
    await h.db.kysely.updateTable('organizations').set({ max_concurrent_interviews: 1 }).where('id', '=', small.id).execute();
    const k = small.keys.secret_test;
    let over = 0;
    for (let round = 0; round < 5; round++) {
      const at = Math.floor(h.clock.now() / 1000) + 86_400 * (round + 1);
      const [c1, c2] = [await kit.client.candidate(k), await kit.client.candidate(k)];
      const answers = await Promise.all([c1, c2].map((candidate_id, i) => kit.call('POST', '/v1/interviews', {
        key: k, headers: { 'idempotency-key': `book-${round}-${i}-${Math.random()}` },
        body: { candidate_id, round_type: 'behavioral', difficulty: 3, role: 'Engineer', scheduled_at: at },
      })));
      if (answers.filter((r) => r.status === 201).length > 1) over++;
    }
    expect(over).toBe(0);
  });
});

describe('review: a socket that goes away while it authenticates', () => {
  it('is not left in the hub (with its 1-second tick running forever)', async () => {
    const interview = await kit.create(key());
    const token = await kit.token(key(), interview.id);
    await kit.join(token, interview.id);
    const before = h.modules.channelHub.size();
    const socket = new WebSocket(kit.channelUrl, { origin: ORIGIN });
    await new Promise<void>((resolve, reject) => { socket.once('open', () => resolve()); socket.once('error', reject); });
    socket.send(JSON.stringify({ type: 'auth', token, interview_id: interview.id, last_seq: 0 }));
    socket.terminate(); // the network drops right after the auth message
    await sleep(1500);
    expect(h.modules.channelHub.size()).toBe(before);
  });

  it('is not left in the hub when it goes away during the takeover ping (both engines)', async () => {
    const { interview, token, channel } = await kit.started(key());
    channel.socket.pause(); // the first tab stops reading: it will not answer the takeover ping
    const before = h.modules.channelHub.size();
    const first = h.modules.channelHub.connections.get(interview.id)!;
    const socket = new WebSocket(kit.channelUrl, { origin: ORIGIN });
    await new Promise<void>((resolve, reject) => { socket.once('open', () => resolve()); socket.once('error', reject); });
    socket.send(JSON.stringify({ type: 'auth', token, interview_id: interview.id, last_seq: 0 }));
    await sleep(500); // the server is now waiting (2 s) for the first tab's pong
    socket.terminate(); // and the second tab goes away meanwhile
    // The takeover terminates the first tab once its ping goes unanswered (2 s); a second tab registered by mistake
    // would be in the hub by then (it is set right after the terminate, the first tab leaves on its close after).
    await until(() => first.socket.readyState === WebSocket.CLOSED, 30_000);
    // The first tab was terminated by the takeover; the second is closed: nothing should be registered any more.
    const entry = h.modules.channelHub.connections.get(interview.id);
    expect(entry?.socket.readyState === WebSocket.OPEN || entry === undefined).toBe(true);
    expect(h.modules.channelHub.size()).toBe(before - 1);
  });

  it('handles an answer sent right behind auth once the auth is checked, and leaves nothing in the hub after the close', async () => {
    const interview = await kit.create(key());
    const token = await kit.token(key(), interview.id);
    await kit.join(token, interview.id);
    const before = h.modules.channelHub.size();
    const channel = await kit.connect(token, interview.id, { auth: false });
    channel.send({ type: 'auth', token, interview_id: interview.id, last_seq: 0 });
    channel.send({ type: 'answer', id: 'resent', text: 'The answer the client had not seen acknowledged.' });
    const mine = await channel.until(() => channel.turns.find((t) => t.client_id === 'resent'), 'the early answer, stored');
    await channel.interviewerTurn(mine.seq);
    expect(channel.closed).toBeNull();
    await channel.close();
    await until(() => h.modules.channelHub.size() === before, 10_000); // the server sees the close after the client
    expect(h.modules.channelHub.size()).toBe(before);
  });
});

