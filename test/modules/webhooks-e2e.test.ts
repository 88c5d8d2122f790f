import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPrepWebhook } from '../../src/modules/webhooks/verify.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { startWebhookReceiver } from '../helpers/tls.js';
import { testWorker } from '../helpers/settle.js';

let h: Harness;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  h = await startHarness({ env: { PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: receiver.caFile, PREP_WEBHOOK_TIMEOUT_MS: '2000', PREP_WEBHOOK_SLOW_MS: '2000' } });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const key = () => h.org.keys.secret_test;
const worker = () => testWorker(h);

describe('webhooks end to end', () => {
  it('delivers an emitted event to a real HTTPS receiver, signed so that an independent HMAC verifies it', async () => {
    const created = await h.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: bearer(key()), payload: { url: receiver.url, enabled_events: ['coding.completed'] } });
    expect(created.statusCode, created.body).toBe(201);
    const { id: endpointId, secret } = created.json();
    expect(secret).toMatch(/^whsec_/);

    const eventId = await h.db.kysely.transaction().execute((tx) =>
      h.modules.webhooks.emitEvent(tx, { organizationId: h.org.id, livemode: false }, 'coding.completed', { id: 'x', status: 'completed' }));
    expect(await worker().runOnce()).toBeGreaterThanOrEqual(1);

    const got = receiver.received.at(-1)!;
    expect(got.headers['svc-event-id']).toBe(eventId);
    const envelope = JSON.parse(got.body);
    expect(envelope).toMatchObject({ id: eventId, type: 'coding.completed', data: { object: { id: 'x', status: 'completed' } } });
    const header = String(got.headers['svc-signature']);
    const t = /t=(\d+)/.exec(header)![1];
    const v1 = /v1=([0-9a-f]{64})/.exec(header)![1];
    expect(createHmac('sha256', secret).update(`${eventId}.${t}.${got.body}`).digest('hex')).toBe(v1);
    expect(verifyPrepWebhook({ body: got.body, eventId, signature: header, secrets: [secret], now: Number(t) })).toBe(true);

    const event = (await h.app.inject({ method: 'GET', url: `/v1/events/${eventId}`, headers: bearer(key()) })).json();
    expect(event).toMatchObject({ status: 'delivered', payload: got.body });
    const deliveries = (await h.app.inject({ method: 'GET', url: `/v1/webhook-endpoints/${endpointId}/deliveries`, headers: bearer(key()) })).json();
    expect(deliveries.data[0]).toMatchObject({ event_id: eventId, status_code: 200, succeeded: true, response_body: 'answered 200' });
  });

  it('retries a failing receiver on the schedule, then fails the event, which redelivers with the same id', async () => {
    receiver.answer(500);
    const before = receiver.received.length;
    const eventId = await h.db.kysely.transaction().execute((tx) =>
      h.modules.webhooks.emitEvent(tx, { organizationId: h.org.id, livemode: false }, 'coding.completed', { id: 'y' }));
    const w = worker();
    for (const wait of [0, 30, 120, 600, 3600]) {
      h.clock.advance(wait * 1000);
      expect(await w.runOnce()).toBe(1);
    }
    h.clock.advance(86_400_000);
    expect(await w.runOnce()).toBe(0);
    expect(receiver.received.length - before).toBe(5);
    const failed = (await h.app.inject({ method: 'GET', url: '/v1/events?status=failed', headers: bearer(key()) })).json();
    expect(failed.data.map((e: any) => e.id)).toContain(eventId);

    receiver.answer(200);
    const again = await h.app.inject({ method: 'POST', url: `/v1/events/${eventId}/redeliver`, headers: bearer(key()) });
    expect(again.statusCode).toBe(200);
    expect(await w.runOnce()).toBe(1);
    expect(receiver.received.at(-1)!.headers['svc-event-id']).toBe(eventId);
    expect((await h.app.inject({ method: 'GET', url: `/v1/events/${eventId}`, headers: bearer(key()) })).json().status).toBe('delivered');
    const notAgain = await h.app.inject({ method: 'POST', url: `/v1/events/${eventId}/redeliver`, headers: bearer(key()) });
    expect(notAgain.statusCode).toBe(400);
    expect(notAgain.json().error.code).toBe('event_not_replayable');
  });

  it('refuses to register a URL that is not public https when the test allowance does not cover it', async () => {
    for (const url of ['http://localhost:9/hook', 'https://127.0.0.1/hook', 'https://10.0.0.1/hook', 'https://[::1]/hook', 'https://169.254.169.254/latest']) {
      const res = await h.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: bearer(key()), payload: { url } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.param).toBe('url');
    }
  });
});
