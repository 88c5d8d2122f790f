import { CompiledQuery, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyPrepWebhook } from '../../src/modules/webhooks/verify.js';
import { DIALECT, startHarness, type Harness } from '../helpers/harness.js';
import {
  hmac, liveOf, parseSignature, receivedFor, sandboxOf, startReceivers, webhookKit, type Receiver,
} from '../helpers/webhooks.js';

// Endpoints, filtering, signatures, the verifier, deliveries, the test operation, environments and retention.
// Retries, time-outs, redelivery and crashed workers: webhooks-delivery.test.ts.

let h: Harness;
let strict: Harness; // the same trust, without the test allowance for loopback names
let receivers: Awaited<ReturnType<typeof startReceivers>>;
let receiver: Receiver;
let other: Receiver;
let kit: ReturnType<typeof webhookKit>;

beforeAll(async () => {
  receivers = await startReceivers(2);
  [receiver, other] = receivers.receivers;
  h = await startHarness({
    env: { PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: receivers.caFile, PREP_WEBHOOK_TIMEOUT_MS: '2000', PREP_WEBHOOK_SLOW_MS: '2000' },
  });
  strict = await startHarness({ env: { PREP_WEBHOOK_CA_FILE: receivers.caFile } });
  kit = webhookKit(h);
});
afterEach(async () => {
  receiver.answer(200);
  other.answer(200);
  await kit.clearJobs();
});
afterAll(async () => {
  await h?.close();
  await strict?.close();
  await receivers?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const EVENT_ID = /^whevt_[0-9A-Za-z]+$/;
const DAY = 86_400_000;
const nowSeconds = () => Math.floor(h.clock.now() / 1000);
const ENDPOINT_FIELDS = ['created_at', 'description', 'disabled', 'enabled_events', 'id', 'livemode', 'object', 'updated_at', 'url'];

function expectError(res: { statusCode: number; json(): any; body: string }, status: number, code: string, param?: string | RegExp) {
  expect(res.statusCode, res.body).toBe(status);
  const { error } = res.json();
  expect(error.code).toBe(code);
  if (typeof param === 'string') expect(error.param).toBe(param);
  if (param instanceof RegExp) expect(error.param).toMatch(param);
}

describe('webhook endpoints', () => {
  it('registers an https endpoint; its secret is shown in that response only and stored encrypted', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const res = await kit.call('POST', '/v1/webhook-endpoints', key, { url: receiver.url, description: 'ATS', enabled_events: ['coding.completed'] });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json();
    expect(Object.keys(created).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
    expect(created).toMatchObject({
      object: 'webhook_endpoint', url: receiver.url, description: 'ATS', enabled_events: ['coding.completed'], disabled: false,
      livemode: false, created_at: nowSeconds(), updated_at: nowSeconds(),
    });
    expect(created.id).toMatch(UUID);
    expect(created.secret).toMatch(/^whsec_[0-9A-Za-z]{32,}$/);

    const row = await h.db.kysely.selectFrom('webhook_endpoints').select('secret').where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(row.secret.startsWith('v1.')).toBe(true);
    expect(row.secret).not.toContain(created.secret.slice('whsec_'.length));
    expect(h.services.encryption.decrypt(row.secret)).toBe(created.secret);

    const { secret, ...shown } = created;
    const got = await kit.call('GET', `/v1/webhook-endpoints/${created.id}`, key);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(shown);
    const list = await kit.call('GET', '/v1/webhook-endpoints', key);
    expect(list.json()).toEqual({ object: 'list', data: [shown], has_more: false, next_cursor: null });
    for (const read of [got, list]) {
      expect(read.body).not.toContain(secret);
      expect(read.body).not.toContain('whsec_');
    }

    const live = await kit.createEndpoint(org.keys.secret_live, { url: receiver.url });
    expect(live).toMatchObject({ livemode: true, description: '', enabled_events: [], disabled: false }); // description: the contract's string, never null
  });

  it('rotate-secret answers a new secret once; the previous one is kept (encrypted) for the grace period', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const created = await kit.createEndpoint(key, { url: receiver.url });
    const res = await kit.call('POST', `/v1/webhook-endpoints/${created.id}/rotate-secret`, key);
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json();
    expect(Object.keys(rotated).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
    expect(rotated.id).toBe(created.id);
    expect(rotated.secret).toMatch(/^whsec_[0-9A-Za-z]{32,}$/);
    expect(rotated.secret).not.toBe(created.secret);

    const row = await h.db.kysely.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(h.services.encryption.decrypt(row.secret)).toBe(rotated.secret);
    const retired = JSON.parse(row.retired_secrets) as Array<{ secret: string; expires_at: number }>;
    expect(retired).toHaveLength(1);
    expect(h.services.encryption.decrypt(retired[0]!.secret)).toBe(created.secret);
    expect(retired[0]!.expires_at).toBe(h.clock.now() + DAY);
    for (const sealed of [row.secret, retired[0]!.secret]) expect(sealed.startsWith('v1.') && !sealed.includes('whsec_')).toBe(true);

    const got = await kit.call('GET', `/v1/webhook-endpoints/${created.id}`, key);
    expect(got.json()).not.toHaveProperty('secret');
    expect(got.body).not.toContain('whsec_');
    expectError(await kit.call('POST', '/v1/webhook-endpoints/01900000-0000-7000-8000-000000000000/rotate-secret', key), 404, 'resource_not_found');
  });

  it('refuses a url that is not https, and event types it does not know', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const port = new URL(receiver.url).port;
    for (const url of [`http://localhost:${port}/hook`, 'ftp://example.com/hook', 'not a url']) {
      expectError(await kit.call('POST', '/v1/webhook-endpoints', key, { url }), 400, 'parameter_invalid', 'url');
    }
    expectError(await kit.call('POST', '/v1/webhook-endpoints', key, { description: 'no url' }), 400, 'parameter_missing', 'url');
    expectError(await kit.call('POST', '/v1/webhook-endpoints', key, { url: receiver.url, enabled_events: ['coding.completed', 'coding.exploded'] }),
      400, 'parameter_invalid', /^enabled_events/);
    expect((await kit.call('GET', '/v1/webhook-endpoints', key)).json().data).toEqual([]);
  });

  it('refuses IP literals that are not public, even while a loopback name is allowed for tests', async () => {
    const key = (await h.createOrg()).keys.secret_test;
    const port = new URL(receiver.url).port;
    const literals = [
      '127.0.0.1', '127.1.2.3', '2130706433', '0x7f.1', '0.0.0.0', '10.0.0.1', '172.16.0.1', '192.168.1.1', '100.64.0.1',
      '169.254.169.254', '[::1]', '[::]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::ffff:10.0.0.1]', '[fe80::1]', '[fc00::1]', '[fd12:3456::1]',
    ];
    for (const host of literals) {
      const res = await kit.call('POST', '/v1/webhook-endpoints', key, { url: `https://${host}:${port}/hook` });
      expect(res.statusCode, host).toBe(400);
      expect(res.json().error, host).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    }
    expect((await kit.call('GET', '/v1/webhook-endpoints', key)).json().data).toEqual([]);
  });

  it('without the test allowance, a name that resolves to loopback is refused', async () => {
    const key = strict.org.keys.secret_test;
    const res = await strict.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: { authorization: `Bearer ${key}` }, payload: { url: receiver.url } });
    expectError(res, 400, 'parameter_invalid', 'url');
    const list = await strict.app.inject({ method: 'GET', url: '/v1/webhook-endpoints', headers: { authorization: `Bearer ${key}` } });
    expect(list.json().data).toEqual([]);
  });

  it('checks the address again at delivery: a url that now names a private address gets nothing sent', async () => {
    const org = await h.createOrg();
    const endpoint = await kit.createEndpoint(org.keys.secret_test, { url: receiver.url });
    const target = receiver.url.replace('//localhost:', '//127.0.0.1:');
    await h.db.kysely.updateTable('webhook_endpoints').set({ url: target }).where('id', '=', endpoint.id).execute();
    const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c1' });
    expect(await kit.worker().runOnce()).toBe(1);
    expect(receivedFor(receiver, eventId)).toEqual([]);
    const [attempt, ...more] = await kit.attemptsOf(endpoint.id);
    expect(more).toEqual([]);
    expect(attempt).toMatchObject({ event_id: eventId, status_code: null, succeeded: 0 });
    expect(attempt.error).toMatch(/^blocked_address:/);
  });

  it('lists the endpoints of the caller\'s environment, newest first, in pages; other environments and organisations get 404', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await kit.createEndpoint(key, { url: receiver.url, description: `n${i}` })).id);
    const liveId = (await kit.createEndpoint(org.keys.secret_live, { url: receiver.url })).id;

    const first = (await kit.call('GET', '/v1/webhook-endpoints?limit=2', key)).json();
    expect(first.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    expect(first).toMatchObject({ has_more: true, next_cursor: ids[1] });
    const second = (await kit.call('GET', `/v1/webhook-endpoints?limit=2&starting_after=${first.next_cursor}`, key)).json();
    expect(second).toMatchObject({ data: [expect.objectContaining({ id: ids[0] })], has_more: false, next_cursor: null });
    for (const e of [...first.data, ...second.data]) expect(e).not.toHaveProperty('secret');

    expect((await kit.call('GET', '/v1/webhook-endpoints', org.keys.secret_live)).json().data.map((e: any) => e.id)).toEqual([liveId]);
    expectError(await kit.call('GET', `/v1/webhook-endpoints/${ids[0]}`, org.keys.secret_live), 404, 'resource_not_found', 'id');
    expectError(await kit.call('GET', `/v1/webhook-endpoints/${liveId}`, key), 404, 'resource_not_found', 'id');

    const stranger = (await h.createOrg('Other')).keys.secret_test;
    expect((await kit.call('GET', '/v1/webhook-endpoints', stranger)).json().data).toEqual([]);
    const id = ids[0];
    for (const [method, url, body] of [
      ['GET', `/v1/webhook-endpoints/${id}`], ['PATCH', `/v1/webhook-endpoints/${id}`, { disabled: true }],
      ['DELETE', `/v1/webhook-endpoints/${id}`], ['POST', `/v1/webhook-endpoints/${id}/rotate-secret`],
      ['POST', `/v1/webhook-endpoints/${id}/test`], ['GET', `/v1/webhook-endpoints/${id}/deliveries`],
    ] as const) {
      expectError(await kit.call(method, url, stranger, body), 404, 'resource_not_found');
    }
    // Nothing the stranger tried changed the endpoint.
    const row = await h.db.kysely.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ disabled: 0, deleted_at: null, retired_secrets: '[]' });
  });

  it('PATCH replaces the whole event filter ([] means every event) and refuses an empty or unknown change', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url, enabled_events: ['coding.completed', 'resume.scored'] });
    h.clock.advance(5_000);

    const patched = await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { enabled_events: ['interview.created'] });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ id: endpoint.id, enabled_events: ['interview.created'], disabled: false, updated_at: nowSeconds() });
    expect(Object.keys(patched.json()).sort()).toEqual(ENDPOINT_FIELDS);
    expect((await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}`, key)).json().enabled_events).toEqual(['interview.created']);

    const dropped = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c' });
    expect(await kit.deliveriesOfEvent(dropped)).toEqual([]);
    const kept = await kit.emit(sandboxOf(org.id), 'interview.created', { id: 'i' });
    expect((await kit.deliveriesOfEvent(kept)).map((d) => d.endpoint_id)).toEqual([endpoint.id]);

    const all = await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { enabled_events: [] });
    expect(all.json().enabled_events).toEqual([]);
    const now = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c2' });
    expect((await kit.deliveriesOfEvent(now)).map((d) => d.endpoint_id)).toEqual([endpoint.id]);

    expectError(await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, {}), 400, 'parameter_missing');
    expectError(await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { enabled_events: ['nope'] }), 400, 'parameter_invalid', /^enabled_events/);
    expectError(await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { url: 'https://example.com/x' }), 400, 'parameter_unknown', 'url');
    expect((await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}`, key)).json()).toMatchObject({ enabled_events: [], url: receiver.url });
  });

  it('sends each event only to endpoints whose filter wants it', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const coding = await kit.createEndpoint(key, { url: receiver.url, enabled_events: ['coding.completed'] });
    const every = await kit.createEndpoint(key, { url: receiver.url, enabled_events: [] });
    const scored = await kit.emit(sandboxOf(org.id), 'resume.scored', { id: 'r' });
    const completed = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c' });
    expect(await kit.drain()).toBe(3);

    const delivered = async (endpointId: string) =>
      (await kit.call('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`, key)).json().data.map((d: any) => d.event_id).sort();
    expect(await delivered(coding.id)).toEqual([completed]);
    expect(await delivered(every.id)).toEqual([scored, completed].sort());
    expect(receivedFor(receiver, scored)).toHaveLength(1);
    expect(receivedFor(receiver, completed)).toHaveLength(2);
  });

  it('disabled: true parks an endpoint (nothing queued, history and secret kept); disabled: false resumes it', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    const before = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'before' });
    expect(await kit.drain()).toBe(1);
    const sealed = (await h.db.kysely.selectFrom('webhook_endpoints').select('secret').where('id', '=', endpoint.id).executeTakeFirstOrThrow()).secret;

    const parked = await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true });
    expect(parked.statusCode, parked.body).toBe(200);
    expect(parked.json()).toMatchObject({ disabled: true, enabled_events: [] });
    expect(parked.body).not.toContain('whsec_');

    const during = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'during' });
    expect(await kit.deliveriesOfEvent(during)).toEqual([]);
    expect(await kit.drain()).toBe(0);
    expect(receivedFor(receiver, during)).toEqual([]);
    const history = (await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, key)).json();
    expect(history.data.map((d: any) => d.event_id)).toEqual([before]);
    expect((await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}`, key)).json().disabled).toBe(true);
    expect((await h.db.kysely.selectFrom('webhook_endpoints').select('secret').where('id', '=', endpoint.id).executeTakeFirstOrThrow()).secret).toBe(sealed);

    const resumed = await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false });
    expect(resumed.json().disabled).toBe(false);
    const after = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'after' });
    expect(await kit.drain()).toBe(1);
    const [got] = receivedFor(receiver, after);
    const { t, v1 } = parseSignature(got.headers['svc-signature']);
    expect(v1).toEqual([hmac(endpoint.secret, after, t, got.body)]); // the secret from registration still signs
    expect(receivedFor(receiver, during)).toEqual([]); // parked events are not sent later either
  });

  it('DELETE answers deleted, then the endpoint is gone and gets no events', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    const res = await kit.call('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ object: 'webhook_endpoint', id: endpoint.id, deleted: true });

    expectError(await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}`, key), 404, 'resource_not_found', 'id');
    expectError(await kit.call('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, key), 404, 'resource_not_found');
    expectError(await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false }), 404, 'resource_not_found');
    expect((await kit.call('GET', '/v1/webhook-endpoints', key)).json().data).toEqual([]);
    const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c' });
    expect(await kit.deliveriesOfEvent(eventId)).toEqual([]);
  });
});

