// Saving a page of 10 answers (POST /v1/psychometric-sessions/{id}/progress, a write) against the coding timer
// (GET /v1/coding-sessions/{id}/timer, a read), both with a session token, same app, same run.
// Target: progress >= 50% of the timer's throughput.
// Usage: npm run bench:progress [-- --duration 5 --rounds 3 --connections 10]
import { compare, startBenchApp } from './lib.mjs';

const bench = await startBenchApp();
const { keys } = await bench.services.organizations.create('Bench', 5);
const key = { authorization: `Bearer ${keys.secret_test}` };
const call = async (method, url, payload, headers = key) => {
  const res = await bench.app.inject({ method, url, headers, payload });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.body}`);
  return res.json();
};
const origin = 'https://bench.example';
await call('POST', '/v1/domains', { origin });
const candidate = await call('POST', '/v1/candidates', { email: 'bench@example.com', name: 'Bench' });

const tests = await call('GET', '/v1/coding-tests');
const coding = await call('POST', '/v1/coding-sessions', { candidate_id: candidate.id, coding_test_id: tests.data.find((t) => t.duration_minutes !== null).id });
const codingToken = (await call('POST', '/v1/sessions', { origin, coding_session_id: coding.id })).session_token;

const instruments = await call('GET', '/v1/psychometric-tests');
const psy = await call('POST', '/v1/psychometric-sessions', { candidate_id: candidate.id, psychometric_test_id: instruments.data.find((t) => t.slug === 'ipip-neo-120').id });
const psyToken = (await call('POST', '/v1/sessions', { origin, psychometric_session_id: psy.id })).session_token;
const started = await call('POST', `/v1/psychometric-sessions/${psy.id}/start`, undefined, { authorization: `Bearer ${psyToken}`, origin });
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
