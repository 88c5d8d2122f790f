// Throughput of GET /v1/candidates?limit=20 (real secret key, SQLite) against a no-op route of the same app.
// Target: the list reaches at least 25% of the no-op route's throughput.
// Usage: npm run bench:list [-- --duration 5 --rounds 3 --connections 10]
import { testClient } from '../test/helpers/client.ts';
import { compare, startBenchApp } from './lib.mjs';

const bench = await startBenchApp((app) => app.get('/bench/noop', { schema: { hide: true }, config: { auth: 'none' } }, async () => ({ ok: true })));
const { keys } = await bench.services.organizations.create('Bench', 0);
const auth = [`authorization=Bearer ${keys.secret_test}`];
const client = testClient(bench);
for (let i = 0; i < 200; i++) await client.candidate(keys.secret_test, { email: `c${i}@bench.test`, name: `Candidate ${i}` });
await compare({
  baseline: { noop: [`${bench.base}/bench/noop`, []] },
  candidate: { list: [`${bench.base}/v1/candidates?limit=20`, auth] },
  target: 0.25,
});
await bench.stop();