describe('webhook endpoints: limits and held deliveries', () => {
  it('an environment has at most 16 endpoints; deleting one makes room', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const made = [];
    for (let i = 0; i < 16; i++) made.push(await kit.createEndpoint(key, { url: receiver.url }));
    expectError(await kit.call('POST', '/v1/webhook-endpoints', key, { url: receiver.url }), 400, 'webhook_endpoint_limit');
    expect((await kit.call('POST', '/v1/webhook-endpoints', org.keys.secret_live, { url: receiver.url })).statusCode).toBe(201); // the other environment
    expect((await kit.call('DELETE', `/v1/webhook-endpoints/${made[0]!.id}`, key)).statusCode).toBe(200);
    expect((await kit.call('POST', '/v1/webhook-endpoints', key, { url: receiver.url })).statusCode).toBe(201);
  });

  // Was a bug: a retry that came due while its endpoint was disabled stayed pending for good once it was deleted.
  it('deleting an endpoint fails a delivery held while it was disabled: its event reads failed and can be redelivered', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    receiver.answer(500);
    const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'held' });
    expect(await kit.worker().runOnce()).toBe(1); // the first attempt fails; a retry in 30 s
    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true })).statusCode).toBe(200);
    h.clock.advance(30_000);
    expect(await kit.worker().runOnce()).toBe(1); // held: nothing sent, the delivery stays pending
    expect((await kit.call('GET', `/v1/events/${eventId}`, key)).json().status).toBe('pending');
    expect((await kit.call('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, key)).statusCode).toBe(200);
    const [delivery] = await kit.deliveriesOfEvent(eventId);
    expect(delivery!.status).toBe('failed');
    expect((await kit.call('GET', `/v1/events/${eventId}`, key)).json().status).toBe('failed');
    expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, key)).statusCode).toBe(200);
  });

  it('a delivery whose worker died on every attempt fails, so its event settles and can be redelivered', async () => {
    const { key, eventId } = await kit.eventWhoseWorkersDied(receiver.url);
    await kit.worker().runOnce();
    const [delivery] = await kit.deliveriesOfEvent(eventId);
    expect(delivery!.status).toBe('failed');
    expect((await kit.call('GET', `/v1/events/${eventId}`, key)).json().status).toBe('failed');
    expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, key)).statusCode).toBe(200);
  });

  // Was a bug: a reply holding NUL was stored as such, which PostgreSQL text refuses: the delivery then never settled.
  it('stores a reply holding NUL bytes (a binary or compressed body) with U+FFFD in their place, and settles the delivery', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    receiver.answer(200, { body: 'ok\u0000\u0000done' });
    const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'nul' });
    expect(await kit.drain()).toBe(1);
    expect((await kit.call('GET', `/v1/events/${eventId}`, key)).json().status).toBe('delivered');
    const [attempt] = (await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, key)).json().data;
    expect(attempt.response_body).toBe('ok\uFFFD\uFFFDdone');
  });

  // Was a bug: the cursor was looked up in every organisation, telling whether another's event id exists.
  it('GET /v1/events takes only the caller\'s own event as a cursor', async () => {
    const [mine, theirs] = [await h.createOrg(), await h.createOrg()];
    await kit.createEndpoint(mine.keys.secret_test, { url: receiver.url });
    await kit.emit(sandboxOf(mine.id), 'coding.completed', { id: 'mine' });
    const foreign = await kit.emit(sandboxOf(theirs.id), 'coding.completed', { id: 'theirs' });
    expectError(await kit.call('GET', `/v1/events?starting_after=${foreign}`, mine.keys.secret_test), 400, 'invalid_cursor');
  });
});

