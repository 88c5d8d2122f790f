// Webhook delivery on SQLite to a local HTTPS receiver: throughput (deliveries/s) for a burst of events, and the
// latency from an event's commit to its first delivery attempt arriving. Targets: >= 500/s, median < 100 ms.
// Usage: npm run bench:webhooks [-- --events 2000]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { jobHandlers } from '../dist/modules/jobs.js';
import { createWorker } from '../dist/jobs/worker.js';
import { startBenchApp } from './lib.mjs';

const { values } = parseArgs({ strict: false, options: { events: { type: 'string', default: '2000' }, latency: { type: 'string', default: '200' }, duration: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' } } });

// A receiver with a throwaway certificate, recording when each event id first arrives.
const certDir = mkdtempSync(path.join(tmpdir(), 'prep-bench-tls-'));
execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost',
  '-addext', 'subjectAltName=DNS:localhost', '-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem')], { stdio: 'ignore' });
const arrived = new Map();
const receiver = https.createServer({ key: readFileSync(path.join(certDir, 'key.pem')), cert: readFileSync(path.join(certDir, 'cert.pem')) }, (req, res) => {
  const id = req.headers['svc-event-id'];
  if (!arrived.has(id)) arrived.set(id, performance.now());
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const url = `https://localhost:${receiver.address().port}/hook`;

const bench = await startBenchApp(undefined, { PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: path.join(certDir, 'cert.pem') });
const { services, modules } = bench;
const { keys, organization } = await services.organizations.create('Bench', 0);
const tenant = { organizationId: organization.id, livemode: false };
const res = await bench.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: { authorization: `Bearer ${keys.secret_test}` }, payload: { url } });
if (res.statusCode !== 201) throw new Error(res.body);
const worker = createWorker({ queue: services.queue, clock: services.core.clock, handlers: jobHandlers(services, modules), log: { error: (o, m) => console.error(m, o) } });
await worker.start();

const emit = (n) => services.core.db.kysely.transaction().execute(async (tx) => {
  const ids = [];
  for (let i = 0; i < n; i++) ids.push(await modules.webhooks.emitEvent(tx, tenant, 'webhook.test', { i }));
  return ids;
});
const waitFor = async (ids, ms) => {
  const end = Date.now() + ms;
  while (ids.some((id) => !arrived.has(id))) {
    if (Date.now() > end) throw new Error(`only ${ids.filter((id) => arrived.has(id)).length}/${ids.length} arrived`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

// Throughput: a burst committed in batches of 100, timed from the first commit to the last arrival.
const total = Number(values.events);
const start = performance.now();
const burst = [];
for (let done = 0; done < total; done += 100) burst.push(...(await emit(Math.min(100, total - done))));
await waitFor(burst, 120_000);
const seconds = (performance.now() - start) / 1000;
const rate = total / seconds;

// Latency: one event at a time, spaced out, from its commit to its arrival.
const latencies = [];
for (let i = 0; i < Number(values.latency); i++) {
  const [id] = await emit(1);
  const committed = performance.now();
  await waitFor([id], 10_000);
  latencies.push(arrived.get(id) - committed);
  await new Promise((r) => setTimeout(r, 10 + Math.random() * 40));
}
latencies.sort((a, b) => a - b);
const median = latencies[Math.floor(latencies.length / 2)];
const p99 = latencies[Math.floor(latencies.length * 0.99)];

console.log(`deliveries  ${rate.toFixed(0)} /s (${total} events in ${seconds.toFixed(2)} s; target >= 500/s) ${rate >= 500 ? 'OK' : 'BELOW TARGET'}`);
console.log(`latency     median ${median.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, event commit to first attempt (target median < 100 ms) ${median < 100 ? 'OK' : 'ABOVE TARGET'}`);

await worker.stop();
await bench.stop();
receiver.close();
rmSync(certDir, { recursive: true, force: true });
