import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { createWorker } from '../../src/jobs/worker.js';
import { createDeliveryFairness } from '../../src/modules/webhooks/fairness.js';
import { createWebhookRepo } from '../../src/modules/webhooks/repo.js';
import { createWebhookService, webhookJobs } from '../../src/modules/webhooks/service.js';
import { countStatements } from '../helpers/sql-count.js';
import { hmac, parseSignature, receivedFor, sandboxOf, startReceivers, webhookKit, type Receiver } from '../helpers/webhooks.js';

// Delivery through the job queue: the retry schedule, time-outs, redelivery, crashed workers and hung receivers.
// The send time-out is 1 s here, so a hung receiver costs a second; every answered delivery has to fit in it too (the
// slowest here, the first TLS handshake, takes up to 100 ms with other tests running: 300 ms left it 3 times that).
// Only a delivery that times out marks its organisation slow (fairness is webhooks-fairness.test.ts's): at the default,
// half the time-out, a busy machine's answered deliveries postponed the others, and a test that meant each to have
// had one attempt found some with none.

let h: Harness;
let receivers: Awaited<ReturnType<typeof startReceivers>>;
let receiver: Receiver;
let hung: Receiver;
let kit: ReturnType<typeof webhookKit>;
const TIMEOUT_MS = 1_000;

beforeAll(async () => {
  receivers = await startReceivers(2);
  [receiver, hung] = receivers.receivers;
  h = await startHarness({
    env: { PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: receivers.caFile, PREP_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), PREP_WEBHOOK_SLOW_MS: String(TIMEOUT_MS) },
  });
  kit = webhookKit(h);
});
afterEach(async () => {
  receiver.answer(200);
  hung.answer(200);
  await kit.clearJobs();
});
afterAll(async () => {
  await h?.close();
  await receivers?.close();
});

/** The waits before each attempt after a failure: the first attempt is immediate, five in all. */
const SCHEDULE_SECONDS = [30, 120, 600, 3600];

async function setup() {
  const org = await h.createOrg();
  const endpoint = await kit.createEndpoint(org.keys.secret_test, { url: receiver.url });
  return { org, key: org.keys.secret_test, endpoint, tenant: sandboxOf(org.id) };
}

const eventOf = async (key: string, id: string) => (await kit.call('GET', `/v1/events/${id}`, key)).json();

/**
 * Runs one full attempt budget against a failing receiver: one attempt now, then one at each wait of the
 * schedule, checking that nothing runs a second early. Returns the times of the attempts (Unix seconds).
 */
async function failThroughSchedule(eventId: string) {
  const w = kit.worker();
  const times = [Math.floor(h.clock.now() / 1000)];
  const start = receivedFor(receiver, eventId).length;
  expect(await w.runOnce()).toBe(1);
  for (const wait of SCHEDULE_SECONDS) {
    h.clock.advance(wait * 1000 - 1000);
    expect(await w.runOnce(), `${wait} s minus one`).toBe(0);
    h.clock.advance(1000);
    times.push(Math.floor(h.clock.now() / 1000));
    expect(await w.runOnce(), `${wait} s`).toBe(1);
  }
  h.clock.advance(6 * 3_600_000 + 86_400_000);
  expect(await w.runOnce()).toBe(0); // no sixth attempt
  expect(receivedFor(receiver, eventId).length - start).toBe(5);
  return times;
}