describe('signatures and the envelope', () => {
  it('signs each delivery so that an independent HMAC verifies it; GET /v1/events/{id} has the exact body sent', async () => {
    const org = await h.createOrg();
    const endpoint = await kit.createEndpoint(org.keys.secret_test, { url: receiver.url });
    const object = { id: 'sess_1', status: 'completed', overall_score: 87, note: 'Zoë – naïve “quotes” 🚀' };
    h.clock.advance(1_234); // a created_at that is not a whole second
    const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', object);
    const emittedAt = nowSeconds();
    expect(eventId).toMatch(EVENT_ID);
    expect(await kit.drain()).toBe(1);

    const [got, ...more] = receivedFor(receiver, eventId);
    expect(more).toEqual([]);
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    const envelope = JSON.parse(got.body);
    expect(Object.keys(envelope).sort()).toEqual(['created_at', 'data', 'id', 'type']);
    expect(envelope).toEqual({ id: eventId, type: 'coding.completed', created_at: emittedAt, data: { object } });

    const { t, v1 } = parseSignature(got.headers['svc-signature']);
    expect(t).toBe(nowSeconds());
    expect(v1).toEqual([hmac(endpoint.secret, eventId, t, got.body)]);
    expect(hmac(endpoint.secret, eventId, t, got.body + ' ')).not.toBe(v1[0]);
    expect(verifyPrepWebhook({ body: got.body, eventId: String(got.headers['svc-event-id']), signature: String(got.headers['svc-signature']), secrets: [endpoint.secret], now: t })).toBe(true);

    const res = await kit.call('GET', `/v1/events/${eventId}`, org.keys.secret_test);
    expect(res.statusCode).toBe(200);
    const event = res.json();
    expect(event).toEqual({ object: 'event', id: eventId, type: 'coding.completed', livemode: false, status: 'delivered', created_at: emittedAt, payload: got.body });
    expect(Buffer.from(event.payload, 'utf8').equals(Buffer.from(got.body, 'utf8'))).toBe(true);
    expectError(await kit.call('GET', `/v1/events/${eventId}`, (await h.createOrg()).keys.secret_test), 404, 'resource_not_found');
  });

  it('after rotate-secret the next delivery carries a v1 for each secret; 24 hours later only the new one', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    const oldSecret = endpoint.secret;
    const newSecret = (await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, key)).json().secret as string;

    const during = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'during' });
    expect(await kit.drain()).toBe(1);
    const [got] = receivedFor(receiver, during);
    const sig = parseSignature(got.headers['svc-signature']);
    expect(sig.v1).toHaveLength(2);
    expect([...sig.v1].sort()).toEqual([hmac(oldSecret, during, sig.t, got.body), hmac(newSecret, during, sig.t, got.body)].sort());
    const verify = (secrets: string[], g = got, t = sig.t) =>
      verifyPrepWebhook({ body: g.body, eventId: String(g.headers['svc-event-id']), signature: String(g.headers['svc-signature']), secrets, now: t });
    expect(verify([oldSecret])).toBe(true);
    expect(verify([newSecret])).toBe(true);

    h.clock.advance(DAY);
    const after = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'after' });
    expect(await kit.drain()).toBe(1);
    const [late] = receivedFor(receiver, after);
    const lateSig = parseSignature(late.headers['svc-signature']);
    expect(lateSig.v1).toEqual([hmac(newSecret, after, lateSig.t, late.body)]);
    expect(verify([newSecret], late, lateSig.t)).toBe(true);
    expect(verify([oldSecret], late, lateSig.t)).toBe(false);
  });

  it('rotating twice within 24 hours keeps every secret inside its grace verifying (one v1 each), each for 24 hours from its own rotation', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    const rotate = async () => (await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, key)).json().secret as string;
    const s0 = endpoint.secret;
    const s1 = await rotate();
    h.clock.advance(12 * 3_600_000);
    const s2 = await rotate();

    const signedWith = async (id: string) => {
      const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id });
      expect(await kit.drain()).toBe(1);
      const [got] = receivedFor(receiver, eventId);
      const sig = parseSignature(got.headers['svc-signature']);
      const verifies = (secret: string) => verifyPrepWebhook({ body: got.body, eventId, signature: String(got.headers['svc-signature']), secrets: [secret], now: sig.t });
      return { count: sig.v1.length, verifies };
    };
    const both = await signedWith('twice');
    expect(both.count).toBe(3);
    for (const secret of [s0, s1, s2]) expect(both.verifies(secret)).toBe(true);

    h.clock.advance(12 * 3_600_000); // s0's grace (24 h from the first rotation) is over; s1's is not
    const later = await signedWith('later');
    expect(later.count).toBe(2);
    expect(later.verifies(s0)).toBe(false);
    expect(later.verifies(s1) && later.verifies(s2)).toBe(true);

    h.clock.advance(12 * 3_600_000);
    const last = await signedWith('last');
    expect(last.count).toBe(1);
    expect(last.verifies(s2) && !last.verifies(s1)).toBe(true);
  });

  it('refuses a rotation while five rotated secrets are still inside their grace', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    for (let i = 0; i < 5; i++) expect((await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, key)).statusCode).toBe(200);
    expectError(await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, key), 400, 'secret_rotation_limit');
    h.clock.advance(DAY);
    expect((await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, key)).statusCode).toBe(200);
  });
});

