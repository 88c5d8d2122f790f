// Saving a page of 10 answers (POST /v1/psychometric-sessions/{id}/progress, a write) against the coding timer
// (GET /v1/coding-sessions/{id}/timer, a read), both with a session token, same app, same run.
// Target: progress >= 50% of the timer's throughput.
// Usage: npm run bench:progress [-- --duration 5 --rounds 3 --connections 10]
import { testClient } from '../test/helpers/client.ts';
import { compare, startBenchApp } from './lib.mjs';

const bench = await startBenchApp();
const client = testClient(bench);
const { keys } = await bench.services.organizations.create('Bench', 5);
const key = keys.secret_test;
const origin = 'https://bench.example';
const candidate = await client.candidate(key);

const tests = await client.ok('GET', '/v1/coding-tests', { key });
const coding = await client.assign(key, 'coding', tests.data.find((t) => t.duration_minutes !== null).id, candidate);
const codingToken = await client.token(key, 'coding', coding.id, origin);

const instruments = await client.ok('GET', '/v1/psychometric-tests', { key });
const psy = await client.assign(key, 'psychometric', instruments.data.find((t) => t.slug === 'ipip-neo-120').id, candidate);
const psyToken = await client.token(key, 'psychometric', psy.id, origin);
const started = await client.ok('POST', `/v1/psychometric-sessions/${psy.id}/start`, { token: psyToken, origin }, 200);
const page = JSON.stringify({ answers: started.items.slice(0, 10).map((item, i) => ({ item_id: item.id, value: (i % 5) + 1 })) });

// Session tokens live 15 minutes: enough for the default rounds.
await compare({
  baseline: { timer: [`${bench.base}/v1/coding-sessions/${coding.id}/timer`, [`authorization=Bearer ${codingToken}`, `origin=${origin}`]] },
  candidate: {
    progress: [`${bench.base}/v1/psychometric-sessions/${psy.id}/progress`,
      [`authorization=Bearer ${psyToken}`, `origin=${origin}`, 'content-type=application/json'], { method: 'POST', body: page }],
  },
  target: 0.5,
});
await bench.stop();
