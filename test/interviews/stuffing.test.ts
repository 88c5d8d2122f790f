import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRoundMethods } from '../../src/modules/interviews/interviewer/method.js';
import { stuffedAnswers, stuffing } from '../../src/modules/interviews/interviewer/quality.js';
import type { Turn } from '../../src/modules/interviews/interviewer/types.js';

// Stuffed answers: an answer made of the words the measures look for (STAR cue words, a question's key terms) rather
// than of an account earns no credit. Was a bug: "In my situation my task was to lead; I took action, I built, I
// owned…" rated 5 on context, ownership and impact under any question, and a string of key-point nouns covered the
// question's key points.

/** Answers that game the measures: cue words and CV vocabulary with nothing of their own. */
const CUE_STUFFED = [
  'In my situation my task was to lead; I took action, I built, I owned, I measured; the result was a 40% increase in revenue and the project was delivered on time.',
  'In my situation at my last company my task was to lead. I took action: I built, I owned, I drove, I measured. As a result revenue increased by 40% and we delivered on time. I learned a lot and my manager praised me.',
  'The situation was that at my previous job I was responsible for the outcome. I took ownership, I planned, I executed, I communicated, I delivered. In the end we improved performance by 35% and saved $200k. I learned that ownership matters.',
  'Last year my goal was to make an impact. I analysed, I decided, I implemented, I led. The result was a 50% increase in customer satisfaction, we shipped ahead of schedule and I was promoted.',
  'As a result we reduced costs by 20%, I took ownership, I communicated with stakeholders and I learned a lot from it.',
  'Sure, that is a good question and I have a good example of it. Ownership, leadership, accountability, stakeholder management, data-driven decisions, impact, 40% growth, delivered on time, lessons learned, customer obsession, bias for action.',
];

/** Answers that are a question's key terms strung together, with or without a sentence in front. */
const KEYWORD_LISTS = [
  'Call stack, microtask queue, task queue, macrotask, FIFO order, await continuation, promise reactions, queueMicrotask, setTimeout 0 ms delay, synchronous code, async function, drained completely, next task.',
  'Unweighted shortest path, breadth-first search, BFS, adjacency list, both directions, two-way routes, distances -1, visited marker, enqueue, queue, O(n + m) time and memory, DFS, Dijkstra, m = 0, n = 1, fast input.',
  'BFS queue adjacency list visited distance array enqueue dequeue shortest path unweighted graph O(n+m) time memory edge cases duplicates Dijkstra DFS.',
  'I think that covers it at a high level, I can go deeper into any part if you want me to. Requirements, functional, non-functional, scale, QPS, millions, peak, burst, storage, terabytes, schema, primary key, index, sharding, replication, cache, CDN, load balancer, trade-offs, consistency, availability, failover, retries, idempotency, monitoring.',
  'Customer focus, ownership, delivered results, stakeholder alignment, 25% efficiency gain, cross-functional collaboration, leadership.',
];