describe('the customer verifier (src/modules/webhooks/verify.ts)', () => {
  const secret = 'whsec_customer';
  const eventId = 'whevt_abc123';
  const body = '{"id":"whevt_abc123","type":"coding.completed","created_at":1700000000,"data":{"object":{"id":"x"}}}';
  const t = 1_700_000_000;
  const header = (...secrets: string[]) => [`t=${t}`, ...secrets.map((s) => `v1=${hmac(s, eventId, t, body)}`)].join(',');
  const verify = (over: Partial<Parameters<typeof verifyPrepWebhook>[0]> = {}) =>
    verifyPrepWebhook({ body, eventId, signature: header(secret), secrets: [secret], now: t, ...over });

  it('accepts a signature made with the secret, and any matching v1 among several', () => {
    expect(verify()).toBe(true);
    expect(verify({ signature: header('whsec_someone_else', secret) })).toBe(true);
    expect(verify({ signature: header(secret, 'whsec_someone_else') })).toBe(true);
    expect(verify({ secrets: ['whsec_retired', secret] })).toBe(true);
    expect(verify({ signature: `t=${t}, v1=${hmac(secret, eventId, t, body)}` })).toBe(true);
    // The default "now" is the system clock.
    const fresh = Math.floor(Date.now() / 1000);
    expect(verifyPrepWebhook({ body, eventId, secrets: [secret], signature: `t=${fresh},v1=${hmac(secret, eventId, fresh, body)}` })).toBe(true);
  });

  it('rejects a tampered body, another event id, a wrong secret and the prefix-less secret', () => {
    expect(verify({ body: body.replace('"x"', '"y"') })).toBe(false);
    expect(verify({ body: `${body} ` })).toBe(false);
    expect(verify({ eventId: 'whevt_abc124' })).toBe(false);
    expect(verify({ secrets: ['whsec_wrong'] })).toBe(false);
    expect(verify({ secrets: ['customer'] })).toBe(false); // the whole whsec_… string is the key
    expect(verify({ secrets: [] })).toBe(false);
  });

  it('never verifies against an empty or missing secret (an unset variable), even a signature made with the empty key', () => {
    expect(verify({ signature: header(''), secrets: [''] })).toBe(false);
    expect(verify({ signature: header(''), secrets: ['', secret] })).toBe(false);
    expect(verify({ secrets: [undefined as unknown as string] })).toBe(false); // process.env.UNSET: false, not a TypeError
    expect(verify({ secrets: [undefined as unknown as string, secret] })).toBe(true);
  });

  it('rejects a timestamp older than five minutes (or a custom tolerance)', () => {
    expect(verify({ now: t + 300 })).toBe(true);
    expect(verify({ now: t + 301 })).toBe(false);
    expect(verify({ now: t + 3600 })).toBe(false);
    expect(verify({ now: t + 60, toleranceSeconds: 30 })).toBe(false);
    expect(verify({ now: t + 600, toleranceSeconds: 900 })).toBe(true);
  });

  it('rejects a missing or malformed header', () => {
    const v1 = hmac(secret, eventId, t, body);
    expect(verify({ signature: undefined })).toBe(false);
    expect(verify({ eventId: undefined })).toBe(false);
    for (const signature of [
      '', 'garbage', `v1=${v1}`, `t=${t}`, `t=,v1=${v1}`, `t=abc,v1=${v1}`, `t=${t},v1=${v1.slice(0, 63)}`, `t=${t},v1=${v1}00`,
      `t=${t},v0=${v1}`, `t=${t};v1=${v1}`, `${v1}`,
    ]) {
      expect(verify({ signature }), signature).toBe(false);
    }
  });
});

