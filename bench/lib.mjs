// Shared by the benchmarks: a real app on a throwaway SQLite database, autocannon in its own process,
// and rounds that alternate baseline and candidate so a slow spell of the machine hits both alike.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../dist/app.js';
import { loadConfig } from '../dist/config.js';
import { openDatabase } from '../dist/db/database.js';
import { prepareDatabase } from '../dist/catalogues.js';

export const options = parseArgs({
  strict: false,
  options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } },
}).values;

/** The app listening on 127.0.0.1 with limits out of the way; `extend` adds bench-only routes. */
export async function startBenchApp(extend, env = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'prep-bench-'));
  const config = loadConfig({
    PREP_DATA_DIR: dir, PREP_LOG_LEVEL: 'silent', PREP_RATE_LIMIT: '10000000', PREP_RATE_LIMIT_WINDOW_MS: '1000',
    PREP_PUBLIC_URL: 'http://localhost:8080', ...env,
  });
  const db = openDatabase({ ...config, backgroundCheckpoints: true }); // as `prep serve` opens it
  await prepareDatabase(db);
  const built = await buildApp({ config, db, logger: false, extend });
  const base = await built.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ...built, base,
    async stop() {
      await built.app.close();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function autocannon(url, seconds, headers, request = {}) {
  const args = ['node_modules/autocannon/autocannon.js', '-j', '-c', options.connections, '-d', String(seconds), ...headers.flatMap((h) => ['-H', h]),
    ...(request.method ? ['-m', request.method] : []), ...(request.body ? ['-b', request.body] : []), url];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited ${code}`))));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Measures two targets ({name: [url, headers, {method, body}?]}) in alternating rounds and prints requests/s, p99 and
 * the median round's ratio candidate/baseline against `target` (a measurement to report, not a gate).
 */
export async function compare({ baseline, candidate, target }) {
  const targets = { ...baseline, ...candidate };
  const [baseName] = Object.keys(baseline);
  const [candName] = Object.keys(candidate);
  const seen = Object.fromEntries(Object.keys(targets).map((n) => [n, []]));
  // Warm-up: four alternating passes, 16 s of load in all. A fresh server's throughput climbs for its first ~15 s
  // under load while V8 grows its young generation (the timer route alone, consecutive 2 s runs: 5.5k, 6.2k, 7.9k ...
  // 11.4k req/s; started with --min-semi-space-size=16: 8.5k, then 12.2k). Measured before that, the first rounds
  // compared a route still warming against one already warm.
  for (let pass = 0; pass < 4; pass++) for (const [url, headers, request] of Object.values(targets)) await autocannon(url, 2, headers, request);
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const [name, [url, headers, request]] of Object.entries(targets)) {
      const r = await autocannon(url, Number(options.duration), headers, request);
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      seen[name].push({ rps: r.requests.average, p99: r.latency.p99 });
    }
  }
  for (const [name, runs] of Object.entries(seen)) {
    console.log(`${name.padEnd(10)} ${median(runs.map((s) => s.rps)).toFixed(0).padStart(7)} req/s   p99 ${String(median(runs.map((s) => s.p99))).padStart(4)} ms   (rounds: ${runs.map((s) => s.rps.toFixed(0)).join(', ')})`);
  }
  const ratios = seen[candName].map((c, i) => c.rps / seen[baseName][i].rps);
  const ratio = median(ratios);
  const ok = ratio >= target;
  console.log(`ratio ${candName}/${baseName}: ${(ratio * 100).toFixed(1)}% (median of ${ratios.map((r) => (r * 100).toFixed(1) + '%').join(', ')}; target >= ${target * 100}%) ${ok ? 'OK' : 'BELOW TARGET'}`);
  return ok;
}