describe('webhook delivery retries', () => {
  it('tries a receiver that answers 500 exactly five times, at 0, +30 s, +2 min, +10 min and +1 h, then fails the event', async () => {
    const { key, endpoint, tenant } = await setup();
    receiver.answer(500);
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'c' });
    const times = await failThroughSchedule(eventId);
    const t0 = times[0];
    expect(times).toEqual([t0, t0 + 30, t0 + 150, t0 + 750, t0 + 4350]);

    // Same id and same bytes on every attempt, each signed afresh.
    const got = receivedFor(receiver, eventId);
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    expect(got.map((g) => parseSignature(g.headers['svc-signature']).t)).toEqual(times);
    for (const g of got) {
      const { t, v1 } = parseSignature(g.headers['svc-signature']);
      expect(v1).toEqual([hmac(endpoint.secret, eventId, t, g.body)]);
    }

    const deliveries = (await kit.call('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`, key)).json().data;
    expect(deliveries.map((d: any) => [d.status_code, d.succeeded, d.created_at])).toEqual([...times].reverse().map((t) => [500, false, t]));
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'failed', payload: got[0].body });
    expect((await kit.call('GET', '/v1/events?status=failed', key)).json().data.map((e: any) => e.id)).toEqual([eventId]);
    expect((await kit.call('GET', '/v1/events?status=pending', key)).json().data).toEqual([]);
    const job = await h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').executeTakeFirstOrThrow();
    // The job, the delivery and the event all read failed after the last attempt.
    expect(job).toMatchObject({ attempts: 5, status: 'failed' });
    expect(await kit.deliveriesOfEvent(eventId)).toEqual([expect.objectContaining({ status: 'failed' })]);
  });

  it('holds retries already queued when the endpoint is disabled (no attempt made or used), and sends them with the attempts left once re-enabled', async () => {
    const { key, endpoint, tenant } = await setup();
    receiver.answer(500);
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'held' });
    const w = kit.worker();
    expect(await w.runOnce()).toBe(1); // attempt 1 fails; attempt 2 is queued for +30 s
    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true })).statusCode).toBe(200);

    h.clock.advance(30_000);
    expect(await w.runOnce()).toBe(1); // the retry comes due, finds the endpoint disabled and holds
    h.clock.advance(86_400_000);
    expect(await w.runOnce()).toBe(0); // nothing left running while held
    expect(receivedFor(receiver, eventId)).toHaveLength(1);
    expect(await kit.attemptsOf(endpoint.id)).toHaveLength(1);
    expect(await kit.deliveriesOfEvent(eventId)).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'pending' });

    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false })).statusCode).toBe(200);
    const queued = await h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').where('status', '=', 'queued').execute();
    expect(queued).toEqual([expect.objectContaining({ max_attempts: 5, attempts: 1 })]); // five, one made
    // Re-enabling twice does not queue it twice.
    await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true });
    await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false });
    expect(await h.db.kysely.selectFrom('background_jobs').select('id').where('kind', '=', 'webhook.deliver').where('status', '=', 'queued').execute()).toHaveLength(1);

    receiver.answer(200);
    expect(await w.runOnce()).toBe(1);
    expect(receivedFor(receiver, eventId)).toHaveLength(2);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
  });

  // Was slow: re-enabling queued each held delivery's job in its own statement (thousands for an endpoint disabled for
  // days, in the request's transaction).
  it('queues the deliveries held while disabled in a few statements, each with the attempts it had left', async () => {
    const { key, endpoint, tenant } = await setup();
    receiver.answer(500);
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push(await kit.emit(tenant, 'coding.completed', { id: `held-many-${i}` }));
    const w = kit.worker();
    while (await w.runOnce() > 0); // the first attempts fail; retries are queued for +30 s
    await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true });
    h.clock.advance(30_000);
    while (await w.runOnce() > 0); // each comes due and is held
    expect(await h.db.kysely.selectFrom('background_jobs').select('id').where('kind', '=', 'webhook.deliver').where('status', '=', 'queued').execute()).toHaveLength(0);

    const { statements } = await countStatements(() => kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false }));
    expect(statements.filter((s) => /^\s*insert into "background_jobs"/i.test(s))).toHaveLength(1);
    const queued = await h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').where('status', '=', 'queued').execute();
    expect(queued).toHaveLength(12);
    for (const job of queued) expect(job).toMatchObject({ max_attempts: 5, attempts: 1 });
    receiver.answer(200);
    while (await w.runOnce() > 0);
    for (const id of ids) expect(await eventOf(key, id)).toMatchObject({ status: 'delivered' });
  });

  it('a redelivered delivery held while its endpoint is disabled keeps what is left of its fresh budget, not one attempt', async () => {
    const { key, endpoint, tenant } = await setup();
    receiver.answer(500);
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'held-again' });
    await failThroughSchedule(eventId); // five attempts made: the event is failed
    h.clock.advance(1_000);
    expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, key)).statusCode).toBe(200);
    const w = kit.worker();
    expect(await w.runOnce()).toBe(1); // the first of five fresh attempts fails; a retry in 30 s
    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true })).statusCode).toBe(200);
    h.clock.advance(30_000);
    expect(await w.runOnce()).toBe(1); // held

    expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false })).statusCode).toBe(200);
    const queued = await h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').where('status', '=', 'queued').execute();
    expect(queued).toEqual([expect.objectContaining({ max_attempts: 5, attempts: 1 })]); // the fresh five, one made
    expect(await w.runOnce()).toBe(1); // fails again: retried, not the last
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'pending' });
  });

  it('counts a time-out as a failure and retries it', async () => {
    const { key, endpoint, tenant } = await setup();
    receiver.hang();
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'c' });
    const started = Date.now();
    expect(await kit.worker().runOnce()).toBe(1);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2_000);

    expect(receivedFor(receiver, eventId)).toHaveLength(1); // sent, never answered
    const [attempt] = await kit.attemptsOf(endpoint.id);
    expect(attempt).toMatchObject({ status_code: null, response_body: null, succeeded: 0 });
    expect(attempt.error).toMatch(/^timeout:/);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'pending' });
    const job = await h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'queued', attempts: 1, run_at: h.clock.now() + 30_000 });

    receiver.answer(200);
    h.clock.advance(30_000);
    expect(await kit.worker().runOnce()).toBe(1);
    expect(receivedFor(receiver, eventId)).toHaveLength(2);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
  });

  it('redelivers only a failed event, with the same id and a fresh budget of five attempts', async () => {
    const { key, endpoint, tenant } = await setup();
    receiver.answer(500);
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'c' });
    const pending = await kit.call('POST', `/v1/events/${eventId}/redeliver`, key);
    expect(pending.statusCode).toBe(400);
    expect(pending.json().error.code).toBe('event_not_replayable');

    await failThroughSchedule(eventId);
    const res = await kit.call('POST', `/v1/events/${eventId}/redeliver`, key);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ object: 'event', id: eventId, status: 'pending' });
    await failThroughSchedule(eventId); // five more, not one
    expect(receivedFor(receiver, eventId)).toHaveLength(10);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'failed' });

    expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, key)).statusCode).toBe(200);
    receiver.answer(200);
    expect(await kit.worker().runOnce()).toBe(1);
    const got = receivedFor(receiver, eventId);
    expect(got).toHaveLength(11);
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
    expect(await kit.attemptsOf(endpoint.id)).toHaveLength(11);

    const delivered = await kit.call('POST', `/v1/events/${eventId}/redeliver`, key);
    expect(delivered.statusCode).toBe(400);
    expect(delivered.json().error.code).toBe('event_not_replayable');
    const unknown = await kit.call('POST', '/v1/events/whevt_doesnotexist0000/redeliver', key);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('resource_not_found');
    const stranger = (await h.createOrg()).keys.secret_test;
    expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, stranger)).statusCode).toBe(404);
    expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, (await setup()).org.keys.secret_live)).statusCode).toBe(404);
  });
});

