import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewSuite, type ChannelClient, type InterviewKit } from '../helpers/interviews.js';
import { settleJobs } from '../helpers/settle.js';

let h: Harness;
let kit: InterviewKit;
/** An organisation with credits for every interview the file joins. */
let org: Org;
const key = () => org.keys.secret_test;

beforeAll(async () => {
  ({ h, kit, org } = await interviewSuite());
});
afterAll(async () => {
  await h.close();
});

/** A candidate who answers well for the round: situations, actions and results; or the design and code talk a technical round wants. */
const ANSWERS: Record<string, string[]> = {
  behavioral: [
    'At my last company our checkout service kept timing out during sales. I was the engineer responsible for its reliability, so I owned the fix.',
    'I profiled the service, found an unindexed query, added the index and a cache, and I wrote a runbook and an alert so the team would see it early.',
    'As a result, timeouts dropped from 4% to 0.1% and revenue during the next sale rose 12%. I learned to measure before guessing.',
    'I would involve the on-call team earlier next time, because they knew the failure patterns better than I did.',
  ],
  'system-design': [
    'First the requirements: users create short links and resolve them; reads dominate, about 100 to 1 over writes, and links never change.',
    'For scale, assume 100 million new links a month, around 40 writes per second and 4,000 reads per second at peak, a few terabytes of storage over five years.',
    'The data model is a key-value table from short code to URL, partitioned by the code, with a cache in front for the hot links.',
    'The trade-off is consistency versus availability: I would pick availability, since a stale read of a link is harmless, and accept eventual consistency across regions.',
    'For failure, replicate each partition three ways, fail over automatically, retry idempotent writes with the same code, and degrade to read-only if the primary is down.',
  ],
  'live-coding': [
    'My approach is breadth-first search from the first node with an adjacency list, marking distances as I enqueue each node.',
    'The time complexity is O(n + m) and the space is O(n + m) for the adjacency list and the queue.',
    'I would test the empty graph, a single node, unreachable nodes and duplicate edges, and an example with a cycle.',
  ],
  'frontend-engineering': [
    'I would render the list with a virtualised window so only the visible rows are in the DOM, and memoise each row component.',
    'For accessibility every control gets a label, focus moves predictably, and I would test it with a screen reader and the keyboard only.',
    'To measure it I would profile in the browser, watch the interaction-to-next-paint metric, and add a performance budget to CI.',
  ],
  'machine-learning': [
    'I would frame it as a binary classification problem, with a time-based split so no information from the future leaks into training.',
    'For evaluation I would use precision and recall at the operating threshold rather than accuracy, because the classes are imbalanced.',
    'In production I would monitor feature drift and the prediction distribution, and retrain when the live precision drops below target.',
  ],
  'product-sense': [
    'First I would clarify the users: small shop owners who need to reorder stock; their main pain is running out of best sellers.',
    'I would prioritise a low-stock alert over a full forecasting tool, because it solves the most painful problem with the least effort.',
    'Success means fewer stock-outs per shop per month; I would also track alert open rates and make sure we do not spam them.',
  ],
  'hiring-manager-screen': [
    'I am looking for a team where I can own a product area end to end; in my current role I led the billing rewrite and want more of that.',
    'In five years I want to be a senior engineer mentoring others; last year I mentored two juniors and one of them now leads a project.',
    'What I need from a manager is clear goals and honest feedback; my best manager gave me both and I grew faster because of it.',
  ],
  'data-sql': [
    'I would join orders to customers on customer_id, group by the signup month and count distinct customers with an order in each later month.',
    'A window function over the month partitions gives the retention rate; I would index the order date and customer id to keep the scan cheap.',
    'To check it, I would compare the totals with a simple count per month and test the edge case of customers without orders.',
  ],
};

async function converse(channel: ChannelClient, answers: string[], interviewId: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const row = await h.db.kysely.selectFrom('interviews').select('status').where('id', '=', interviewId).executeTakeFirstOrThrow();
    if (row.status !== 'in_progress') return;
    h.clock.advance(20_000);
    const reply = await channel.answer(answers[i % answers.length], `a-${i}`);
    expect(reply.text.length).toBeGreaterThan(0);
  }
  throw new Error('the interviewer never closed');
}

