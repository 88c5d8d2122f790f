import { describe, expect, it } from 'vitest';
import { until as untilHolds } from '../helpers/processes.js';
import { workerDeliverySuite } from '../helpers/webhooks.js';

// A delivery may wait 8 s for its receiver; a worker told to stop waits 300 ms for it.
const suite = workerDeliverySuite({ PREP_WEBHOOK_TIMEOUT_MS: '8000', PREP_JOB_LEASE_MS: '9000', PREP_SHUTDOWN_GRACE_MS: '300' });

const until = (check: () => boolean | Promise<boolean>, ms = 30_000) => untilHolds(check, ms);

describe('a worker stopped in the middle of a delivery', () => {
  // Was a bug: SIGTERM waited for the jobs in hand with no bound (a job may run an hour). It now exits 1 once
  // PREP_SHUTDOWN_GRACE_MS has passed, and the job, left to its lease, is run again by another worker.
  it('exits once the shutdown grace has passed; the job is run again by another worker once its lease runs out', async () => {
    const { h, receiver, startWorker } = suite;
    const endpoint = await h.app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: { authorization: `Bearer ${h.org.keys.secret_test}` }, payload: { url: receiver.url } });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    receiver.hang();
    h.clock.set(Date.now()); // the worker processes run on the system clock
    const eventId = await h.db.kysely.transaction().execute((tx) =>
      h.modules.webhooks.emitEvent(tx, { organizationId: h.org.id, livemode: false }, 'webhook.test', { stop: true }));

    const first = await startWorker();
    let stderr = '';
    first.stderr!.on('data', (d) => (stderr += d));
    await until(() => receiver.received.length === 1);
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
    first.kill('SIGTERM');
    const code = await exited;
    expect(Date.now() - started).toBeLessThan(5_000); // the delivery itself would have waited 8 s
    expect(code).toBe(1);
    expect(stderr).toContain('(PREP_SHUTDOWN_GRACE_MS): exiting');
    receiver.answer(200);

    await startWorker();
    await until(async () => (await h.db.kysely.selectFrom('events').select('status').where('id', '=', eventId).executeTakeFirst())?.status === 'delivered');
    expect(receiver.received.map((r) => r.headers['svc-event-id'])).toEqual([eventId, eventId]);
    // The job is marked done after its handler (which marked the event delivered) returns: a statement later.
    const deliveryJob = () => h.db.kysely.selectFrom('background_jobs').selectAll().where('kind', '=', 'webhook.deliver').executeTakeFirstOrThrow();
    await until(async () => (await deliveryJob()).status !== 'running');
    const job = await deliveryJob();
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2 });
  }, 90_000);
});
