// 50 candidates in interviews at once over the conversation channel (WebSocket), each answering and waiting for the
// built-in interviewer's reply, against an echo WebSocket route in the same app, same run, same clients.
// Prints the interview turn latency (answer sent → interviewer turn received: p50, p99; target p99 < 50 ms) and the
// exchanges per second against the echo's (target >= 50%).
// Usage: npm run bench:interviews [-- --duration 5 --rounds 3 --connections 50]
import WebSocket from 'ws';
import { testClient } from '../test/helpers/client.ts';
import { options, startBenchApp } from './lib.mjs';

const CLIENTS = Number(options.connections === '10' ? 50 : options.connections);
const ORIGIN = 'https://bench.example';
const ANSWERS = [
  'At my last company our checkout service kept timing out during sales, and I was the engineer responsible for fixing it.',
  'I profiled it, found an unindexed query, added the index and a cache, and wrote a runbook so the team could see it early.',
  'As a result timeouts fell from four percent to a tenth of a percent, and revenue in the next sale rose twelve percent.',
  'Next time I would involve the on-call engineers earlier, because they knew the failure patterns best.',
];

const bench = await startBenchApp((app) => {
  // The baseline: the same WebSocket stack answering each message at once with a message of a turn's size.
  app.get('/bench-echo', { websocket: true }, (socket) => {
    socket.on('message', (data) => socket.send(JSON.stringify({ type: 'turn', seq: 1, speaker: 'interviewer', kind: 'text', text: String(data) })));
  });
});
const client = testClient(bench);
const { keys } = await bench.services.organizations.create('Bench', 100_000);
const key = keys.secret_live;
await bench.services.core.db.kysely.updateTable('organizations').set({ max_concurrent_interviews: 100_000 }).execute();
await client.allowOrigin(key, ORIGIN);
const wsBase = bench.base.replace(/^http/, 'ws');

/** A joined interview, ready to connect. */
async function readyInterview() {
  const candidate = await client.candidate(key);
  const interview = await client.ok('POST', '/v1/interviews', { key, body: { candidate_id: candidate, round_type: 'behavioral', difficulty: 3, role: 'Engineer' } });
  const token = (await client.ok('POST', '/v1/sessions', { key, body: { origin: ORIGIN, interview_id: interview.id } })).session_token;
  await client.ok('POST', `/v1/interviews/${interview.id}/join`, { token, origin: ORIGIN }, 200);
  return { id: interview.id, token };
}

function open(url) {
  const socket = new WebSocket(url, { origin: ORIGIN });
  const queue = [];
  const waiters = [];
  socket.on('message', (data) => {
    const m = JSON.parse(String(data));
    const w = waiters.findIndex((x) => x.test(m));
    if (w >= 0) waiters.splice(w, 1)[0].resolve(m);
    else queue.push(m);
  });
  const next = (test) => {
    const i = queue.findIndex(test);
    if (i >= 0) return Promise.resolve(queue.splice(i, 1)[0]);
    return new Promise((resolve) => waiters.push({ test, resolve }));
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, next, send: (m) => socket.send(JSON.stringify(m)) }));
    socket.once('error', reject);
  });
}

/** One candidate: answers, waits for the interviewer's turn, again, for `ms`; a finished interview is replaced by the next. */
async function candidateLoop(pool, ms, latencies) {
  let exchanges = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    let interview = pool.pop();
    if (!interview) {
      pool.ranDry = true;
      interview = await readyInterview();
    }
    pool.used = (pool.used ?? 0) + 1;
    const ch = await open(`${wsBase}/interview-channel`);
    ch.send({ type: 'auth', token: interview.token, interview_id: interview.id, last_seq: 0 });
    await ch.next((m) => m.type === 'ready');
    await ch.next((m) => m.type === 'turn' && m.speaker === 'interviewer');
    let n = 0;
    while (performance.now() < end) {
      const id = `a${n}`;
      const sent = performance.now();
      ch.send({ type: 'answer', id, text: ANSWERS[n++ % ANSWERS.length] });
      const reply = await Promise.race([
        ch.next((m) => m.type === 'turn' && m.speaker === 'interviewer' && m.seq > 0 && !m.client_id),
        ch.next((m) => m.type === 'ended' || m.type === 'error'),
      ]);
      if (reply.type !== 'turn') break;
      latencies.push(performance.now() - sent);
      exchanges++;
      if (/thank you for your time|that's all from me|we'll be in touch/i.test(reply.text)) break;
    }
    ch.socket.close();
  }
  return exchanges;
}

