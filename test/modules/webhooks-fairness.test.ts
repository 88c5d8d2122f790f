import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createDeliveryFairness, SLOW_DELIVERIES, SLOW_ORGANIZATION_DELIVERIES } from '../../src/modules/webhooks/fairness.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { receivedFor, sandboxOf, startReceivers, webhookKit } from '../helpers/webhooks.js';

// Was a bug: one customer's receiver that hangs held the worker's slots a time-out each, delivery after delivery, so
// every other customer's events (and every other kind of job) waited behind its backlog.

let h: Harness;
let receivers: Awaited<ReturnType<typeof startReceivers>>;
let kit: ReturnType<typeof webhookKit>;

beforeAll(async () => {
  receivers = await startReceivers(2);
  h = await startHarness({ env: { PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost', PREP_WEBHOOK_CA_FILE: receivers.caFile, PREP_WEBHOOK_TIMEOUT_MS: '1000' } });
  kit = webhookKit(h);
});
afterAll(async () => {
  for (const r of receivers?.receivers ?? []) r.answer(200);
  await h?.close();
  await receivers?.close();
});

describe('sharing delivery slots between organisations', () => {
  it('counts a receiver slow from a second, or half the time-out when shorter, or PREP_WEBHOOK_SLOW_MS up to the time-out', () => {
    expect(loadConfig({}).webhooks.slowMs).toBe(1_000);
    expect(loadConfig({ PREP_WEBHOOK_TIMEOUT_MS: '1000' }).webhooks.slowMs).toBe(500);
    expect(loadConfig({ PREP_WEBHOOK_SLOW_MS: '3000' }).webhooks.slowMs).toBe(3_000);
    expect(loadConfig({ PREP_WEBHOOK_TIMEOUT_MS: '2000', PREP_WEBHOOK_SLOW_MS: '2000' }).webhooks.slowMs).toBe(2_000);
    for (const bad of ['0', '10001', 'soon']) expect(() => loadConfig({ PREP_WEBHOOK_SLOW_MS: bad }), bad).toThrow(ConfigError);
  });

  it('a customer whose receiver hangs holds few slots once it is seen to be slow: another customer\'s event goes out meanwhile', async () => {
    const [hanging, healthy] = receivers.receivers;
    const slowOrg = await h.createOrg('Slow');
    const otherOrg = await h.createOrg('Other');
    await kit.createEndpoint(slowOrg.keys.secret_test, { url: hanging.url });
    await kit.createEndpoint(otherOrg.keys.secret_test, { url: healthy.url });
    hanging.hang();
    for (let i = 0; i < 40; i++) await kit.emit(sandboxOf(slowOrg.id), 'coding.completed', { id: `slow-${i}` });
    const eventId = await kit.emit(sandboxOf(otherOrg.id), 'coding.completed', { id: 'other' });
    // 4 slots: the slow customer's first four hang to the time-out (1 s), and 36 more are waiting before the other
    // customer's event; without sharing, it went out only after nine more rounds of time-outs.
    const w = kit.worker(4);
    await w.start();
    try {
      // About 1 s here (one round of time-outs); without sharing, 10 s at the least (time-outs no machine beats).
      await expect.poll(() => receivedFor(healthy, eventId).length, { timeout: 6_000, interval: 50 }).toBe(1);
    } finally {
      await w.stop();
      hanging.answer(200);
      await kit.clearJobs();
    }
    // The waiting deliveries were put back with no attempt used.
    const slowDeliveries = await h.db.kysely.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending')
      .where('endpoint_id', 'in', h.db.kysely.selectFrom('webhook_endpoints').select('id').where('organization_id', '=', slowOrg.id)).execute();
    expect(slowDeliveries.length).toBe(40);
    const attempts = await h.db.kysely.selectFrom('webhook_attempts').select('id').where('delivery_id', 'in', slowDeliveries.map((d) => d.id)).execute();
    expect(attempts.length).toBeLessThanOrEqual(4 + SLOW_ORGANIZATION_DELIVERIES);
  }, 15_000);
});

describe('the delivery fairness rule', () => {
  it('never limits an organisation whose deliveries are fast, and limits a slow one until a minute after its last slow delivery', () => {
    let now = 0;
    const fairness = createDeliveryFairness({ slowMs: 500, now: () => now });
    const fast = Array.from({ length: 10 }, () => fairness.begin('fast'));
    expect(fairness.mustWait('fast')).toBe(false);
    now += 100;
    fast.forEach((end) => end());
    expect(fairness.mustWait('fast')).toBe(false);

    const first = fairness.begin('slow');
    const second = fairness.begin('slow');
    expect(fairness.mustWait('slow')).toBe(false); // in flight, not yet slow
    now += 500;
    expect(fairness.mustWait('slow')).toBe(true); // both running past slowMs
    expect(fairness.mustWait('fast')).toBe(false);
    first();
    expect(fairness.mustWait('slow')).toBe(false); // one in flight: below the share
    const third = fairness.begin('slow');
    expect(fairness.mustWait('slow')).toBe(true); // the last one was slow: the organisation counts as slow
    second();
    third();
    now += 60_000;
    const again = [fairness.begin('slow'), fairness.begin('slow')];
    expect(fairness.mustWait('slow')).toBe(false); // a minute on, two fresh deliveries in flight
    again.forEach((end) => end());
  });

  it('holds slow organisations together to a share of the slots', () => {
    let now = 0;
    const fairness = createDeliveryFairness({ slowMs: 500, now: () => now });
    const ends = [];
    for (let org = 0; org < SLOW_DELIVERIES / SLOW_ORGANIZATION_DELIVERIES; org++) {
      for (let i = 0; i < SLOW_ORGANIZATION_DELIVERIES; i++) ends.push(fairness.begin(`slow-${org}`));
    }
    now += 500;
    expect(fairness.mustWait('slow-new')).toBe(false); // not seen to be slow: it may start
    const newcomer = fairness.begin('slow-new');
    now += 500;
    expect(fairness.mustWait('slow-new')).toBe(true); // now slow, and slow deliveries fill their share
    expect(fairness.mustWait('fast')).toBe(false);
    ends.pop()!();
    expect(fairness.mustWait('slow-new')).toBe(true); // still a full share, the newcomer's own included
    ends.pop()!();
    expect(fairness.mustWait('slow-new')).toBe(false);
    newcomer();
    ends.forEach((end) => end());
  });
});