describe('deliveries, the test operation and redirects', () => {
  it('lists attempts newest first with status code, a body cut at 2 KiB and the response time, never request headers', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    const long = 'xy€'.repeat(1_000); // 5 bytes a unit: the 2048-byte cut falls inside a '€'
    const events: string[] = [];
    for (const [status, bodyText] of [[200, long], [503, undefined], [201, undefined]] as const) {
      receiver.answer(status, bodyText === undefined ? {} : { body: bodyText });
      events.push(await kit.emit(sandboxOf(org.id), 'coding.completed', { n: events.length }));
      expect(await kit.worker().runOnce()).toBe(1);
      h.clock.advance(1_000);
    }

    const res = await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, key);
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(page.data.map((d: any) => d.event_id)).toEqual([...events].reverse());
    for (const d of page.data) {
      expect(Object.keys(d).sort()).toEqual(['created_at', 'error', 'event_id', 'id', 'object', 'response_body', 'response_time_ms', 'status_code', 'succeeded']);
      expect(d.object).toBe('webhook_delivery');
      expect(Number.isInteger(d.response_time_ms) && d.response_time_ms >= 0).toBe(true);
    }
    const [created, unavailable, truncated] = page.data;
    expect(created).toMatchObject({ status_code: 201, succeeded: true, response_body: 'answered 201', error: null });
    expect(unavailable).toMatchObject({ status_code: 503, succeeded: false, response_body: 'answered 503' });
    expect(truncated).toMatchObject({ status_code: 200, succeeded: true });
    expect(Buffer.byteLength(truncated.response_body)).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(truncated.response_body)).toBeGreaterThan(2000);
    expect(long.startsWith(truncated.response_body)).toBe(true); // cut, not mangled

    const text = res.body.toLowerCase();
    expect(text).not.toContain('svc-signature');
    expect(text).not.toContain('whsec_');
    for (const id of events) {
      const { v1 } = parseSignature(receivedFor(receiver, id)[0].headers['svc-signature']);
      expect(text).not.toContain(v1[0]);
    }

    const first = (await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=2`, key)).json();
    expect(first.data.map((d: any) => d.event_id)).toEqual([events[2], events[1]]);
    expect(first.has_more).toBe(true);
    const rest = (await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries?limit=2&starting_after=${first.next_cursor}`, key)).json();
    expect(rest.data.map((d: any) => d.event_id)).toEqual([events[0]]);
    expect(rest.has_more).toBe(false);
  });

  // Was a bug: a test event for a disabled endpoint was held like its other deliveries, so the customer could not
  // check a fixed receiver before re-enabling it (the event read pending until they did).
  it('POST …/test sends webhook.test to a disabled endpoint too (checking a receiver before re-enabling it)', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true })).statusCode).toBe(200);
    const event = (await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, key)).json();
    const other = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'parked' }); // not queued for it: disabled
    expect(await kit.drain()).toBe(1);
    expect(receivedFor(receiver, event.id)).toHaveLength(1);
    expect((await kit.call('GET', `/v1/events/${event.id}`, key)).json().status).toBe('delivered');
    expect(receivedFor(receiver, other)).toHaveLength(0);
  });

  it('POST …/test sends webhook.test whatever the filter, signed like any event, and tries it once', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url, enabled_events: ['coding.completed'] });

    const res = await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, key);
    expect(res.statusCode, res.body).toBe(202);
    const event = res.json();
    expect(event).toMatchObject({ object: 'event', type: 'webhook.test', livemode: false, status: 'pending' });
    expect(event.id).toMatch(EVENT_ID);
    expect(await kit.drain()).toBe(1);
    const [got] = receivedFor(receiver, event.id);
    expect(JSON.parse(got.body)).toMatchObject({ id: event.id, type: 'webhook.test', data: { object: expect.any(Object) } });
    const { t, v1 } = parseSignature(got.headers['svc-signature']);
    expect(v1).toEqual([hmac(endpoint.secret, event.id, t, got.body)]);
    expect((await kit.call('GET', `/v1/events/${event.id}`, key)).json()).toMatchObject({ status: 'delivered', payload: got.body });

    receiver.answer(500);
    const failing = (await kit.call('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, key)).json();
    expect(await kit.drain()).toBe(1);
    for (const wait of [30, 120, 600, 3600, 21_600]) {
      h.clock.advance(wait * 1000);
      expect(await kit.drain()).toBe(0);
    }
    expect(receivedFor(receiver, failing.id)).toHaveLength(1);
    expect((await kit.attemptsOf(endpoint.id)).filter((a) => a.event_id === failing.id).map((a) => a.status_code)).toEqual([500]);
    expect((await kit.call('GET', `/v1/events/${failing.id}`, key)).json().status).toBe('failed');
    expect((await kit.call('GET', '/v1/events?status=failed', key)).json().data.map((e: any) => e.id)).toEqual([failing.id]);

    expectError(await kit.call('POST', '/v1/webhook-endpoints/01900000-0000-7000-8000-000000000000/test', key), 404, 'resource_not_found');
  });

  it('does not follow a redirect: a 302 is a failed attempt and the Location gets nothing', async () => {
    const org = await h.createOrg();
    const endpoint = await kit.createEndpoint(org.keys.secret_test, { url: receiver.url });
    receiver.answer(302, { headers: { location: other.url } });
    const seenElsewhere = other.received.length;
    const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c' });
    expect(await kit.worker().runOnce()).toBe(1);

    expect(receivedFor(receiver, eventId)).toHaveLength(1);
    expect(other.received.length).toBe(seenElsewhere);
    const attempts = await kit.attemptsOf(endpoint.id);
    expect(attempts).toEqual([expect.objectContaining({ event_id: eventId, status_code: 302, succeeded: 0 })]);
    expect((await kit.deliveriesOfEvent(eventId))[0].status).toBe('pending'); // failed attempt: retried later
    const job = await h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'queued', attempts: 1, run_at: h.clock.now() + 30_000 });
  });
});

