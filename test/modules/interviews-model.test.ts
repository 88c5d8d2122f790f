import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel, type FakeModelRequest } from '../helpers/fake-model.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, planned, type InterviewKit } from '../helpers/interviews.js';
import { settleJobs } from '../helpers/settle.js';
import { movesQuestion } from '../../src/modules/interviews/model-interviewer.js';

let model: FakeModel;
let h: Harness;
let kit: InterviewKit;
/** An organisation with credits for every interview the file joins. */
let org: Org;
const key = () => org.keys.secret_test;

/** The fake interviewer words the built-in move its own way; the fake assessor rates with one true quote and one invented. */
function reply(request: FakeModelRequest): string {
  if (request.system?.includes('assess a job interview transcript')) {
    const turns = [...request.user.matchAll(/\[(\d+)\] CANDIDATE: (.*)/g)];
    const [, seq, text] = turns[0];
    const slugs = [...request.user.matchAll(/^(\S+) — /gm)].map((m) => m[1]);
    return JSON.stringify({
      summary: 'A clear, specific candidate.',
      competencies: slugs.map((slug) => ({
        slug, rating: 4, rationale: 'Specific examples.',
        evidence: [{ turn: Number(seq), quote: text.slice(0, 30) }, { turn: Number(seq), quote: 'words the candidate never said' }],
      })),
    });
  }
  if (checkIn) return checkIn;
  return planned(request);
}

/** While set, the fake interviewer answers every move with this generic check-in, whatever the move asks. */
let checkIn: string | null = null;

beforeAll(async () => {
  model = await startFakeModel(reply);
  ({ h, kit, org } = await interviewSuite({ ...model.env, PREP_RATE_LIMIT_MODEL: '100000' }));
});
afterAll(async () => {
  await h.close();
  await model.close();
});

