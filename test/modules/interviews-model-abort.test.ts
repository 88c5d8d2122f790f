import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, planned, type ChannelClient, type InterviewKit } from '../helpers/interviews.js';

let model: FakeModel;
let h: Harness;
let kit: InterviewKit;
let org: Org;
const key = () => org.keys.secret_test;

beforeAll(async () => {
  model = await startFakeModel(planned);
  // One model slot in this process (PREP_MODEL_CONCURRENCY): a turn held for a candidate who left blocks every other.
  ({ h, kit, org } = await interviewSuite({ ...model.env, PREP_RATE_LIMIT_MODEL: '100000', PREP_MODEL_CONCURRENCY: '1' }));
});
afterAll(async () => {
  await h.close();
  await model.close();
});

/** Polls `test` (no fixed sleep); 10 s is far under the 20 s turn limit that would abort a held call on the old code too. */
async function until(test: () => boolean, what: string, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !test();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const storedTurns = (interviewId: string) => h.db.kysely.selectFrom('interview_turns').select(['seq', 'speaker', 'text']).where('interview_id', '=', interviewId)
  .orderBy('seq').execute();

/** Sends an answer and waits until it is stored (the channel sends it back with its id). */
async function answered(channel: ChannelClient, id: string, text: string) {
  channel.send({ type: 'answer', id, text });
  return channel.until(() => channel.turns.find((t) => t.client_id === id), `the stored answer ${id}`);
}

describe('a candidate who leaves while the model words the interviewer\'s turn', () => {
  afterAll(() => {
    model.holding = false;
    model.release();
  });

  it('has the model\'s request aborted, its slot going at once to another interview\'s turn; the turn is said on reconnect', async () => {
    const a = await kit.started(key());
    const b = await kit.started(key());
    const requestsBefore = model.requests.length;
    const abortedBefore = model.aborted;
    model.holding = true; // the model is slow: nothing comes back until released

    const mine = await answered(a.channel, 'a-1', 'At my last job I rebuilt our on-call rotation because pages woke the same two people.');
    await until(() => model.held === 1, 'interview A\'s turn to reach the model'); // A's call holds the only slot
    // B's turn waits for that slot (5 s at most, then the built-in words would be said instead).
    const theirs = await answered(b.channel, 'b-1', 'I led the migration of our billing service and wrote the rollout plan myself.');

    a.channel.socket.terminate(); // A's network drops mid-turn
    await until(() => model.aborted === abortedBefore + 1, 'the model to see A\'s request aborted');
    await until(() => model.requests.length === requestsBefore + 2 && model.held === 1, 'interview B\'s turn to reach the model');
    model.holding = false;
    model.release();
    const reply = await b.channel.interviewerTurn(theirs.seq, 15_000);
    expect(reply.text.startsWith('(model) ')).toBe(true); // B got the slot in time: the model worded its turn
    expect(b.channel.messages.some((m) => m.type === 'turn.discard')).toBe(false);

    // Nothing was stored for A's abandoned turn: the candidate's answer is the last turn, the interviewer's reply owed.
    const before = await storedTurns(a.interview.id);
    expect(before.at(-1)).toMatchObject({ seq: mine.seq, speaker: 'candidate' });
    const again = await kit.connect(a.token, a.interview.id, { lastSeq: mine.seq });
    const owed = await again.interviewerTurn(mine.seq, 15_000);
    expect(owed).toMatchObject({ seq: mine.seq + 1, speaker: 'interviewer' });
    expect(owed.text.startsWith('(model) ')).toBe(true);
    const after = await storedTurns(a.interview.id);
    expect(after.map((t) => t.seq)).toEqual([...before.map((t) => t.seq), mine.seq + 1]);
    // The reconnected room can answer on: the interview goes on from the owed turn.
    const next = await again.answer('The result was a 40% drop in pages within a month.');
    expect(next.seq).toBe(mine.seq + 3);
    await again.close();
    await b.channel.close();
  }, 60_000);

  it('leaves an answer queued behind the abandoned turn unstored: the room resends it, and every answer gets its reply', async () => {
    const { interview, token, channel } = await kit.started(key());
    const abortedBefore = model.aborted;
    model.holding = true;
    const first = await answered(channel, 'q-1', 'I was responsible for the on-call rotation and I redesigned it with the team.');
    await until(() => model.held === 1, 'the reply to reach the model');
    channel.send({ type: 'answer', id: 'q-2', text: 'The result was a 40% drop in pages within a month.' });
    const seen = channel.messages.length;
    channel.send({ type: 'ping' });
    await channel.next('pong', seen); // messages are handled in order: q-2 waits behind the first answer's reply
    channel.socket.terminate();
    await until(() => model.aborted === abortedBefore + 1, 'the model to see the request aborted');
    model.holding = false;
    // The next connection's turn is queued behind q-2's: once its reply is here, q-2 has been dealt with.
    const again = await kit.connect(token, interview.id, { lastSeq: first.seq });
    const owed = await again.interviewerTurn(first.seq, 15_000);
    expect(owed.seq).toBe(first.seq + 1); // the reply to q-1, not to q-2 stored behind it
    const stored = await h.db.kysely.selectFrom('interview_turns').select(['seq', 'client_id']).where('interview_id', '=', interview.id)
      .where('seq', '>', first.seq).orderBy('seq').execute();
    expect(stored).toEqual([{ seq: first.seq + 1, client_id: null }]);
    const next = await again.answer('The result was a 40% drop in pages within a month.', 'q-2'); // the room's outbox resends it
    expect(next.seq).toBe(first.seq + 3);
    await again.close();
  }, 60_000);

  it('abandons the reaction to code shared over HTTP when the interview\'s channel closes, and has it said on reconnect', async () => {
    const { interview, token, channel } = await kit.started(key(), { round_type: 'live-coding' });
    const abortedBefore = model.aborted;
    model.holding = true;
    const shared = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'print(42)' } });
    await until(() => model.held === 1, 'the reaction to reach the model');
    await channel.close();
    await until(() => model.aborted === abortedBefore + 1, 'the model to see the reaction\'s request aborted');
    expect((await storedTurns(interview.id)).at(-1)).toMatchObject({ seq: shared.turn, speaker: 'candidate' });
    model.holding = false;
    const again = await kit.connect(token, interview.id, { lastSeq: shared.turn });
    const reaction = await again.interviewerTurn(shared.turn, 15_000);
    expect(reaction.seq).toBe(shared.turn + 1);
    expect(reaction.text.startsWith('(model) ')).toBe(true);
    await again.close();
  }, 60_000);

  it('has the opening abandoned when the candidate leaves while it is worded, and said on the next connection', async () => {
    const interview = await kit.create(key());
    const token = await kit.token(key(), interview.id);
    await kit.join(token, interview.id);
    const abortedBefore = model.aborted;
    model.holding = true;
    const first = await kit.connect(token, interview.id);
    await first.next('ready');
    await until(() => model.held === 1, 'the opening to reach the model');
    await first.close();
    await until(() => model.aborted === abortedBefore + 1, 'the model to see the opening\'s request aborted');
    expect(await storedTurns(interview.id)).toEqual([]);
    model.holding = false;
    const second = await kit.connect(token, interview.id);
    const opening = await second.interviewerTurn(0, 15_000);
    expect(opening).toMatchObject({ seq: 1, speaker: 'interviewer' });
    expect(opening.text.startsWith('(model) ')).toBe(true);
    expect((await storedTurns(interview.id)).map((t) => t.seq)).toEqual([1]);
    await second.close();
  }, 60_000);
});