describe('environments and retention', () => {
  it('sends a live event only to live endpoints, and a sandbox event only to sandbox ones', async () => {
    const org = await h.createOrg();
    const liveEndpoint = await kit.createEndpoint(org.keys.secret_live, { url: receiver.url });
    const testEndpoint = await kit.createEndpoint(org.keys.secret_test, { url: receiver.url });

    const liveEvent = await kit.emit(liveOf(org.id), 'coding.completed', { id: 'l' });
    const testEvent = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 't' });
    expect((await kit.deliveriesOfEvent(liveEvent)).map((d) => d.endpoint_id)).toEqual([liveEndpoint.id]);
    expect((await kit.deliveriesOfEvent(testEvent)).map((d) => d.endpoint_id)).toEqual([testEndpoint.id]);
    expect(await kit.drain()).toBe(2);
    expect(receivedFor(receiver, liveEvent)).toHaveLength(1);
    expect(receivedFor(receiver, testEvent)).toHaveLength(1);
    const [liveGot] = receivedFor(receiver, liveEvent);
    const { t, v1 } = parseSignature(liveGot.headers['svc-signature']);
    expect(v1).toEqual([hmac(liveEndpoint.secret, liveEvent, t, liveGot.body)]);

    expect((await kit.call('GET', `/v1/events/${liveEvent}`, org.keys.secret_live)).json()).toMatchObject({ livemode: true, status: 'delivered' });
    expectError(await kit.call('GET', `/v1/events/${liveEvent}`, org.keys.secret_test), 404, 'resource_not_found');
    expectError(await kit.call('GET', `/v1/events/${testEvent}`, org.keys.secret_live), 404, 'resource_not_found');
    expect((await kit.call('GET', '/v1/events', org.keys.secret_test)).json().data.map((e: any) => e.id)).toEqual([testEvent]);
    expect((await kit.call('GET', '/v1/events', org.keys.secret_live)).json().data.map((e: any) => e.id)).toEqual([liveEvent]);
  });

  // Was a bug on PostgreSQL databases with a linguistic default collation (en_US, ICU; the test database is C.UTF-8):
  // ids of one millisecond compared letters case-blind ('a' before 'B'), so such events listed out of creation order.
  it('lists events of one millisecond in id byte order (creation order), on PostgreSQL by a "C" collation', async () => {
    const org = await h.createOrg();
    const at = h.clock.now();
    const ids = ['whevt_0000000000000000000000000000B', 'whevt_0000000000000000000000000000a'];
    await h.db.kysely.insertInto('events').values(ids.map((id) => ({
      id, organization_id: org.id, livemode: 0, type: 'coding.completed', payload: '{}', status: 'delivered', created_at: at,
    }))).execute();
    expect((await kit.call('GET', '/v1/events', org.keys.secret_test)).json().data.map((e: any) => e.id)).toEqual([...ids].reverse());
    if (h.db.dialect === 'postgres') {
      const { rows } = await sql<{ table_name: string; collation_name: string }>`select table_name, collation_name from information_schema.columns
        where table_schema = current_schema() and ((table_name = 'events' and column_name = 'id') or (table_name = 'webhook_deliveries' and column_name = 'event_id'))`.execute(h.db.kysely);
      expect(rows.map((r) => r.collation_name)).toEqual(['C', 'C']);
    }
  });

  it('the retention sweep deletes events older than 30 days with their deliveries, and keeps newer ones', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const endpoint = await kit.createEndpoint(key, { url: receiver.url });
    const old = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'old' });
    expect(await kit.drain()).toBe(1);
    h.clock.advance(20 * DAY);
    const recent = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'recent' });
    expect(await kit.drain()).toBe(1);
    h.clock.advance(11 * DAY);

    expect(await h.modules.webhooks.sweep()).toBeGreaterThanOrEqual(1);
    expectError(await kit.call('GET', `/v1/events/${old}`, key), 404, 'resource_not_found');
    expect(await kit.deliveriesOfEvent(old)).toEqual([]);
    expect((await kit.call('GET', `/v1/events/${recent}`, key)).json()).toMatchObject({ id: recent, status: 'delivered' });
    expect(await kit.deliveriesOfEvent(recent)).toHaveLength(1);
    expect((await kit.attemptsOf(endpoint.id)).map((a) => a.event_id)).toEqual([recent]);
    expect((await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, key)).json().data.map((d: any) => d.event_id)).toEqual([recent]);
    expect((await kit.call('GET', '/v1/events', key)).json().data.map((e: any) => e.id)).toEqual([recent]);
  });

  // Was slow: neither child key had an index, so each delivery the sweep deleted (its attempts' cascade) scanned every
  // attempt, and deleting or re-enabling an endpoint scanned every delivery: the sweep grew with the square of the data.
  it('finds a delivery\'s attempts and an endpoint\'s pending deliveries through an index, not a scan', async () => {
    const planOf = (query: { compile(): { sql: string; parameters: readonly unknown[] } }) => h.db.kysely.transaction().execute(async (tx) => {
      if (DIALECT === 'postgres') await sql`set local enable_seqscan = off`.execute(tx); // the tables are small here
      const { sql: text, parameters } = query.compile();
      const prefix = DIALECT === 'postgres' ? 'explain ' : 'explain query plan ';
      const rows = (await tx.executeQuery(CompiledQuery.raw(prefix + text, [...parameters]))).rows as Array<Record<string, string>>;
      return rows.map((r) => r['QUERY PLAN'] ?? r.detail).join('\n');
    });
    const ofDelivery = await planOf(h.db.kysely.deleteFrom('webhook_attempts').where('delivery_id', '=', '00000000-0000-7000-8000-000000000000'));
    expect(ofDelivery).toMatch(DIALECT === 'postgres' ? /Index Cond: \(+delivery_id = / : /SEARCH webhook_attempts USING (COVERING )?INDEX \S+ \(delivery_id=/);
    const pending = await planOf(h.db.kysely.selectFrom('webhook_deliveries').select('id')
      .where('endpoint_id', '=', '00000000-0000-7000-8000-000000000000').where('status', '=', 'pending'));
    expect(pending).toMatch(DIALECT === 'postgres' ? /Index Cond: \(+endpoint_id = / : /SEARCH webhook_deliveries USING (COVERING )?INDEX \S+ \(endpoint_id=/);
  });

  it('one sweep removes every expired event, however many there are', async () => {
    const org = await h.createOrg();
    const created_at = h.clock.now() - 31 * DAY;
    const rows = Array.from({ length: 2_500 }, (_, i) => ({
      id: `whevt_bulk${org.id.slice(-12).replace(/-/g, '')}${i}`, organization_id: org.id, livemode: 0 as const, type: 'coding.completed',
      payload: '{}', status: 'delivered' as const, created_at,
    }));
    for (let i = 0; i < rows.length; i += 500) await h.db.kysely.insertInto('events').values(rows.slice(i, i + 500)).execute();
    expect(await h.modules.webhooks.sweep()).toBeGreaterThanOrEqual(2_500);
    const left = await h.db.kysely.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', org.id).executeTakeFirstOrThrow();
    expect(Number(left.n)).toBe(0);
  });
});