/** Genuine answers, short, plain, vague, non-native, terse or typed as notes and code: none is stuffed. */
const GENUINE = [
  // Short and specific.
  'Last spring I shipped a timezone bug in our booking emails, so times were one hour off for European users. A user reported it. I reverted it within an hour, told support, and added a test with a UTC+1 fixture.',
  'My tech lead wanted to add Kafka between two services. I thought direct HTTP calls were enough for our load, so I measured it and showed him the numbers in the design review. He agreed to wait, and we never needed Kafka that year.',
  // Non-native English.
  'In my previous company I make a mistake in the invoice export, the date filter was wrong by one day, so last day of month invoices was missing. Support tell me next morning. I revert my change in first hour, I run export again for 212 customers and I inform my lead. After I write test for the month boundary, since then no more this problem.',
  'We have deadline from regulator, 1 April, cannot move. Six weeks before I see we are 40% behind the estimate. I go to product manager same day and propose to keep only what law require. We cut PDF export and templates but not the validation and tests. We ship 28 March, no failed submission.',
  'Order is A, F, H, C, E, G, D, B. First all synchronous code run, also async function until first await, so F is before H. After, the microtask queue run in FIFO: C, E, G. D go in queue only when C finish, so after G. B is timeout, it is task, so it wait until microtask queue is empty.',
  // Vague but told (weak answers are rated low by the measures, not left out).
  'We had a deadline and we had too much stuff so we took some things out and the team worked really hard on it and in the end it was fine I think.',
  'I usually just go with what the lead says, we discussed it as a team and we went with their idea.',
  'I took ownership of the problem and worked with the team to deliver it on time.',
  // Business-heavy but specific.
  'As a result, timeouts dropped from 4% to 0.1% and revenue during the next sale rose 12%. I learned to measure before guessing.',
  'I am looking for a team where I can own a product area end to end; in my current role I led the billing rewrite and want more of that.',
  // Terse technical notes and lists.
  '- BFS from island 1, all rides cost 1\n- adjacency list, add both directions\n- dist = -1 means not visited\n- set dist when enqueue\n- O(n + m) time and memory',
  'BFS from 1 since unweighted. Adjacency list both ways. dist init -1, set on enqueue. O(n+m).',
  'Edge cases: n = 1, m = 0, duplicate routes, self loops, unreachable islands, 10^5 lines.',
  'A F H C E G D B. Sync code first, F is sync until the await. Then microtasks in order C, E, G, and D only after C finished. B is a task so it comes last.',
  'For scale, assume 100 million new links a month, around 40 writes per second and 4,000 reads per second at peak, a few terabytes of storage over five years.',
  'First I would try cheaper steps: archiving old orders, time-based partitioning, read replicas, and moving the other tables elsewhere.',
  // Code typed into the answer.
  'SELECT c.id, COUNT(DISTINCT o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id AND o.created_at >= DATE \'2024-01-01\' GROUP BY c.id ORDER BY orders DESC',
  'const seen = new Set();\nfor (const [u, v] of routes) { adj[u].push(v); adj[v].push(u); }\nqueue.push(1); dist[1] = 0;',
];

const turn = (text: string, seq = 1): Turn => ({ seq, speaker: 'candidate', kind: 'text', text, questionPosition: 0, atMs: 0, code: null });

describe('stuffing', () => {
  it('finds answers made of STAR cue words and CV vocabulary', () => {
    for (const text of CUE_STUFFED) expect(stuffing(text)?.kind, text).toBe('cue_words');
  });

  it('finds answers that are key terms strung together, also behind a sentence of preamble', () => {
    for (const text of KEYWORD_LISTS) expect(stuffing(text)?.kind, text).toBe('keyword_list');
  });

  it('leaves genuine answers alone: short, vague, non-native, terse notes and typed code', () => {
    for (const text of GENUINE) expect(stuffing(text), text).toBeNull();
  });

  it('never judges a short reply', () => {
    expect(stuffing('I took action, I built, I owned, I delivered.')).toBeNull();
    expect(stuffing('Queue, stack, heap, BFS, DFS, cache.')).toBeNull();
  });

  it('reads none of the question bank\'s own prompts, follow-ups or key points as cue words, and few of its telegraphic key points as a list', () => {
    const dir = new URL('../../catalog/question-bank/questions/', import.meta.url);
    const questions = readdirSync(dir).flatMap((f) => JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as Array<{ prompt: string; guidance: { key_points: string[]; follow_ups: string[] } }>);
    questions.push(...readRoundMethods().flatMap((m) => m.questions ?? []));
    const texts = questions.flatMap((q) => [q.prompt, ...q.guidance.key_points, ...q.guidance.follow_ups, q.guidance.key_points.join(' ')]);
    const found = texts.map((t) => stuffing(t)).filter((s) => s !== null);
    expect(found.filter((s) => s.kind === 'cue_words')).toEqual([]);
    // Graders' notes ("Typical causes: different window definitions, null handling, units, stale caches") are
    // terser than any spoken answer; a handful read as lists.
    expect(found.length / texts.length).toBeLessThan(0.005);
  });

  it('marks only the candidate\'s text turns', () => {
    const turns: Turn[] = [
      { ...turn(CUE_STUFFED[0], 1), speaker: 'interviewer' },
      turn(CUE_STUFFED[1], 2),
      turn(GENUINE[0], 3),
      turn(KEYWORD_LISTS[0], 4),
      { ...turn(KEYWORD_LISTS[1], 5), kind: 'code' },
    ];
    expect([...stuffedAnswers(turns)]).toEqual([[2, 'cue_words'], [4, 'keyword_list']]);
  });
});
