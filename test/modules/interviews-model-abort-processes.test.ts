import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app-types.js';
import { ORIGIN } from '../helpers/client.js';
import { startFakeModel, type FakeModel, type FakeModelRequest } from '../helpers/fake-model.js';
import type { Harness, Org } from '../helpers/harness.js';
import { ChannelClient, interviewSuite, type InterviewKit } from '../helpers/interviews.js';

// A turn abandoned because the channel that asked for it closed is owed; the next connection's catch-up says it. When
// that connection is on another server process and opened before the turn was owed (the candidate reconnected there
// while the old process still worked through the old channel's queued answers), no catch-up comes after it: the
// interview must not wait for ever.

let model: FakeModel;
/** The other process's model: a second server, so that its turns are not held with this one's. */
let otherModel: FakeModel;
let h: Harness;
let kit: InterviewKit;
let org: Org;
/** A second server process on the same database (in this process, with its own channel hub, conversation and model slots). */
let other: App;
let otherChannelUrl: string;

function reply(request: FakeModelRequest): string {
  const move = /<<<MOVE-\w+\n([\s\S]*)\nMOVE-\w+>>>/.exec(request.user)?.[1] ?? '';
  return `(model) ${move}`;
}

beforeAll(async () => {
  model = await startFakeModel(reply);
  otherModel = await startFakeModel(reply);
  ({ h, kit, org } = await interviewSuite({ ...model.env, PREP_RATE_LIMIT_MODEL: '100000' }));
  const config = { ...h.config, model: { ...h.config.model!, baseUrl: otherModel.env.PREP_MODEL_BASE_URL } };
  other = (await buildApp({ config, db: h.db, clock: h.clock, logger: false })).app;
  await other.listen({ port: 0, host: '127.0.0.1' });
  otherChannelUrl = `ws://127.0.0.1:${(other.server.address() as AddressInfo).port}/interview-channel`;
});
afterAll(async () => {
  model.holding = false;
  model.release();
  await other.close();
  await h.close();
  await model.close();
  await otherModel.close();
});

/** Polls `test` (no fixed sleep). */
async function until(test: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !test();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function connectToOther(token: string, interviewId: string, lastSeq: number): Promise<ChannelClient> {
  const socket = new WebSocket(otherChannelUrl, { origin: ORIGIN });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const channel = new ChannelClient(socket);
  channel.send({ type: 'auth', token, interview_id: interviewId, last_seq: lastSeq });
  return channel;
}

it('has the reply to an answer stored by the old process after the candidate reconnected to another said there', async () => {
  const { interview, token, channel: a } = await kit.started(org.keys.secret_test);
  model.holding = true; // this process's model is slow: nothing comes back until released
  a.send({ type: 'answer', id: 'p-1', text: 'I rebuilt our on-call rotation because pages woke the same two people.' });
  const first = await a.until(() => a.turns.find((t) => t.client_id === 'p-1'), 'the stored answer p-1');
  await until(() => model.held === 1, 'the reply to p-1 to reach this process\'s model');
  a.send({ type: 'answer', id: 'p-2', text: 'The result was a 40% drop in pages within a month.' });
  const seen = a.messages.length;
  a.send({ type: 'ping' });
  await a.next('pong', seen); // p-2 is handled: it waits behind the reply to p-1

  // The candidate's network moves: the room reconnects, to the other process, which says the reply to p-1 (owed).
  const b = await connectToOther(token, interview.id, first.seq);
  const replyToFirst = await b.interviewerTurn(first.seq, 15_000);
  expect(replyToFirst.seq).toBe(first.seq + 1);
  // This process's reply to p-1 comes too late (the other one's is stored); p-2 is stored, its reply asked of the model.
  model.release();
  await until(() => model.held === 1 && model.requests.length >= 3, 'the reply to p-2 to reach this process\'s model');
  // The old connection is found dead now (a heartbeat): the reply to p-2 is abandoned, owed.
  a.socket.terminate();
  await until(() => model.aborted === 1, 'the model to see the reply to p-2 aborted');
  model.holding = false;

  const second = await b.until(() => b.turns.find((t) => t.client_id === 'p-2'), 'p-2, stored by the first process', 15_000);
  expect(second.seq).toBe(first.seq + 2);
  // Long after any turn could still be under way (the 5 s wait for a slot and the 20 s turn limit), the reply is said.
  h.clock.advance(120_000);
  const owed = await b.interviewerTurn(second.seq, 15_000);
  expect(owed).toMatchObject({ seq: second.seq + 1, speaker: 'interviewer' });
  const stored = await h.db.kysely.selectFrom('interview_turns').select(['seq', 'speaker']).where('interview_id', '=', interview.id)
    .where('seq', '>', first.seq).orderBy('seq').execute();
  expect(stored).toEqual([
    { seq: first.seq + 1, speaker: 'interviewer' }, { seq: first.seq + 2, speaker: 'candidate' }, { seq: first.seq + 3, speaker: 'interviewer' },
  ]);
  await b.close();
}, 60_000);
