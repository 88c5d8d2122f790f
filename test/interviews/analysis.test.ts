import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  analyseCodingTalk, analyseDesign, analyseStar, coverKeyPoints, DESIGN_PHASES, excerpt, POINT_COVERED_THRESHOLD, promptRequests,
  terms, words, type Evidence,
} from '../../src/modules/interviews/interviewer/analysis.js';
import type { Turn } from '../../src/modules/interviews/interviewer/types.js';

/** Candidate turns, one per text, seq from 1 (an interviewer turn in between when asked for). */
function said(...texts: string[]): Turn[] {
  return texts.map((text, i) => ({ seq: i + 1, speaker: 'candidate', kind: 'text', text, questionPosition: 0, atMs: i * 1000, code: null }));
}

/** An evidence quote is verbatim: without its ellipses, a substring of the turn it names; at most 200 characters. */
function expectVerbatim(evidence: Evidence | null, turns: Turn[]): void {
  expect(evidence).not.toBeNull();
  const turn = turns.find((t) => t.seq === evidence!.seq)!;
  expect(evidence!.quote.length).toBeLessThanOrEqual(200);
  expect(turn.text).toContain(evidence!.quote.replace(/^…/, '').replace(/…$/, ''));
}

const bank = (file: string) => JSON.parse(readFileSync(new URL(`../../catalog/question-bank/questions/${file}.json`, import.meta.url), 'utf8')) as Array<{
  slug: string; prompt: string; guidance: { key_points: string[]; follow_ups: string[] };
}>;
const ferry = bank('coding').find((q) => q.slug === 'ferry-hop-distances')!;

describe('words and terms', () => {
  it('tokenises unicode words and digits, lower-cased', () => {
    expect(words('Café naïve — O(n) in 42 ms; Zoë’s')).toEqual(['café', 'naïve', 'o', 'n', 'in', '42', 'ms', 'zoë', 's']);
  });

  it('folds synonyms and complexity notation and drops grader verbs', () => {
    expect(terms('Recognises it and uses breadth-first search')).toEqual(['bfs']);
    expect(terms('I would run a BFS')).toContain('bfs');
    expect(terms('O(n + m) time')).toEqual(expect.arrayContaining(['linear', 'complexity']));
    expect(terms('it runs in linear time')).toEqual(expect.arrayContaining(['linear', 'complexity']));
    expect(terms('O(n log n)')).toContain('nlogn');
    expect(terms('routes are two-way')).toEqual(terms('each route goes in both directions').filter((t) => t !== 'goe'));
  });
});

describe('excerpt', () => {
  it('keeps short spans whole and cuts long ones at word boundaries with ellipses', () => {
    const text = `${'lorem ipsum dolor '.repeat(20)}the important bit is here ${'sit amet consectetur '.repeat(20)}`;
    const quote = excerpt(text, 0, text.length, text.indexOf('important'));
    expect(quote.length).toBeLessThanOrEqual(200);
    expect(quote.startsWith('…') && quote.endsWith('…')).toBe(true);
    expect(quote).toContain('important');
    expect(text).toContain(quote.slice(1, -1));
    expect(excerpt('  short one  ', 0, 13)).toBe('short one');
  });
});

