// A session-token operation (GET /v1/coding-sessions/{id}/timer) against a secret-key one
// (GET /v1/coding-sessions/{id}) on the same session, same app, same run. Target: timer >= 70% of its throughput.
// Usage: npm run bench:timer [-- --duration 5 --rounds 3 --connections 10]
import { compare, startBenchApp } from './lib.mjs';

const bench = await startBenchApp();
const { keys } = await bench.services.organizations.create('Bench', 5);
const key = { authorization: `Bearer ${keys.secret_test}` };
const post = async (url, payload) => {
  const res = await bench.app.inject({ method: 'POST', url, headers: key, payload });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.body}`);
  return res.json();
};
const origin = 'https://bench.example';
await post('/v1/domains', { origin });
const candidate = await post('/v1/candidates', { email: 'bench@example.com', name: 'Bench' });
const tests = (await bench.app.inject({ method: 'GET', url: '/v1/coding-tests', headers: key })).json();
const test = tests.data.find((t) => t.duration_minutes !== null);
const session = await post('/v1/coding-sessions', { candidate_id: candidate.id, coding_test_id: test.id });
const token = (await post('/v1/sessions', { origin, coding_session_id: session.id })).session_token;

await compare({
  baseline: { secret: [`${bench.base}/v1/coding-sessions/${session.id}`, [`authorization=Bearer ${keys.secret_test}`]] },
  candidate: { timer: [`${bench.base}/v1/coding-sessions/${session.id}/timer`, [`authorization=Bearer ${token}`, `origin=${origin}`]] },
  target: 0.7,
});
await bench.stop();