it('of redeliveries asked for at once, one requeues the failed event; the others find it pending (event_not_replayable)', async () => {
  const { key, tenant } = await setup();
  receiver.answer(500);
  const eventId = await kit.emit(tenant, 'coding.completed', { id: 'c' });
  await failThroughSchedule(eventId);
  const replies = await Promise.all(Array.from({ length: 6 }, () => kit.call('POST', `/v1/events/${eventId}/redeliver`, key)));
  expect(replies.map((r) => r.statusCode).sort()).toEqual([200, 400, 400, 400, 400, 400]);
  for (const r of replies.filter((x) => x.statusCode === 400)) expect(r.json().error.code).toBe('event_not_replayable');
});

describe('events delivered to several endpoints', () => {
  it('settles an event as delivered when its deliveries succeed in the same worker pass', async () => {
    const org = await h.createOrg();
    for (let i = 0; i < 4; i++) await kit.createEndpoint(org.keys.secret_test, { url: receiver.url });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await kit.emit(sandboxOf(org.id), 'coding.completed', { i }));
      expect(await kit.worker(4).runOnce()).toBe(4); // four deliveries settling at once
      h.clock.advance(1_000);
    }
    const events = (await kit.call('GET', '/v1/events', org.keys.secret_test)).json().data;
    expect(events.map((e: any) => [e.id, e.status])).toEqual([...ids].reverse().map((id) => [id, 'delivered']));
  });
});

