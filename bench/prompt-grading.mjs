// Grading overhead per case: Prep grading prompt attempts (job claim, rendering, the model call through the model
// interface, each output saved, every assertion checked, the result written) against calling the same fake model
// directly with the HTTP client Prep's model interface uses (undici's `request`), at the same concurrency, in
// alternating rounds of one run. The fake model answers at once. A bare call with `fetch` is printed for reference
// (Prep used fetch until it measured it: most of a bare fetch call's time is fetch's own).
// Target: Prep's time per case at most 1.2 × the bare call's (overhead ≤ 20%).
// Sandbox and rubric assertions are left out: each is a run of its own (a checker program, a second model call),
// not overhead on the case. Usage: npm run bench:grading [-- --rounds 5 --attempts 40 --warmup 5]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { createWorker } from '../dist/jobs/worker.js';
import { jobHandlers } from '../dist/modules/jobs.js';
import { addOrganizationPromptCatalog } from '../dist/modules/prompt-engineering/catalog.js';
import { testClient } from '../test/helpers/client.ts';
import { startFakeModel } from '../test/helpers/fake-model.ts';
import { startBenchApp } from './lib.mjs';

const args = parseArgs({ strict: false, options: { rounds: { type: 'string', default: '5' }, attempts: { type: 'string', default: '40' }, warmup: { type: 'string', default: '5' } } }).values;
const ROUNDS = Number(args.rounds);
const ATTEMPTS = Number(args.attempts);
const CONCURRENCY = 4;
const CASES = 10;
const WARMUP_MS = Number(args.warmup) * 1000;

// A task of ten cases checked by local assertions of every kind.
const dir = mkdtempSync(path.join(tmpdir(), 'prep-bench-pe-'));
const item = (i) => `item-${i}`;
const output = (i) => JSON.stringify({ name: item(i), count: i, tags: ['a', 'b'] });
const assertions = (i) => [
  { type: 'is-json' },
  { type: 'json-schema', value: { type: 'object', required: ['name', 'count'], properties: { name: { type: 'string' }, count: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } } },
  { type: 'equals', value: output(i) }, { type: 'contains', value: item(i) }, { type: 'icontains', value: item(i).toUpperCase() },
  { type: 'contains-all', value: ['name', 'count'] }, { type: 'contains-any', value: ['tags', 'labels'] }, { type: 'regex', value: `"count":${i}\\b` },
  { type: 'starts-with', value: '{' }, { type: 'length', max: 200 }, { type: 'not-contains', value: 'PWNED' },
];
const cases = Array.from({ length: CASES }, (_, i) => ({ name: `case-${i}`, vars: { input: item(i) }, assert: assertions(i), reference_output: output(i), failing_output: 'x' }));
mkdirSync(path.join(dir, 'tasks', 'bench-task'), { recursive: true });
writeFileSync(path.join(dir, 'tasks', 'bench-task', 'brief.md'), 'Echo the item as JSON.\n');
writeFileSync(path.join(dir, 'tasks', 'bench-task', 'task.json'), JSON.stringify({
  slug: 'bench-task', title: 'Bench task', skill: 'extraction', difficulty: 'easy', variables: ['input'], attempt_budget: 20,
  sample_cases: cases.slice(0, 2), hidden_cases: cases.slice(2), reference_prompt: '{{input}}',
}));
writeFileSync(path.join(dir, 'assessments.json'), JSON.stringify([{ slug: 'bench', name: 'Bench', description: 'Bench.', duration_minutes: 240, tasks: ['bench-task'] }]));

const model = await startFakeModel((request) => output(Number(/item-(\d+)/.exec(request.user)[1])));
const bench = await startBenchApp(undefined, { ...model.env, PREP_MODEL_CONCURRENCY: String(CONCURRENCY), PREP_RATE_LIMIT_MODEL: '10000000' });
const client = testClient(bench);
const org = await bench.services.organizations.create('Bench', 10_000);
const key = org.keys.secret_test;
const saved = await addOrganizationPromptCatalog(bench.services.core.db.kysely, org.organization.id, dir);
const assessment = await client.ok('GET', `/v1/prompt-engineering-assessments/${saved.assessments[0]}`, { key }, 200);
const taskId = assessment.tasks[0].id;
// The worker as `prep serve` runs it (16 jobs at once; the model calls bounded at CONCURRENCY by the model limiter),
// with each finished grading job counted.
let gradedJobs = 0;
let onGraded = () => {};
const handlers = jobHandlers(bench.services, bench.modules).map((h) => (h.kind !== 'prompt_engineering.grade' ? h : {
  ...h, run: async (payload, job) => {
    await h.run(payload, job);
    gradedJobs++;
    onGraded();
  },
}));
const worker = createWorker({ queue: bench.services.queue, clock: bench.services.core.clock, handlers, log: { error: console.error }, pollMs: 5 });