describe('whole interviews with the built-in interviewer', () => {
  for (const round of Object.keys(ANSWERS)) {
    it(`${round}: asks, probes, closes; then a transcript, a report with evidence, and every event once, in order`, async () => {
      const { interview, token, channel, opening } = await kit.started(key(), { round_type: round, difficulty: 3 });
      expect(opening.text.length).toBeGreaterThan(40);
      if (round === 'live-coding') {
        const code = await kit.client.ok('POST', `/v1/interviews/${interview.id}/code`, { token, body: { language: 'python', source: 'print(sum(range(10)))', run: true } });
        expect(code.run).toMatchObject({ status: 'ok', exit_code: 0, stdout: '45\n' });
        await channel.until(() => channel.turns.find((t) => t.kind === 'code'), 'the code turn');
      }
      await converse(channel, ANSWERS[round], interview.id);
      await channel.next('ended');
      await settleJobs(h, ['interview.process'], 'processing');

      const done = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key: key() }, 200);
      expect(done).toMatchObject({ status: 'completed', status_code: 40, end_reason: 'interviewer' });
      expect(done.overall_score).toBeGreaterThanOrEqual(0);

      const transcript = await kit.client.ok('GET', `/v1/interviews/${interview.id}/transcript`, { key: key() }, 200);
      expect(transcript.turns.map((t: any) => t.seq)).toEqual(transcript.turns.map((_: unknown, i: number) => i + 1));
      expect(transcript.turns.filter((t: any) => t.speaker === 'candidate').length).toBeGreaterThanOrEqual(3);

      const report = await kit.client.ok('GET', `/v1/interviews/${interview.id}/report`, { key: key() }, 200);
      expect(report).toMatchObject({ object: 'interview_report', status: 'completed', scored: true, overall_score: done.overall_score });
      expect(report.competencies.length).toBeGreaterThanOrEqual(3);
      const bySeq = new Map(transcript.turns.map((t: any) => [t.seq, t]));
      // A test-mode screen (five minutes) asks only its opening question, why this role: a view, not a story, so
      // the STAR competencies have nothing to rate (they were rated 1 to 5 from the view as if it were a story).
      const unrated = round === 'hiring-manager-screen' ? ['track_record', 'ownership'] : [];
      expect(report.competencies.filter((c: any) => c.rating === null).map((c: any) => c.slug)).toEqual(unrated);
      for (const c of report.competencies.filter((x: any) => x.rating !== null)) {
        expect(c.rating).toBeGreaterThanOrEqual(1);
        expect(c.rating).toBeLessThanOrEqual(5);
        for (const e of c.evidence) {
          const turn = bySeq.get(e.turn) as any;
          expect(turn.speaker).toBe('candidate');
          for (const piece of e.quote.split('…').map((p: string) => p.trim()).filter(Boolean)) expect(turn.text).toContain(piece);
        }
      }

      // Event ids sort, as plain strings, in the order the events were emitted.
      const events = (await h.db.kysely.selectFrom('events').select(['id', 'type', 'payload']).execute()).sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((e) => ({ type: e.type, object: JSON.parse(e.payload).data.object }))
        .filter((e) => (e.object.id ?? e.object.interview_id) === interview.id).map((e) => e.type);
      expect(events).toEqual(['interview.created', 'interview.started', 'interview.ended', 'interview.completed', 'interview.transcript_available', 'interview.summary_available']);
      const completed = await h.db.kysely.selectFrom('events').select('payload').where('type', '=', 'interview.completed').execute();
      const mine = completed.map((e) => JSON.parse(e.payload).data.object).find((o) => o.id === interview.id);
      // The contract's shape, sent as the room closes: processing under way (30), the score 0 until the report exists.
      expect(mine).toEqual({ id: interview.id, status: 30, overall_score: 0 });
      const summary = (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', 'interview.summary_available').execute())
        .map((e) => JSON.parse(e.payload).data.object).find((o) => o.interview_id === interview.id);
      expect(summary).toMatchObject({ status: 'completed', overall_score: done.overall_score });

      await settleJobs(h, ['interview.process'], 'processing again'); // nothing more happens
      expect((await h.db.kysely.selectFrom('events').select('id').where('type', 'like', 'interview.%').execute()).length).toBeGreaterThan(0);
    });
  }
});

describe('the transcript guard', () => {
  it('refuses to score noise: the interview fails with the reason and no score', async () => {
    const { interview, token, channel } = await kit.started(key());
    for (let i = 0; i < 4; i++) await channel.answer('asdf qwer zxcv jkl;', `noise-${i}`);
    await kit.client.ok('POST', `/v1/interviews/${interview.id}/end`, { token }, 200);
    await settleJobs(h, ['interview.process'], 'processing');
    const done = await kit.client.ok('GET', `/v1/interviews/${interview.id}`, { key: key() }, 200);
    expect(done).toMatchObject({ status: 'failed', status_code: 50, overall_score: null });
    expect(['garbled', 'repetitive', 'too_short']).toContain(done.failure_reason);
    const report = await kit.client.ok('GET', `/v1/interviews/${interview.id}/report`, { key: key() }, 200);
    expect(report).toMatchObject({ scored: false, overall_score: null, quality: { ok: false } });
    const completed = (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', 'interview.completed').execute())
      .map((e) => JSON.parse(e.payload).data.object).find((o) => o.id === interview.id);
    expect(completed).toEqual({ id: interview.id, status: 30, overall_score: 0 });
  });

  it('has no transcript or report before processing', async () => {
    const { interview, channel } = await kit.started(key());
    await channel.close();
    const t = await kit.call('GET', `/v1/interviews/${interview.id}/transcript`, { key: key() });
    expect([t.status, t.body.error.code]).toEqual([400, 'transcript_not_ready']);
    const r = await kit.call('GET', `/v1/interviews/${interview.id}/report`, { key: key() });
    expect([r.status, r.body.error.code]).toEqual([400, 'report_not_ready']);
    const rec = await kit.call('GET', `/v1/interviews/${interview.id}/recording-url`, { key: key() });
    expect([rec.status, rec.body.error.code]).toEqual([404, 'recording_not_ready']);
  });
});