describe('analyseStar', () => {
  it('finds all four parts of a complete story, owned by the speaker', () => {
    const turns = said('At my last job the checkout service kept timing out during sales. I was responsible for the payments integration, so I needed to fix it before Black Friday. I profiled the service, found an N+1 query, and rewrote it as a single batched query. As a result p99 latency dropped from 2 seconds to 300 ms and we had no timeouts on Black Friday.');
    const star = analyseStar(turns);
    expect(star.missing).toEqual([]);
    expect(star.ownership).toBe('i');
    expect(star.situation!.quote).toMatch(/At my last job/);
    expect(star.task!.quote).toMatch(/I was responsible/);
    expect(star.action!.quote).toMatch(/I profiled/);
    expect(star.result!.quote).toMatch(/As a result/);
    for (const part of [star.situation, star.task, star.action, star.result]) expectVerbatim(part, turns);
  });

  it('reports a missing result', () => {
    const star = analyseStar(said('Last year our team was migrating to Kubernetes. My goal was to move the billing service without downtime. I wrote a migration plan, set up a canary deployment and talked to the on-call engineers about rollbacks.'));
    expect(star.missing).toEqual(['result']);
    expect(star.ownership).toBe('i');
  });

  it('tells "we" stories from "I" stories', () => {
    expect(analyseStar(said('We had an outage last year. We looked at the logs, we rolled back the deploy and then we wrote a postmortem.')).ownership).toBe('we');
    expect(analyseStar(said('We rolled back the deploy. I wrote the postmortem.')).ownership).toBe('mixed');
    expect(analyseStar(said('It was a hard project with lots of stakeholders.')).ownership).toBe('unclear');
  });

  // Was a bug: "I rolled back the deploy, wrote a script and added a test" counted one action of the candidate's, so a
  // story with two "we" sentences of setting and outcome read as "we" and the interviewer asked for the candidate's part.
  it('counts the actions that share one "I" ("I rolled back…, wrote… and added…")', () => {
    const text = 'At my last job we shipped a bug in the billing service. I rolled back the deploy, wrote a script to refund everyone and added a test. In the end we refunded 300 customers within a day.';
    expect(analyseStar(said(text)).ownership).not.toBe('we');
    expect(analyseStar(said('so at my last job we shipped a bug that double charged customers i rolled back the deploy then wrote a refund script and added a test in the end we refunded everyone')).ownership).not.toBe('we');
    // The team's own chain stays the team's.
    expect(analyseStar(said('We rolled back the deploy, wrote a script and added a test. I watched.')).ownership).toBe('we');
  });

  it('finds nothing in a non-answer, and ignores the interviewer', () => {
    const star = analyseStar([
      { seq: 1, speaker: 'interviewer', kind: 'text', text: 'At my last job I built a cache and as a result latency dropped 50%.', questionPosition: 0, atMs: 0, code: null },
      ...said('I don\'t know').map((t) => ({ ...t, seq: 2 })),
    ]);
    expect(star.missing).toEqual(['situation', 'task', 'action', 'result']);
    expect(star.ownership).toBe('unclear');
  });

  it('reads unpunctuated speech and stories told over several turns', () => {
    const speech = 'so basically at my old company we had this big problem with flaky tests and i was asked to fix it so i went through every test and i quarantined the flaky ones and i wrote a script to rerun them and in the end the build went from failing half the time to green 95 percent of the time';
    const star = analyseStar(said(speech));
    expect(star.missing).toEqual([]);
    expect(star.ownership).toBe('i');
    expect(star.action!.quote.length).toBeLessThan(speech.length);

    const turns = said('When I was at a small agency, a client site went down every Monday morning.', 'I traced it to a cron job, and I moved the job to Sunday night.', 'After that it never happened again, and the client renewed for two years.');
    const multi = analyseStar(turns);
    expect(multi.result!.seq).toBe(3);
    expect(multi.action!.seq).toBe(2);
    expectVerbatim(multi.result, turns);
  });

  // Was a bug: "in the end", "eventually", "at the end of the day" and any "feedback" were read as a result, so these
  // stories were not asked how they turned out, and filler rated as impact.
  it('reads "in the end" and "feedback" as a result only when an outcome is said', () => {
    for (const text of [
      'In the end, I am not really sure what happened with it.', 'In the end of 2022 our team was migrating the billing system.',
      'At the end of the day, it really depends on the team and the context.', 'Eventually I was asked to lead the migration myself.',
      'I got feedback from my manager that my code reviews were too harsh.', 'I asked the team for feedback on the design.',
      'The feedback was that my reviews came across as harsh.',
    ]) expect(analyseStar(said(text)).result, text).toBeNull();
    for (const text of [
      'In the end the team agreed to adopt my proposal.', 'In the end, the customer renewed the contract.', 'In the end it was fine I think.',
      'Ultimately, the migration finished on time.', 'The customer gave us really positive feedback.', 'The feedback was very positive.',
    ]) expect(analyseStar(said(text)).result, text).not.toBeNull();
  });

  it('accepts situational answers ("I would …") as actions', () => {
    expect(analyseStar(said('I would first talk to the colleague privately and then I would agree on a plan with the lead.')).action).not.toBeNull();
  });

  // Was a bug: "I would need to know more", "I'd rather not commit" read as actions told in the first person, so an
  // answer that only talked around the question rated 5 on ownership and was asked for the situation of its "story".
  it('does not read wishes and needs ("I would need…", "I\'d rather…") as actions', () => {
    for (const text of [
      'Honestly it really depends on the context, so I would need to know more before I could say.',
      'I think every situation is different, so I would rather not commit to one answer.',
      'I would want to understand the team first.', 'I\'d prefer to keep it general.', 'I would hope it works out.',
    ]) {
      const star = analyseStar(said(text));
      expect(star.action, text).toBeNull();
      expect(star.ownership, text).toBe('unclear');
    }
  });
});