describe('an interviewer worded by a model', () => {
  it('streams the model\'s turns as they are produced, within the same plan, and stores each whole', async () => {
    const { channel, opening } = await kit.started(key());
    expect(opening.text.startsWith('(model) ')).toBe(true);
    const deltas = channel.messages.filter((m) => m.type === 'turn.delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.text).join('')).toBe(opening.text);
    const system = model.requests.at(-1)!.body.messages[0].content as string;
    expect(system).toContain('Guidance notes (for you only');
    expect(model.requests.at(-1)!.body).toMatchObject({ stream: true, temperature: 0 });
    const next = await channel.answer('At my last job I rebuilt our on-call rotation because pages were waking the same two people.');
    expect(next.text.startsWith('(model) ')).toBe(true);
    await channel.close();
  });

  it('hands the turn to the built-in interviewer when the model fails, before or during its reply, and the interview goes on', async () => {
    const { channel } = await kit.started(key());
    model.breakStream = true;
    const broken = await channel.answer('I was responsible for the migration and I wrote the plan myself.');
    model.breakStream = false;
    expect(broken.text.startsWith('(model)')).toBe(false);
    expect(channel.messages.some((m) => m.type === 'turn.discard')).toBe(true);
    model.failing = true;
    const down = await channel.answer('The result was a 40% drop in pages within a month.');
    model.failing = false;
    expect(down.text.startsWith('(model)')).toBe(false);
    const back = await channel.answer('Next time I would involve the team earlier.');
    expect(back.text.startsWith('(model) ')).toBe(true);
    const seqs = channel.turnSeqs;
    expect(new Set(seqs).size).toBe(seqs.length);
    await channel.close();
  });

  it('runs a whole interview worded by the model, to its closing and report', async () => {
    const { interview, channel } = await kit.started(key(), { round_type: 'system-design' });
    const answers = [
      'The requirements: users shorten links and follow them; reads dominate writes a hundred to one.',
      'At scale that is 40 writes and 4,000 reads a second, a few terabytes over five years.',
      'The data is a key-value table from code to URL, partitioned by code, with a cache in front.',
      'The trade-off is availability over consistency: a stale link read is harmless.',
      'For failure, three replicas per partition, automatic failover and idempotent retries.',
    ];
    for (let i = 0; i < 30; i++) {
      const row = await h.db.kysely.selectFrom('interviews').select('status').where('id', '=', interview.id).executeTakeFirstOrThrow();
      if (row.status !== 'in_progress') break;
      h.clock.advance(30_000);
      const reply = await channel.answer(answers[i % answers.length]);
      expect(reply.text.startsWith('(model) ')).toBe(true);
    }
    await channel.next('ended');
    await settleJobs(h, ['interview.process'], 'processing');
    const done = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key: key() }, 200);
    expect(done).toMatchObject({ status: 'completed', end_reason: 'interviewer' });
  });

  it('survives a reconnect in the middle of the model\'s turn: the reply arrives once, after the client\'s last turn', async () => {
    const { interview, token, channel } = await kit.started(key());
    model.holding = true;
    channel.send({ type: 'answer', id: 'mid-turn', text: 'I was responsible for the on-call rotation and I redesigned it.' });
    const mine = await channel.until(() => channel.turns.find((t) => t.client_id === 'mid-turn'), 'the stored answer');
    channel.socket.terminate(); // the network drops while the interviewer is still speaking
    const again = await kit.connect(token, interview.id, { lastSeq: mine.seq });
    await again.next('ready');
    model.holding = false;
    model.release();
    const reply = await again.interviewerTurn(mine.seq);
    expect(reply.seq).toBe(mine.seq + 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(again.turns.filter((t) => t.speaker === 'interviewer')).toHaveLength(1);
    const stored = await h.db.kysely.selectFrom('interview_turns').select('seq').where('interview_id', '=', interview.id).execute();
    expect(stored).toHaveLength(mine.seq + 1);
    await again.close();
  });

  // Was a bug: any question mark counted as the move's question, so a model that only checked in ("Great, thanks! Ready
  // for the next one?") had that stored as the interviewer's question: the candidate was never asked it.
  it('adds the move\'s question, once, to a model turn that only checks in, and the interview goes on', async () => {
    const { interview, channel } = await kit.started(key());
    checkIn = 'Great, thanks! Ready for the next one?';
    let reply;
    try {
      reply = await channel.answer('I was responsible for the migration and I wrote the plan myself.');
    } finally {
      checkIn = null;
    }
    const move = /<<<MOVE-\w+\n([\s\S]*)\nMOVE-\w+>>>/.exec(model.requests.at(-1)!.body.messages.at(-1).content as string)![1];
    const question = movesQuestion(move);
    expect(question).toMatch(/\?$/);
    expect(reply.text).toBe(`Great, thanks! Ready for the next one? ${question}`);
    // Streamed as it is stored: the check-in, then the question, each once.
    const discarded = new Set(channel.messages.filter((m) => m.type === 'turn.discard').map((m) => m.ref));
    const deltas = channel.messages.filter((m) => m.type === 'turn.delta' && String(m.ref).startsWith(`pending-${reply.seq}-`) && !discarded.has(m.ref));
    expect(deltas.map((d) => d.text).join('')).toBe(reply.text);
    const stored = await h.db.kysely.selectFrom('interview_turns').select(['seq', 'text']).where('interview_id', '=', interview.id)
      .where('seq', '=', reply.seq).executeTakeFirstOrThrow();
    expect(stored.text).toBe(reply.text);
    const next = await channel.answer('It turned out well: failed deploys fell from four a month to none, and I learned to measure first.');
    expect(next.text.startsWith('(model) ')).toBe(true);
    expect(next.seq).toBe(reply.seq + 2);
    await channel.close();
  });

  // Was a bug: a question worded without a question mark (a behavioural prompt, the opening's first question) was never
  // checked, so a model that replaced it with a check-in left the candidate without the question, unnoticed.
  it('adds a behavioural prompt the model replaced by a check-in, in the opening and when moving on', async () => {
    const first = 'Tell me about a time you disagreed with a teammate.';
    const second = 'Tell me about a time you had to learn a new tool in a hurry.';
    checkIn = 'Great, let\'s continue!';
    try {
      const { interview, channel, opening } = await kit.started(key(), { questions: [{ prompt: first }, { prompt: second }] });
      expect(opening.text).toBe(`Great, let's continue! ${first}`);
      const story = 'At my last job, my teammate and I disagreed about rewriting the billing service. I proposed fixing it in small '
        + 'steps, so I wrote a one-page comparison and ran a spike myself to show the risk. In the end we shipped the incremental fix '
        + 'in two weeks, and billing outages dropped from five a month to one.';
      const reply = await channel.answer(story);
      expect(model.requests.at(-1)!.body.messages.at(-1).content as string).toContain(second); // the move put the second question
      expect(reply.text).toBe(`Great, let's continue! ${second}`);
      // Streamed as it is stored: the check-in, then the prompt, each once.
      const discarded = new Set(channel.messages.filter((m) => m.type === 'turn.discard').map((m) => m.ref));
      const deltas = channel.messages.filter((m) => m.type === 'turn.delta' && String(m.ref).startsWith(`pending-${reply.seq}-`) && !discarded.has(m.ref));
      expect(deltas.map((d) => d.text).join('')).toBe(reply.text);
      const stored = await h.db.kysely.selectFrom('interview_turns').select(['seq', 'text']).where('interview_id', '=', interview.id)
        .orderBy('seq').execute();
      expect(stored.filter((t) => t.seq === opening.seq || t.seq === reply.seq).map((t) => t.text)).toEqual([opening.text, reply.text]);
      await channel.close();
    } finally {
      checkIn = null;
    }
  });

  it('adds the model\'s rubric assessment to the report, keeping only quotes the candidate really said', async () => {
    const { interview, token, channel } = await kit.started(key());
    for (const text of [
      'At my last company our deploys failed weekly. I was the engineer responsible for the release process and owned the fix.',
      'I wrote a checklist, automated the rollback, and I paired with each team to adopt it over two sprints.',
      'As a result failed deploys fell from four a month to none in the next quarter, and I learned to measure first.',
    ]) await channel.answer(text);
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    await settleJobs(h, ['interview.process'], 'processing');
    const report = await kit.client.ok('GET', `/v1/interviews/${interview.id}/report`, { key: key() }, 200);
    expect(report.method).toBe('built_in');
    expect(report.competencies.length).toBeGreaterThan(0);
    expect(report.model_assessment).toMatchObject({ status: 'assessed', model: 'reviewer-1' });
    expect(report.model_assessment.quotes_dropped).toBe(report.model_assessment.competencies.length);
    for (const c of report.model_assessment.competencies) expect(c.evidence).toHaveLength(1);
  });
});
