import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/app-types.js';
import { openDatabase } from '../../src/db/database.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { tcpReachable } from '../helpers/reachable.js';

const LIMITS = { PREP_RATE_LIMIT: '5', PREP_RATE_LIMIT_MODEL: '2', PREP_RATE_LIMIT_WINDOW_MS: '60000' };

/** A hidden operation in the model rate class (no real model route exists yet). */
function withModelRoute(app: App) {
  app.route({
    method: 'POST', url: '/v1/test/model-op',
    schema: { hide: true, response: { 200: Type.Object({ ok: Type.Boolean() }) } },
    config: { auth: 'secret', rateClass: 'model' },
    handler: async () => ({ ok: true }),
  });
}

const REDIS_UP = await tcpReachable('127.0.0.1', 6379, 500);

const IP = '203.0.113.7';

function standard(app: App, key: string, remoteAddress = IP) {
  return app.inject({ method: 'GET', url: '/v1/candidates?limit=1', headers: bearer(key), remoteAddress });
}
function model(app: App, key: string) {
  return app.inject({ method: 'POST', url: '/v1/test/model-op', headers: bearer(key), remoteAddress: IP });
}

type Res = Awaited<ReturnType<typeof standard>>;

function limitHeaders(res: Res) {
  return { limit: res.headers['x-ratelimit-limit'], remaining: res.headers['x-ratelimit-remaining'] };
}

const positiveInt = (value: unknown) => {
  expect(String(value)).toMatch(/^[1-9]\d*$/);
  return Number(value);
};

function expectLimited(res: Res, limit: number, windowSeconds: number) {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'doc_url', 'message', 'param', 'request_id', 'type']);
  expect(body.error.type).toBe('rate_limit_error');
  expect(body.error.code).toBe('rate_limited');
  expect(body.error.request_id).toBe(res.headers['request-id']);
  expect(res.headers['x-ratelimit-limit']).toBe(String(limit));
  expect(res.headers['x-ratelimit-remaining']).toBe('0');
  expect(positiveInt(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(windowSeconds);
  expect(positiveInt(res.headers['retry-after'])).toBeLessThanOrEqual(windowSeconds);
}

/** `n` standard calls that must all pass, with the remaining count going down from limit-1. */
async function spend(app: App, key: string, n: number, limit: number, call = standard) {
  for (let i = 1; i <= n; i++) {
    const res = await call(app, key);
    expect(res.statusCode).toBe(200);
    expect(limitHeaders(res)).toEqual({ limit: String(limit), remaining: String(limit - i) });
  }
}

async function keyIdOf(h: Harness, secret: string) {
  return (await h.services.apiKeys.resolveSecretKey(secret)).keyId;
}

describe('rate limits', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: LIMITS, extend: (app) => withModelRoute(app) });
  });
  afterAll(() => h?.close());

  it('counts per key, not per IP, and answers 429 rate_limited with the limit headers', async () => {
    const org = await h.createOrg('Limited');
    await spend(h.app, org.keys.secret_test, 5, 5);

    const limited = await standard(h.app, org.keys.secret_test);
    expectLimited(limited, 5, 60);
    // Another address does not help the same key.
    expectLimited(await standard(h.app, org.keys.secret_test, '198.51.100.9'), 5, 60);
    // A limited create does not run.
    const email = `limited-${Date.now()}@example.com`;
    const create = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(org.keys.secret_test), payload: { email, name: 'X' }, remoteAddress: IP });
    expectLimited(create, 5, 60);
    const rows = await h.db.kysely.selectFrom('candidates').select('id').where('email', '=', email).execute();
    expect(rows).toHaveLength(0);

    // Other keys from the same address keep their own budget: the org's live key, another org's key.
    const sameOrgOtherKey = await standard(h.app, org.keys.secret_live);
    expect(sameOrgOtherKey.statusCode).toBe(200);
    expect(limitHeaders(sameOrgOtherKey)).toEqual({ limit: '5', remaining: '4' });
    const otherOrg = await h.createOrg('Not limited');
    const other = await standard(h.app, otherOrg.keys.secret_test);
    expect(other.statusCode).toBe(200);
    expect(limitHeaders(other)).toEqual({ limit: '5', remaining: '4' });
  });

  it('gives operations that run a model a tighter, separate ceiling', async () => {
    const org = await h.createOrg('Model user');
    const key = org.keys.secret_test;
    await spend(h.app, key, 2, 2, model);
    expectLimited(await model(h.app, key), 2, 60);

    // Standard operations still have their whole budget...
    await spend(h.app, key, 5, 5);
    expectLimited(await standard(h.app, key), 5, 60);

    // ...and spending the standard budget leaves the model budget alone.
    const fresh = (await h.createOrg('Standard user')).keys.secret_test;
    await spend(h.app, fresh, 5, 5);
    expectLimited(await standard(h.app, fresh), 5, 60);
    const m = await model(h.app, fresh);
    expect(m.statusCode).toBe(200);
    expect(limitHeaders(m)).toEqual({ limit: '2', remaining: '1' });
  });

  it('applies a raised per-key limit, and the rotated replacement inherits it', async () => {
    const org = await h.createOrg('Raised');
    const keyId = await keyIdOf(h, org.keys.secret_test);
    await h.services.apiKeys.setRateLimit(org.id, keyId, 8);

    await spend(h.app, org.keys.secret_test, 7, 8);
    // The raised key's model ceiling scales with it: floor(8 * 2 / 5) = 3.
    const m = await model(h.app, org.keys.secret_test);
    expect(limitHeaders(m)).toEqual({ limit: '3', remaining: '2' });

    // Rotating spends the eighth standard request.
    const rotated = await h.app.inject({
      method: 'POST', url: `/v1/api-keys/${keyId}/rotate`, headers: bearer(org.keys.secret_test), payload: {}, remoteAddress: IP,
    });
    expect(rotated.statusCode).toBe(201);
    expect(limitHeaders(rotated)).toEqual({ limit: '8', remaining: '0' });
    expect(rotated.json().rate_limit).toBe(8);
    expectLimited(await standard(h.app, org.keys.secret_test), 8, 60);

    // The replacement has its own window with the same raised limit.
    const replacement: string = rotated.json().secret;
    await spend(h.app, replacement, 8, 8);
    expectLimited(await standard(h.app, replacement), 8, 60);

    // The default still applies to the organisation's other keys.
    const live = await standard(h.app, org.keys.secret_live);
    expect(limitHeaders(live)).toEqual({ limit: '5', remaining: '4' });
  });

  it('does not limit unauthenticated routes', async () => {
    for (let i = 0; i < 12; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/health', remoteAddress: IP });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    // Requests without a valid key are refused by auth, never counted against anyone.
    for (let i = 0; i < 7; i++) {
      const res = await h.app.inject({ method: 'GET', url: '/v1/candidates', remoteAddress: IP });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('invalid_api_key');
    }
  });
});

