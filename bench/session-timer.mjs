// A session-token operation (GET /v1/coding-sessions/{id}/timer) against a secret-key one
// (GET /v1/coding-sessions/{id}) on the same session, same app, same run. Target: timer >= 70% of its throughput.
// Usage: npm run bench:timer [-- --duration 5 --rounds 3 --connections 10]
import { testClient } from '../test/helpers/client.ts';
import { compare, startBenchApp } from './lib.mjs';

const bench = await startBenchApp();
const client = testClient(bench);
const { keys } = await bench.services.organizations.create('Bench', 5);
const key = keys.secret_test;
const origin = 'https://bench.example';
const tests = await client.ok('GET', '/v1/coding-tests', { key });
const session = await client.assign(key, 'coding', tests.data.find((t) => t.duration_minutes !== null).id);
const token = await client.token(key, 'coding', session.id, origin);

await compare({
  baseline: { secret: [`${bench.base}/v1/coding-sessions/${session.id}`, [`authorization=Bearer ${keys.secret_test}`]] },
  candidate: { timer: [`${bench.base}/v1/coding-sessions/${session.id}/timer`, [`authorization=Bearer ${token}`, `origin=${origin}`]] },
  target: 0.7,
});
await bench.stop();