describe('endpoints that go away', () => {
  it('fails a pending delivery whose endpoint was deleted, so its event is failed (and redeliverable), not pending for ever', async () => {
    const { key, endpoint, tenant } = await setup();
    receiver.answer(500);
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'c' });
    expect(await kit.worker().runOnce()).toBe(1);
    expect((await kit.call('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, key)).statusCode).toBe(200);
    receiver.answer(200);
    h.clock.advance(30_000);
    expect(await kit.worker().runOnce()).toBe(1);
    expect(receivedFor(receiver, eventId)).toHaveLength(1); // nothing sent to a deleted endpoint
    expect(await kit.deliveriesOfEvent(eventId)).toEqual([expect.objectContaining({ status: 'failed' })]);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'failed' });
    expect((await kit.call('GET', '/v1/events?status=pending', key)).json().data).toEqual([]);
  });
});

// Was a bug: redeliver queued the failed delivery to a deleted endpoint again, which failed at once, so the event read
// failed for good, even once every endpoint that remained had it.
it('redelivers to the endpoints that remain: a delivery to an endpoint deleted since is dropped, and the event settles', async () => {
  const org = await h.createOrg();
  const key = org.keys.secret_test;
  const gone = await kit.createEndpoint(key, { url: hung.url });
  const kept = await kit.createEndpoint(key, { url: receiver.url });
  hung.answer(500);
  receiver.answer(500);
  const eventId = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c' });
  expect(await kit.worker().runOnce()).toBe(2); // both fail their first attempt
  expect((await kit.call('DELETE', `/v1/webhook-endpoints/${gone.id}`, key)).statusCode).toBe(200);
  expect(await eventOf(key, eventId)).toMatchObject({ status: 'failed' });
  for (const wait of SCHEDULE_SECONDS) { // the kept endpoint uses up its attempts
    h.clock.advance(wait * 1000);
    await kit.worker().runOnce();
  }
  expect((await kit.deliveriesOfEvent(eventId)).map((d) => d.status)).toEqual(['failed', 'failed']);

  receiver.answer(200);
  const res = await kit.call('POST', `/v1/events/${eventId}/redeliver`, key);
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ id: eventId, status: 'pending' });
  expect(await kit.drain()).toBe(1);
  expect(receivedFor(hung, eventId)).toHaveLength(1); // the first attempt only
  expect(receivedFor(receiver, eventId).at(-1)).toBeDefined();
  expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
  expect((await kit.deliveriesOfEvent(eventId)).map((d) => d.endpoint_id)).toEqual([kept.id]);

  // An event whose only failure was on an endpoint deleted since has nothing left to send: it settles at once.
  const other = await h.createOrg();
  const lone = await kit.createEndpoint(other.keys.secret_test, { url: hung.url });
  const loneEvent = await kit.emit(sandboxOf(other.id), 'resume.scored', { id: 'r' });
  expect((await kit.call('DELETE', `/v1/webhook-endpoints/${lone.id}`, other.keys.secret_test)).statusCode).toBe(200);
  expect(await eventOf(other.keys.secret_test, loneEvent)).toMatchObject({ status: 'failed' });
  const again = await kit.call('POST', `/v1/events/${loneEvent}/redeliver`, other.keys.secret_test);
  expect(again.json()).toMatchObject({ id: loneEvent, status: 'delivered' });
  await kit.drain();
  expect(receivedFor(hung, loneEvent)).toHaveLength(0);
  expect(await eventOf(other.keys.secret_test, loneEvent)).toMatchObject({ status: 'delivered' });
});