/** One round of Prep: ATTEMPTS attempts (spread over sessions, within each task budget) queued, then graded; ms per case. */
async function prepRound() {
  const attempts = [];
  for (let i = 0; i < ATTEMPTS; i += 20) {
    const s = await client.assign(key, 'prompt_engineering', assessment.id, await client.candidate(key));
    const token = await client.token(key, 'prompt_engineering', s.id);
    await client.ok('POST', `/v1/prompt-engineering-sessions/${s.id}/start`, { token }, 200);
    for (let j = i; j < Math.min(ATTEMPTS, i + 20); j++) {
      attempts.push(await client.ok('POST', `/v1/prompt-engineering-sessions/${s.id}/attempts`, { token, body: { task_id: taskId, prompt: `Echo <in>{{input}}</in> as JSON (${j}).` } }, 202));
    }
  }
  const target = gradedJobs + attempts.length;
  const done = new Promise((resolve) => (onGraded = () => gradedJobs >= target && resolve()));
  const started = performance.now();
  await worker.start();
  await done;
  const ms = performance.now() - started;
  await worker.stop();
  const graded = await bench.services.core.db.kysely.selectFrom('prompt_attempts').select(['status', 'score', 'error']).where('id', 'in', attempts.map((a) => a.id)).execute();
  if (graded.length !== ATTEMPTS || graded.some((g) => g.status !== 'graded' || g.score !== 100)) throw new Error(`not every attempt was graded at 100: ${JSON.stringify(graded.slice(0, 3))}`);
  return ms / (ATTEMPTS * CASES);
}

/** One round of bare calls: the same number of cases, the same concurrency, straight to the fake model. */
async function bareRound(client) {
  const url = `${model.env.PREP_MODEL_BASE_URL}/chat/completions`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${model.env.PREP_MODEL_API_KEY}` };
  let next = 0;
  const total = ATTEMPTS * CASES;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < total) {
      const i = next++ % CASES;
      const body = JSON.stringify({ model: 'reviewer-1', temperature: 0, max_tokens: 512, messages: [{ role: 'user', content: `Echo <in>${item(i)}</in> as JSON.` }] });
      const reply = client === 'fetch'
        ? await (await fetch(url, { method: 'POST', headers, body })).json()
        : await (await request(url, { method: 'POST', headers, body })).body.json();
      if (!reply.choices[0].message.content) throw new Error('no content');
    }
  }));
  return (performance.now() - started) / total;
}

// Warm every path for a few seconds first: a fresh process speeds up for its first seconds under load, as V8
// compiles the hot code and grows its young generation (bench/lib.mjs warms the route benchmarks the same way).
for (const warmUntil = performance.now() + WARMUP_MS; performance.now() < warmUntil;) {
  await bareRound('request');
  await bareRound('fetch');
  await prepRound();
}
const rounds = [];
if (process.env.BENCH_ONLY === 'prep') {
  // For profiling: Prep's rounds alone.
  for (let r = 0; r < ROUNDS; r++) console.log(`Prep ${(await prepRound()).toFixed(3)} ms/case`);
  process.exit(0);
}
for (let r = 0; r < ROUNDS; r++) {
  const bare = await bareRound('request');
  const prep = await prepRound();
  const fetched = await bareRound('fetch');
  rounds.push({ bare, prep, fetched, overhead: prep / bare - 1 });
  console.log(`round ${r + 1}: bare ${bare.toFixed(3)} ms/case (fetch ${fetched.toFixed(3)}), Prep ${prep.toFixed(3)} ms/case, overhead ${(100 * (prep / bare - 1)).toFixed(1)}%`);
}
const median = [...rounds].sort((a, b) => a.overhead - b.overhead)[Math.floor(rounds.length / 2)];
console.log(`median: bare ${median.bare.toFixed(3)} ms/case (fetch ${median.fetched.toFixed(3)}), Prep ${median.prep.toFixed(3)} ms/case; overhead ${(100 * median.overhead).toFixed(1)}% (target ≤ 20%): ${median.overhead <= 0.2 ? 'met' : 'NOT met'}`);
await bench.stop();
await model.close();
rmSync(dir, { recursive: true, force: true });