describe('coverKeyPoints', () => {
  const good = said(
    'This is an unweighted shortest path problem, so I\'d run a breadth-first search from island 1.',
    'I\'d build an adjacency list, adding each route in both directions since routes are two-way, which is O(n + m).',
    'I initialise every distance to -1, and that doubles as the visited marker, so unreachable islands just stay -1. I set the distance when I push a node onto the queue, not when I pop it, so duplicate routes don\'t put an island in the queue twice.',
    'Overall it\'s O(n + m) time and memory; DFS wouldn\'t work because it doesn\'t find minimum ride counts. For edge cases, m = 0 and n = 1 just print 0, and I\'d use fast input reading since there are 10^5 lines.',
  );
  const vague = said('I think I would use some kind of graph algorithm to go through the islands and work out how far each one is, then print the numbers. It should be fast enough.');

  it('covers the BFS, adjacency and complexity points of a good answer to "ferry-hop-distances", quoting it', () => {
    const coverage = coverKeyPoints(ferry.guidance.key_points, good);
    expect(coverage.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const i of [0, 1, 4]) {
      expect(coverage[i].covered, ferry.guidance.key_points[i]).not.toBeNull();
      expectVerbatim(coverage[i].covered, good);
    }
    expect(coverage[0].covered!.quote).toMatch(/breadth-first/);
    expect(coverage[1].covered!.quote).toMatch(/adjacency/);
    expect(coverage.filter((c) => c.covered).length).toBeGreaterThanOrEqual(5);
    for (const c of coverage) expect(c.score).toBeGreaterThanOrEqual(0), expect(c.score).toBeLessThanOrEqual(1);
  });

  it('covers nothing of a vague answer', () => {
    const coverage = coverKeyPoints(ferry.guidance.key_points, vague);
    expect(coverage.filter((c) => c.covered)).toEqual([]);
    expect(Math.max(...coverage.map((c) => c.score))).toBeLessThan(POINT_COVERED_THRESHOLD);
  });

  it('matches abbreviations against the words they stand for', () => {
    const [bfs] = coverKeyPoints(['Uses breadth-first search on an unweighted graph.'], said('BFS, because the graph is unweighted.'));
    expect(bfs.covered).not.toBeNull();
  });

  // Was a bug: "feature" and "data" each matched the example list "(revert, feature flag, hotfix, data correction)",
  // so an answer naming no mitigation covered the point.
  it('takes an example in parentheses as named by its head word, not by the words that qualify it', () => {
    const points = ['Describes immediate mitigation (revert, feature flag, hotfix, data correction) and prioritises limiting user impact over a perfect fix.'];
    const [stray] = coverKeyPoints(points, said('My immediate priority was the impact on users: the feature had bad data.'));
    expect(stray.covered).toBeNull();
    const [named] = coverKeyPoints(points, said('My immediate priority was the impact on users, so I switched the flag off.'));
    expect(named.covered).not.toBeNull();
    expect(named.score).toBeGreaterThan(stray.score);
    // "testing" names "testing of critical paths"; an example list after "e.g." is prose, matched by any of its words.
    const [kept] = coverKeyPoints(['Describes what they did not compromise on (data integrity, security, testing of critical paths) and why.'], said('We did not compromise on testing the payment flow, because errors there reach the regulator.'));
    expect(kept.covered).not.toBeNull();
  });

  // Was a bug: taking out "(e.g. the user id)" joined "key" and "value" into one folded term the point's weights did not
  // know, so the point scored NaN (null in the report), was never covered, and rated coverage 1 (a customer's key points).
  it('scores a point whose example list sits inside a folded phrase', () => {
    const points = ['Key (e.g. the user id) value store for the sessions', 'Binary (iterative or recursive) search over the sorted array'];
    const coverage = coverKeyPoints(points, said('I would keep the sessions in a key value store, and find the slot by binary search over the sorted array.'));
    for (const c of coverage) {
      expect(Number.isFinite(c.score), c.point).toBe(true);
      expect(c.covered, c.point).not.toBeNull();
    }
    expect(coverKeyPoints(points, said('I have no idea, sorry, I would have to look that up somewhere first.')).every((c) => c.score === 0)).toBe(true);
  });

  it('answers empty for no points and scores zero with no answer', () => {
    expect(coverKeyPoints([], good)).toEqual([]);
    expect(coverKeyPoints(ferry.guidance.key_points, []).every((c) => c.score === 0 && c.covered === null)).toBe(true);
  });
});