describe('rate limit window', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { PREP_RATE_LIMIT: '3', PREP_RATE_LIMIT_WINDOW_MS: '1000' } });
  });
  afterAll(() => h?.close());

  it('gives the budget back once the window has passed', async () => {
    const key = h.org.keys.secret_test;
    const started = Date.now();
    await spend(h.app, key, 3, 3);
    const limited = await standard(h.app, key);
    expectLimited(limited, 3, 1);

    await new Promise((r) => setTimeout(r, Math.max(0, started + 1100 - Date.now())));
    // Still inside the window after the first one (a late timer on a busy machine is fine until then): a budget given
    // back only after two windows would still be refused here.
    expect(Date.now() - started).toBeLessThan(2000);
    const after = await standard(h.app, key);
    expect(after.statusCode).toBe(200);
    expect(limitHeaders(after)).toEqual({ limit: '3', remaining: '2' });
  });
});

describe('rate limits shared through Redis', () => {
  it.skipIf(!REDIS_UP)('counts one key across two processes sharing the database and Redis', async () => {
    const h = await startHarness({ env: { ...LIMITS, REDIS_URL: 'redis://127.0.0.1:6379' } });
    const db2 = openDatabase(h.config);
    const second = await buildApp({ config: h.config, db: db2, clock: h.clock, logger: false });
    try {
      // A fresh organisation: its key id is new, so no earlier run's counter in Redis applies.
      const key = (await h.createOrg('Shared counter')).keys.secret_test;
      const apps = [h.app, second.app];
      for (let i = 1; i <= 5; i++) {
        const res = await standard(apps[i % 2], key);
        expect(res.statusCode).toBe(200);
        expect(limitHeaders(res)).toEqual({ limit: '5', remaining: String(5 - i) });
      }
      expectLimited(await standard(h.app, key), 5, 60);
      expectLimited(await standard(second.app, key), 5, 60);
    } finally {
      await second.app.close();
      await db2.close();
      await h.close();
    }
  }, 120_000); // its own harness (a fresh schema, migrations on PostgreSQL): 10-15 s, over 30 s on a loaded machine
});

// Was a bug: with Redis down every request waited ~27 s in ioredis's offline queue before the limits let it through,
// and ioredis printed "Unhandled error event" with a stack on every reconnect attempt.
describe('with Redis unreachable', () => {
  it('answers at once, its limits not applied, and prints no unhandled Redis error', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const h = await startHarness({ env: { ...LIMITS, REDIS_URL: 'redis://127.0.0.1:1' } });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // its first connection attempts have failed
      const started = Date.now();
      expect((await standard(h.app, h.org.keys.secret_test)).statusCode).toBe(200);
      expect((await standard(h.app, 'svc_sk_test_wrong')).statusCode).toBe(401);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(printed.mock.calls.filter((c) => String(c[0]).includes('Unhandled error'))).toEqual([]);
    } finally {
      printed.mockRestore();
      await h.close();
    }
  }, 120_000);
});
