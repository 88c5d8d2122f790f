import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { jobHandlers } from '../../src/modules/jobs.js';
import { createWorker } from '../../src/jobs/worker.js';
import type { Tenant } from '../../src/platform/context.js';
import { bearer, startHarness, type Harness } from './harness.js';
import { startWorkerProcess } from './processes.js';
import { startWebhookReceiver } from './tls.js';

export type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/**
 * `count` HTTPS receivers, each with its own self-signed certificate, and one CA file that trusts them all
 * (for PREP_WEBHOOK_CA_FILE).
 */
export async function startReceivers(count: number) {
  const receivers = await Promise.all(Array.from({ length: count }, () => startWebhookReceiver()));
  const dir = mkdtempSync(join(tmpdir(), 'prep-ca-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, receivers.map((r) => readFileSync(r.caFile, 'utf8')).join('\n'));
  return {
    receivers,
    caFile,
    async close() {
      await Promise.all(receivers.map((r) => r.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The requests a receiver got for one event. */
export const receivedFor = (receiver: Receiver, eventId: string) => receiver.received.filter((r) => r.headers['svc-event-id'] === eventId);

/** `t` and every `v1` of a Svc-Signature header (asserting its shape). */
export function parseSignature(header: unknown): { t: number; v1: string[] } {
  expect(header).toMatch(/^t=\d+(,v1=[0-9a-f]{64})+$/);
  const parts = String(header).split(',');
  return { t: Number(parts[0].slice(2)), v1: parts.slice(1).map((p) => p.slice(3)) };
}

/** An implementation of the signature independent of src/: HMAC-SHA256 of `{id}.{t}.{body}`, hex. */
export const hmac = (secret: string, eventId: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${eventId}.${t}.${body}`).digest('hex');

/** Calls and shortcuts the webhook tests share. */
export function webhookKit(h: Harness) {
  const kit = {
    call: (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, key: string, payload?: object) =>
      h.app.inject({ method, url, headers: bearer(key), ...(payload === undefined ? {} : { payload }) }),

    /** POST /v1/webhook-endpoints, expecting 201. */
    async createEndpoint(key: string, body: { url: string; description?: string; enabled_events?: string[] }) {
      const res = await kit.call('POST', '/v1/webhook-endpoints', key, body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json() as { id: string; secret: string; [k: string]: unknown };
    },

    emit: (tenant: Tenant, type: string, object: object) =>
      h.db.kysely.transaction().execute((tx) => h.modules.webhooks.emitEvent(tx, tenant, type, object)),

    worker: (concurrency?: number) => createWorker({
      queue: h.services.queue, clock: h.clock, handlers: jobHandlers(h.services, h.modules), log: { error: () => {} },
      ...(concurrency ? { concurrency } : {}),
    }),

    /** Runs worker passes until nothing is due; returns how many jobs ran. */
    async drain() {
      const w = kit.worker();
      let total = 0;
      for (let ran = await w.runOnce(); ran > 0; ran = await w.runOnce()) total += ran;
      return total;
    },

    /** Every attempt recorded for an endpoint, oldest first, straight from the database. */
    attemptsOf: (endpointId: string) =>
      h.db.kysely.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId).orderBy('id').execute(),

    deliveriesOfEvent: (eventId: string) =>
      h.db.kysely.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute(),

    /**
     * A new organisation's event to one endpoint at `url`, whose delivery job was claimed by a worker that died on
     * each of its five attempts and on the final one: the job is left for its handler's `abandoned`.
     */
    async eventWhoseWorkersDied(url: string) {
      const org = await h.createOrg();
      const key = org.keys.secret_test;
      await kit.createEndpoint(key, { url });
      const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'poison' });
      for (let i = 0; i < 6; i++) {
        expect(await h.services.queue.claim(`dying-${i}`, ['webhook.deliver'], 1, 10_000)).toHaveLength(1);
        h.clock.advance(10_000);
      }
      return { org, key, eventId };
    },

    /** Forgets queued work left by a test, so the next one's worker passes only see its own jobs. */
    clearJobs: () => h.db.kysely.deleteFrom('background_jobs').execute(),
  };
  return kit;
}

export const sandboxOf = (orgId: string): Tenant => ({ organizationId: orgId, livemode: false });
export const liveOf = (orgId: string): Tenant => ({ organizationId: orgId, livemode: true });

/**
 * For a file whose tests run `prep worker` processes delivering to one TLS receiver: the harness (with `env`) and the
 * receiver are made before its tests; the workers started are killed, and the harness and receiver closed, after them.
 * Destructure it inside a test (its fields are set by then).
 */
export function workerDeliverySuite(env: Record<string, string>) {
  const children: ChildProcess[] = [];
  const suite = {
    h: undefined as unknown as Harness,
    receiver: undefined as unknown as Receiver,
    /** A `prep worker` process on the harness's database (the system clock: set `h.clock` to it first). */
    async startWorker(): Promise<ChildProcess> {
      const child = await startWorkerProcess(suite.h.env);
      children.push(child);
      return child;
    },
  };
  beforeAll(async () => {
    suite.receiver = await startWebhookReceiver();
    suite.h = await startHarness({ env: { PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: suite.receiver.caFile, ...env } });
  });
  afterAll(async () => {
    children.forEach((c) => c.kill('SIGKILL'));
    await suite.h?.close();
    await suite.receiver?.close();
  });
  return suite;
}
