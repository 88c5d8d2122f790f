// Throughput of GET /v1/candidates?limit=20 (real key, SQLite) against a no-op route of the same app,
// measured in one run: prints requests/s, p99 latency and the ratio (target: list >= 25% of no-op).
// Usage: npm run bench [-- --duration 5 --rounds 3 --connections 10]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { openDatabase } from '../dist/db/database.js';
import { migrateToLatest } from '../dist/db/migrate.js';

const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } } });
const dir = mkdtempSync(path.join(tmpdir(), 'prep-bench-'));
const config = loadConfig({ PREP_DATA_DIR: dir, PREP_LOG_LEVEL: 'silent', PREP_RATE_LIMIT: '10000000', PREP_RATE_LIMIT_WINDOW_MS: '1000' });
const db = openDatabase(config);
await migrateToLatest(db);
const { app, services } = await buildApp({
  config, db, logger: false,
  extend: (a) => a.get('/bench/noop', { schema: { hide: true }, config: { auth: 'none' } }, async () => ({ ok: true })),
});
const { keys } = await services.organizations.create('Bench', 0);
for (let i = 0; i < 200; i++) {
  const res = await app.inject({ method: 'POST', url: '/v1/candidates', headers: { authorization: `Bearer ${keys.secret_test}` }, payload: { email: `c${i}@bench.test`, name: `Candidate ${i}` } });
  if (res.statusCode !== 201) throw new Error(`seeding failed: ${res.body}`);
}
const base = await app.listen({ port: 0, host: '127.0.0.1' });

/** autocannon in its own process, so the load generator does not share the server's event loop. */
function autocannon(url, seconds, headers = []) {
  const args = ['node_modules/autocannon/autocannon.js', '-j', '-c', values.connections, '-d', String(seconds), ...headers.flatMap((h) => ['-H', h]), url];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited ${code}`))));
  });
}

const auth = [`authorization=Bearer ${keys.secret_test}`];
const targets = { noop: [`${base}/bench/noop`, []], list: [`${base}/v1/candidates?limit=20`, auth] };
const only = process.env.BENCH_ONLY; // BENCH_ONLY=list runs one target (for profiling with --cpu-prof)

// Rounds alternate the two targets so a slow spell of the machine hits both alike; the ratio is the median round's.
const rounds = Number(values.rounds);
const seen = { noop: [], list: [] };
for (const [name, [url, headers]] of Object.entries(targets)) if (!only || only === name) await autocannon(url, 2, headers); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const [name, [url, headers]] of Object.entries(targets)) {
    if (only && only !== name) continue;
    const r = await autocannon(url, Number(values.duration), headers);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    seen[name].push({ rps: r.requests.average, p99: r.latency.p99 });
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const name of Object.keys(targets)) {
  if (!seen[name].length) continue;
  console.log(`${name.padEnd(5)} ${median(seen[name].map((s) => s.rps)).toFixed(0).padStart(7)} req/s   p99 ${String(median(seen[name].map((s) => s.p99))).padStart(4)} ms   (rounds: ${seen[name].map((s) => s.rps.toFixed(0)).join(', ')})`);
}
if (only) process.exit(0);
const ratios = seen.list.map((l, i) => l.rps / seen.noop[i].rps);
const ratio = median(ratios);
console.log(`ratio list/noop: ${(ratio * 100).toFixed(1)}% (median of ${ratios.map((r) => (r * 100).toFixed(1) + '%').join(', ')}; target >= 25%) ${ratio >= 0.25 ? 'OK' : 'BELOW TARGET'}`);
await app.close();
await db.close();
rmSync(dir, { recursive: true, force: true });
process.exitCode = ratio >= 0.25 ? 0 : 1;