describe('analyseDesign and analyseCodingTalk', () => {
  it('finds each design phase, and only those discussed', () => {
    const turns = said(
      'First let me clarify the requirements: users create short links and click them.',
      'At peak we have 20k clicks per second and 30 million links a month.',
      'I\'d store code to URL in a key-value store like DynamoDB with the code as the primary key.',
      'I\'d use 302 instead of 301 so clicks are counted.',
      'If a cache node fails we fall back to the database, which is replicated across zones.',
    );
    const all = analyseDesign(turns);
    for (const phase of DESIGN_PHASES) expectVerbatim(all[phase], turns);
    expect(all.scale!.seq).toBe(2);
    expect(all.failure!.seq).toBe(5);

    const partial = analyseDesign(said('Users create links and get redirected; that is the main use case. I would keep the links in a Postgres table indexed by code.'));
    expect(partial.requirements).not.toBeNull();
    expect(partial.data).not.toBeNull();
    expect(partial.scale).toBeNull();
    expect(partial.trade_offs).toBeNull();
    expect(partial.failure).toBeNull();
  });

  it('does not take "I\'d just start coding" for an approach', () => {
    for (const text of ['I don\'t know, I\'d just start coding.', 'I\'ll just try something and see.', 'no plan really']) expect(analyseCodingTalk(said(text)).approach, text).toBeNull();
    expect(analyseCodingTalk(said('I\'d start by sorting the intervals.')).approach).not.toBeNull();
  });

  // Was a bug: an algorithm over a data structure, said with a verb outside the short list ("model", "treat"), was not
  // an approach, and the interviewer asked for the approach the candidate had just given.
  it('takes an algorithm named with its data structure for an approach, however it is phrased', () => {
    for (const text of [
      'I\'d model the ferries as an undirected graph with an adjacency list and run a BFS from the start island, tracking distances in an array.',
      'treat it as a graph and bfs from island 1 keeping a dist array',
      'Sliding window over the array, with a hash map of the counts.',
    ]) expect(analyseCodingTalk(said(text)).approach, text).not.toBeNull();
    for (const text of ['It is a graph problem.', 'I have used a hash map before.']) expect(analyseCodingTalk(said(text)).approach, text).toBeNull();
  });

  it('finds approach, complexity and testing talk', () => {
    const talk = analyseCodingTalk(said('My approach is a BFS from island 1.', 'That is O(n + m) time.', 'I would test it with m = 0 and the example.'));
    expect(talk.approach!.seq).toBe(1);
    expect(talk.complexity!.seq).toBe(2);
    expect(talk.testing!.seq).toBe(3);
    expect(analyseCodingTalk(said('Okay, writing it now.'))).toEqual({ approach: null, complexity: null, testing: null });
  });
});

describe('promptRequests', () => {
  it('lists the explanations a prompt asks for, verbatim, without its code', () => {
    const vet = bank('sql-data').find((q) => q.slug === 'vet-clinic-monthly-appointment-outcomes-per-vet')!;
    const requests = promptRequests(vet.prompt);
    expect(requests).toContain('Explain where you put the date filter and why it matters.');
    expect(requests.some((r) => r.includes('```') || r.includes('INT PRIMARY KEY'))).toBe(false);
  });
});
