import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, testClient } from '../helpers/client.js';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { ChannelClient } from '../helpers/interviews.js';
import { startServe, type ServeProcess } from '../helpers/processes.js';

let model: FakeModel;
let h: Harness;
const servers: ServeProcess[] = [];

beforeAll(async () => {
  model = await startFakeModel(() => 'Thank you. Could you tell me what the outcome was, and how you measured it?');
  h = await startHarness({ env: model.env });
});
afterAll(async () => {
  for (const s of servers) s.child.kill('SIGKILL');
  await h.close();
  await model.close();
});

async function connect(url: string, token: string, interviewId: string, lastSeq: number): Promise<ChannelClient> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/interview-channel`, { origin: ORIGIN });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const channel = new ChannelClient(socket);
  channel.send({ type: 'auth', token, interview_id: interviewId, last_seq: lastSeq });
  await channel.next('ready');
  return channel;
}

describe('a server killed in the middle of an interview', () => {
  it('keeps every turn already said; the candidate reconnects to another server, gets the reply owed, and the interview completes', async () => {
    h.clock.set(Date.now()); // the server processes run on the system clock
    const env = { ...h.env, ...model.env };
    const first = await startServe(env, []);
    servers.push(first);
    const api = testClient(h, { baseUrl: first.url });
    const key = h.org.keys.secret_test;
    const candidate = await api.candidate(key);
    const interview = await api.ok('POST', '/v1/interviews', { key, body: { candidate_id: candidate, round_type: 'behavioral', difficulty: 3, role: 'Support Lead' } });
    await api.allowOrigin(key);
    const token = (await api.ok('POST', '/v1/sessions', { key, body: { origin: ORIGIN, interview_id: interview.id } })).session_token as string;
    await api.ok('POST', `/v1/interviews/${interview.id}/join`, { token }, 200);

    const channel = await connect(first.url, token, interview.id, 0);
    await channel.interviewerTurn(0);
    await channel.answer('At my last job the support queue doubled in a month, and I was asked to bring response times back under a day.');
    // The next answer is stored, and the model holds its reply: the server dies before the interviewer speaks.
    model.holding = true;
    channel.send({ type: 'answer', id: 'last-words', text: 'I split the queue by product and trained two people on billing questions.' });
    await channel.until(() => channel.turns.find((t) => t.client_id === 'last-words'), 'the stored answer');
    first.child.kill('SIGKILL');
    await channel.until(() => channel.closed, 'the channel to drop');

    const stored = await h.db.kysely.selectFrom('interview_turns').select(['seq', 'speaker', 'text']).where('interview_id', '=', interview.id).orderBy('seq').execute();
    expect(stored.at(-1)).toMatchObject({ speaker: 'candidate', text: 'I split the queue by product and trained two people on billing questions.' });
    const kept = channel.lastSeq;
    expect(stored.at(-1)!.seq).toBe(kept);

    model.holding = false;
    model.release();
    const second = await startServe(env, []);
    servers.push(second);
    const again = await connect(second.url, token, interview.id, kept);
    const reply = await again.interviewerTurn(kept);
    expect(reply.seq).toBe(kept + 1);
    expect(again.turns.every((t) => t.seq > kept)).toBe(true);

    await again.answer('As a result the median first response fell from three days to six hours within six weeks, and satisfaction scores rose.');

    const api2 = testClient(h, { baseUrl: second.url });
    await api2.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    const deadline = Date.now() + 20_000;
    let status = '';
    while (Date.now() < deadline) {
      status = (await api2.ok('GET', `/v1/interviews/${interview.id}`, { key }, 200)).status;
      if (status === 'completed' || status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe('completed');
    const transcript = await api2.ok('GET', `/v1/interviews/${interview.id}/transcript`, { key }, 200);
    expect(transcript.turns.map((t: any) => t.seq)).toEqual(transcript.turns.map((_: unknown, i: number) => i + 1));
    expect(transcript.turns.filter((t: any) => t.text === 'I split the queue by product and trained two people on billing questions.')).toHaveLength(1);
    await again.close();
  });
});
