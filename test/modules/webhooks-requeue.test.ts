import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackgroundJobsTable } from '../../src/db/schema.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { receivedFor, sandboxOf, startReceivers, webhookKit, type Receiver } from '../helpers/webhooks.js';

// A delivery requeued (redeliver, re-enabling its endpoint) while the job that last ran it has settled the delivery but
// not yet itself: the worker records a job's outcome after its handler returns, and API calls commit in between.

let h: Harness;
let receivers: Awaited<ReturnType<typeof startReceivers>>;
let receiver: Receiver;
let kit: ReturnType<typeof webhookKit>;

beforeAll(async () => {
  receivers = await startReceivers(1);
  [receiver] = receivers.receivers;
  h = await startHarness({ env: { PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: receivers.caFile, PREP_WEBHOOK_TIMEOUT_MS: '2000', PREP_WEBHOOK_SLOW_MS: '2000' } }); // no receiver here hangs
  kit = webhookKit(h);
});
afterEach(async () => {
  receiver.answer(200);
  await kit.clearJobs();
});
afterAll(async () => {
  await h?.close();
  await receivers?.close();
});

const WORKER = 'test-worker';

/** Leases the one due delivery job, as a worker would, and runs its handler without recording the job's outcome. */
async function runHandlerOnly(): Promise<{ job: BackgroundJobsTable; error: unknown }> {
  const [job] = await h.services.queue.claim(WORKER, ['webhook.deliver'], 1, 60_000);
  expect(job).toBeDefined();
  const error = await h.modules.webhooks.deliver(JSON.parse(job.payload) as { delivery_id: string }, job).then(() => null, (e: unknown) => e);
  return { job, error };
}

describe('a delivery requeued before its last job has recorded its own outcome', () => {
  it('redeliver right after the last attempt failed sends the event again, not leaving it pending for ever', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    receiver.answer(500);
    // webhook.test is attempted once: its first attempt is the last.
    const sent = (await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, key)).json() as { id: string };
    const { job, error } = await runHandlerOnly();
    expect(error).toBeInstanceOf(Error);
    expect((await kit.call('GET', `/v1/events/${sent.id}`, key)).json().status).toBe('failed');

    receiver.answer(200);
    const again = await kit.call('POST', `/v1/events/${sent.id}/redeliver`, key);
    expect(again.statusCode, again.body).toBe(200);
    expect(await h.services.queue.fail(job, WORKER, String(error), null)).toBe(true); // the worker, a moment late

    await kit.drain();
    expect(receivedFor(receiver, sent.id)).toHaveLength(2);
    expect((await kit.call('GET', `/v1/events/${sent.id}`, key)).json().status).toBe('delivered');
  });

  it('re-enabling an endpoint while a job is holding its delivery sends that delivery', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    const eventId = await kit.emit(sandboxOf(org.id), 'interview.created', { object: 'interview', id: 'i1' });
    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true })).statusCode).toBe(200);
    const { job, error } = await runHandlerOnly(); // sees the endpoint disabled: holds the delivery
    expect(error).toBeNull();

    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false })).statusCode).toBe(200);
    expect(await h.services.queue.succeed(job, WORKER)).toBe(true); // the worker, a moment late

    await kit.drain();
    expect(receivedFor(receiver, eventId)).toHaveLength(1);
    expect((await kit.call('GET', `/v1/events/${eventId}`, key)).json().status).toBe('delivered');
  });

  it('redeliver right after a delivery whose worker died on every attempt was failed sends the event again', async () => {
    const { key, eventId } = await kit.eventWhoseWorkersDied(receiver.url);
    const [job] = await h.services.queue.leaseExhausted(WORKER, ['webhook.deliver'], 60_000);
    await h.modules.webhooks.abandon(JSON.parse(job!.payload) as { delivery_id: string }, job!);
    expect((await kit.call('GET', `/v1/events/${eventId}`, key)).json().status).toBe('failed');

    expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, key)).statusCode).toBe(200);
    expect(await h.services.queue.failAbandoned(job!, WORKER)).toBe(true); // the worker, a moment late

    await kit.drain();
    expect(receivedFor(receiver, eventId)).toHaveLength(1);
    expect((await kit.call('GET', `/v1/events/${eventId}`, key)).json().status).toBe('delivered');
  });
});