describe('webhook delivery when workers or receivers misbehave', () => {
  const claimAsDeadWorker = async () => {
    const [job, ...more] = await h.services.queue.claim('dead-worker', ['webhook.deliver'], 1, 60_000);
    expect(job).toBeDefined();
    expect(more).toEqual([]);
    return job;
  };

  it('loses nothing when a worker dies after claiming a delivery: another takes it once the lease runs out', async () => {
    const { key, tenant } = await setup();
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'c' });
    await claimAsDeadWorker();
    const w = kit.worker();
    expect(await w.runOnce()).toBe(0); // leased to the dead worker
    h.clock.advance(59_000);
    expect(await w.runOnce()).toBe(0);
    h.clock.advance(1_000);
    expect(await w.runOnce()).toBe(1);
    expect(receivedFor(receiver, eventId)).toHaveLength(1);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
  });

  it('sends again, with the same event id, when a worker died after sending but before recording the outcome', async () => {
    const { key, tenant } = await setup();
    receiver.hang();
    const eventId = await kit.emit(tenant, 'coding.completed', { id: 'c' });
    const job = await claimAsDeadWorker();
    // The dead worker's send reaches the receiver; it never hears back and never reports to the queue.
    await expect(h.modules.webhooks.deliver(JSON.parse(job.payload), job)).rejects.toThrow();
    expect(receivedFor(receiver, eventId)).toHaveLength(1);

    receiver.answer(200);
    h.clock.advance(60_000);
    expect(await kit.worker().runOnce()).toBe(1);
    const got = receivedFor(receiver, eventId);
    expect(got).toHaveLength(2); // at least once
    expect(got[1].body).toBe(got[0].body);
    expect(JSON.parse(got[1].body).id).toBe(eventId);
    expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
    const settled = await h.db.kysely.selectFrom('background_jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    expect(settled).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('does not let a hung receiver stall the other deliveries of the same pass', async () => {
    const org = await h.createOrg();
    const key = org.keys.secret_test;
    const stuck = await kit.createEndpoint(key, { url: hung.url, enabled_events: ['coding.completed'] });
    const healthy = await kit.createEndpoint(key, { url: receiver.url, enabled_events: ['resume.scored'] });
    hung.hang();
    const stuckEvent = await kit.emit(sandboxOf(org.id), 'coding.completed', { id: 'c' });
    h.clock.advance(1); // the hung delivery is first in claim order
    const healthyEvent = await kit.emit(sandboxOf(org.id), 'resume.scored', { id: 'r' });

    const pass = kit.worker(2).runOnce();
    const deadline = Date.now() + 10_000;
    while (receivedFor(receiver, healthyEvent).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    const healthyArrived = receivedFor(receiver, healthyEvent).length;
    const stuckSettledBefore = (await kit.attemptsOf(stuck.id)).length;
    expect(await pass).toBe(2);
    expect(healthyArrived).toBe(1);
    expect(stuckSettledBefore).toBe(0); // the healthy delivery did not wait for the hung one

    expect(await kit.attemptsOf(healthy.id)).toEqual([expect.objectContaining({ event_id: healthyEvent, status_code: 200, succeeded: 1 })]);
    const [timedOut] = await kit.attemptsOf(stuck.id);
    expect(timedOut).toMatchObject({ event_id: stuckEvent, status_code: null, succeeded: 0 });
    expect(timedOut.error).toMatch(/^timeout:/);
    expect(receivedFor(hung, stuckEvent)).toHaveLength(1);
    expect(await eventOf(key, healthyEvent)).toMatchObject({ status: 'delivered' });
    expect(await eventOf(key, stuckEvent)).toMatchObject({ status: 'pending' });
  });
});