async function echoLoop(ms, latencies) {
  const ch = await open(`${wsBase}/bench-echo`);
  let exchanges = 0;
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    const sent = performance.now();
    ch.send({ type: 'answer', id: `a${n}`, text: ANSWERS[n++ % ANSWERS.length] });
    await ch.next((m) => m.type === 'turn');
    latencies.push(performance.now() - sent);
    exchanges++;
  }
  ch.socket.close();
  return exchanges;
}

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = Number(options.duration) * 1000;
const rounds = Number(options.rounds);
// Interviews are created (REST calls: create, session token, join) before each round, not during it: what is measured
// is the conversation, and a finished interview's candidate goes straight on to the next one. The pool is sized from
// what the warm-up and earlier rounds used (two and a half times over); a round that still runs it dry says so.
const pool = [];
const fill = async (n) => { while (pool.length < n) pool.push(await readyInterview()); };
await fill(CLIENTS * 2);
// Warm-up: 2 s of echo, then 5 s of interviews (the first measured round ran about 15% slower after 1 s, as V8 was
// still compiling the interviewer and growing its young generation).
const WARMUP_MS = 5000;
await Promise.all(Array.from({ length: CLIENTS }, () => echoLoop(2000, [])));
await fill(CLIENTS * 10);
pool.used = 0;
await Promise.all(Array.from({ length: CLIENTS }, () => candidateLoop(pool, WARMUP_MS, [])));
let usedPerSecond = pool.used / (WARMUP_MS / 1000);
const results = { echo: [], interview: [] };
for (let round = 0; round < rounds; round++) {
  for (const name of process.env.BENCH_ONLY ? [process.env.BENCH_ONLY] : ['echo', 'interview']) {
    const latencies = [];
    if (name === 'interview') {
      await fill(Math.ceil(usedPerSecond * (ms / 1000) * 2.5) + CLIENTS);
      pool.used = 0;
      pool.ranDry = false;
    }
    const started = performance.now();
    const counts = await Promise.all(Array.from({ length: CLIENTS }, () => (name === 'echo' ? echoLoop(ms, latencies) : candidateLoop(pool, ms, latencies))));
    const seconds = (performance.now() - started) / 1000;
    results[name].push({ rate: counts.reduce((a, b) => a + b, 0) / seconds, p50: pct(latencies, 0.5), p99: pct(latencies, 0.99) });
    if (name === 'interview') {
      usedPerSecond = Math.max(usedPerSecond, pool.used / seconds);
      if (pool.ranDry) console.log(`round ${round + 1}: the pool of interviews ran dry; some were created during the round`);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, runs] of Object.entries(results).filter(([, runs]) => runs.length > 0)) {
  console.log(`${name.padEnd(10)} ${median(runs.map((r) => r.rate)).toFixed(0).padStart(6)} exchanges/s   p50 ${median(runs.map((r) => r.p50)).toFixed(1)} ms   p99 ${median(runs.map((r) => r.p99)).toFixed(1)} ms   (rounds: ${runs.map((r) => r.rate.toFixed(0)).join(', ')})`);
}
const ratios = results.interview.map((r, i) => r.rate / (results.echo[i]?.rate ?? NaN));
const ratio = median(ratios);
const p99 = median(results.interview.map((r) => r.p99));
console.log(`${CLIENTS} concurrent interviews: turn latency p99 ${p99.toFixed(1)} ms (target < 50 ms) ${p99 < 50 ? 'OK' : 'ABOVE TARGET'}`);
console.log(`ratio interview/echo: ${(ratio * 100).toFixed(1)}% (median of ${ratios.map((r) => (r * 100).toFixed(1) + '%').join(', ')}; target >= 50%) ${ratio >= 0.5 ? 'OK' : 'BELOW TARGET'}`);
await bench.stop();
process.exit(0);
