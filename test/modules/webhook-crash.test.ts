import { describe, expect, it } from 'vitest';
import { until as untilHolds } from '../helpers/processes.js';
import { workerDeliverySuite } from '../helpers/webhooks.js';

const suite = workerDeliverySuite({ PREP_WEBHOOK_TIMEOUT_MS: '1000', PREP_JOB_LEASE_MS: '1500' });

const until = (check: () => boolean | Promise<boolean>, ms = 15_000) => untilHolds(check, ms);

describe('a worker killed in the middle of a delivery', () => {
  it('loses nothing: after its lease runs out another worker delivers the same event id again', async () => {
    const { h, receiver, startWorker } = suite;
    const endpoint = await h.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: { authorization: `Bearer ${h.org.keys.secret_test}` }, payload: { url: receiver.url } });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    receiver.hang(); // the first attempt is in flight when its worker dies
    // Real time: the worker processes run on the system clock.
    h.clock.set(Date.now());
    const eventId = await h.db.kysely.transaction().execute((tx) =>
      h.modules.webhooks.emitEvent(tx, { organizationId: h.org.id, livemode: false }, 'webhook.test', { crash: true }));

    const first = await startWorker();
    await until(() => receiver.received.length === 1);
    first.kill('SIGKILL');
    receiver.answer(200);

    await startWorker();
    await until(async () => (await h.db.kysely.selectFrom('events').select('status').where('id', '=', eventId).executeTakeFirst())?.status === 'delivered');
    expect(receiver.received.map((r) => r.headers['svc-event-id'])).toEqual([eventId, eventId]);
    // The job is marked done after its handler (which marked the event delivered) returns: a statement later.
    const deliveryJob = () => h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').executeTakeFirstOrThrow();
    await until(async () => (await deliveryJob()).status !== 'running');
    const job = await deliveryJob();
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2 });
  });
});