// Was a bug: a database error recording the last attempt (the send had happened) failed the job for good while the
// delivery and its event read pending for ever: never tried again, and not redeliverable (only a failed event is).
it('fails the delivery and its event when the last attempt could not be recorded, so the event can be redelivered', async () => {
  const { key, endpoint, tenant } = await setup();
  receiver.answer(500);
  const eventId = await kit.emit(tenant, 'coding.completed', { id: 'unrecorded' });
  const repo = createWebhookRepo(h.db);
  let breakRecording = false;
  const flaky = {
    ...repo,
    insertAttempt: (...args: Parameters<typeof repo.insertAttempt>) => {
      if (breakRecording) throw new Error('connection reset while recording the attempt');
      return repo.insertAttempt(...args);
    },
  };
  const service = createWebhookService({
    db: h.db.kysely, clock: h.clock, repo: flaky, queue: h.services.queue, encryption: h.services.encryption,
    sender: h.services.sender, fairness: createDeliveryFairness({ slowMs: 1_000 }),
  });
  const w = createWorker({ queue: h.services.queue, clock: h.clock, handlers: webhookJobs(service), log: { error: () => {} } });
  expect(await w.runOnce()).toBe(1);
  for (const wait of SCHEDULE_SECONDS.slice(0, -1)) {
    h.clock.advance(wait * 1000);
    expect(await w.runOnce()).toBe(1);
  }
  breakRecording = true;
  receiver.answer(200); // the last attempt reaches the receiver; recording it fails
  h.clock.advance(SCHEDULE_SECONDS.at(-1)! * 1000);
  expect(await w.runOnce()).toBe(1);
  expect(receivedFor(receiver, eventId)).toHaveLength(5);
  const job = await h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').executeTakeFirstOrThrow();
  expect(job).toMatchObject({ status: 'failed', attempts: 5 });
  expect(await kit.deliveriesOfEvent(eventId)).toEqual([expect.objectContaining({ status: 'failed' })]);
  expect(await eventOf(key, eventId)).toMatchObject({ status: 'failed' });
  breakRecording = false;
  expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, key)).statusCode).toBe(200);
  expect(await w.runOnce()).toBe(1);
  expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
  expect((await kit.attemptsOf(endpoint.id)).at(-1)).toMatchObject({ status_code: 200, succeeded: 1 });
});

// Was a bug: a held delivery's retries began the schedule again once its endpoint was re-enabled (30 s, 2 min, 10 min
// after the attempt sent at once), so one that had made one attempt gave up 12.5 minutes later instead of 72.
it('a held delivery goes on with the schedule where it left off once its endpoint is re-enabled', async () => {
  const { key, endpoint, tenant } = await setup();
  receiver.answer(500);
  const eventId = await kit.emit(tenant, 'coding.completed', { id: 'held-schedule' });
  const w = kit.worker();
  expect(await w.runOnce()).toBe(1); // attempt 1
  expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: true })).statusCode).toBe(200);
  h.clock.advance(30_000);
  expect(await w.runOnce()).toBe(1); // held
  h.clock.advance(3_600_000);
  expect((await kit.call('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, key, { disabled: false })).statusCode).toBe(200);
  expect(await w.runOnce()).toBe(1); // attempt 2, at once
  for (const wait of SCHEDULE_SECONDS.slice(1)) { // attempts 3, 4 and 5: 2 min, 10 min and 1 h after the one before
    h.clock.advance(wait * 1000 - 1000);
    expect(await w.runOnce(), `${wait} s minus one`).toBe(0);
    h.clock.advance(1000);
    expect(await w.runOnce(), `${wait} s`).toBe(1);
  }
  h.clock.advance(86_400_000);
  expect(await w.runOnce()).toBe(0);
  expect(receivedFor(receiver, eventId)).toHaveLength(5);
  expect(await eventOf(key, eventId)).toMatchObject({ status: 'failed' });
});

it('a redelivery asked for the moment a last attempt has failed and been recorded is sent, not failed by that job', async () => {
  const { key, tenant } = await setup();
  receiver.answer(500);
  const eventId = await kit.emit(tenant, 'webhook.test', { id: 'raced' }); // one attempt: the first is the last
  const service = createWebhookService({
    db: h.db.kysely, clock: h.clock, repo: createWebhookRepo(h.db), queue: h.services.queue, encryption: h.services.encryption,
    sender: h.services.sender, fairness: createDeliveryFairness({ slowMs: 1_000 }),
  });
  const deliver = service.deliver;
  service.deliver = async (payload, job) => {
    try {
      await deliver(payload, job);
    } catch (error) {
      // The attempt's failure is committed; the customer's redelivery lands before the worker has gone on.
      expect((await kit.call('POST', `/v1/events/${eventId}/redeliver`, key)).statusCode).toBe(200);
      throw error;
    }
  };
  const w = createWorker({ queue: h.services.queue, clock: h.clock, handlers: webhookJobs(service), log: { error: () => {} } });
  expect(await w.runOnce()).toBe(1);
  expect(await kit.deliveriesOfEvent(eventId)).toEqual([expect.objectContaining({ status: 'pending' })]);
  receiver.answer(200);
  expect(await w.runOnce()).toBe(1);
  expect(receivedFor(receiver, eventId)).toHaveLength(2);
  expect(await eventOf(key, eventId)).toMatchObject({ status: 'delivered' });
});
