import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { testClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { tcpReachable } from '../helpers/reachable.js';

const REDIS_UP = await tcpReachable('127.0.0.1', 6379, 500);
const LIMIT = 5;
const WINDOW_MS = 60_000;
const ENV = { PREP_AUTH_FAILURE_LIMIT: String(LIMIT), PREP_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS), PREP_RATE_LIMIT: '100000' };

/** A client address of its own per test, so counts never leak between tests or test files sharing Redis. */
let seq = 0;
const uniqueAddress = () => `203.0.${++seq}.${randomInt(1, 255)}`;

const call = (h: Harness, remoteAddress: string, authorization?: string, url = '/v1/candidates') =>
  testClient(h).call('GET', url, { remoteAddress, headers: authorization ? { authorization } : {} });

describe.each([
  ['memory', {}],
  ...(REDIS_UP ? [['redis', { REDIS_URL: 'redis://127.0.0.1:6379' }] as const] : []),
] as Array<[string, Record<string, string>]>)('failed authentication is limited per client address (%s counters)', (_store, extra) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { ...ENV, ...extra } });
  });
  afterAll(() => h.close());

  it(`refuses an address with 429 and Retry-After after ${LIMIT} failed checks in a window, until the window ends`, async () => {
    const ip = uniqueAddress();
    for (let i = 0; i < LIMIT; i++) {
      const res = await call(h, ip, `Bearer sk_test_guess${i}`);
      expect(res.status).toBe(401);
    }
    const refused = await call(h, ip, 'Bearer sk_test_guess_more');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': String(LIMIT), 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(retryAfter) });
    // Was a bug: a valid key from the refused address was refused too, though the contract limits per key, not per
    // address (one address may be an office behind NAT). It is served; its failed checks stay refused.
    expect((await call(h, ip, `Bearer ${h.org.keys.secret_test}`)).status).toBe(200);
    expect((await call(h, ip, 'Bearer sk_test_guess_again')).status).toBe(429);
    // Another address is not affected.
    expect((await call(h, uniqueAddress(), 'Bearer sk_test_guess')).status).toBe(401);

    h.clock.advance(retryAfter * 1000);
    expect((await call(h, ip, 'Bearer sk_test_guess_later')).status).toBe(401);
  });

  it('never counts a request whose credential checks out', async () => {
    const ip = uniqueAddress();
    for (let i = 0; i < 3 * LIMIT; i++) expect((await call(h, ip, `Bearer ${h.org.keys.secret_test}`)).status).toBe(200);
    for (let i = 0; i < LIMIT; i++) expect((await call(h, ip, 'Bearer sk_test_wrong')).status).toBe(401);
    expect((await call(h, ip, 'Bearer sk_test_wrong')).status).toBe(429);
  });

  it('counts every kind of failed credential: no key, a forged key, a forged session token, a bad publishable key', async () => {
    const ip = uniqueAddress();
    expect((await call(h, ip)).status).toBe(401);
    expect((await call(h, ip, 'Bearer sk_live_forged')).status).toBe(401);
    expect((await call(h, ip, 'Bearer eyJhbGciOiJFZERTQSJ9.e30.c2ln', '/v1/session')).status).toBe(401);
    expect((await call(h, ip, undefined, '/v1/embed-config?pk=pk_test_forged')).status).toBe(401);
    expect((await call(h, ip, 'Bearer sk_test_forged')).status).toBe(401);
    expect((await call(h, ip, 'Bearer eyJhbGciOiJFZERTQSJ9.e30.c2ln', '/v1/session')).status).toBe(429);
  });

  it('leaves routes without a credential alone', async () => {
    const ip = uniqueAddress();
    for (let i = 0; i < LIMIT + 1; i++) await call(h, ip, 'Bearer sk_test_nope');
    const health = await call(h, ip, undefined, '/v1/health');
    expect(health.status).toBe(200);
  });
});

// Was a bug: behind a reverse proxy every request came from the proxy's address, so anyone's failed checks got
// everyone's refused with 429 (and the embed, which re-mints only on 401, stopped recovering expired sessions).
// PREP_TRUST_PROXY names the proxies whose X-Forwarded-For is believed.
describe('failed authentication behind a reverse proxy (PREP_TRUST_PROXY)', () => {
  let h: Harness;
  const PROXY = '10.0.0.7';
  beforeAll(async () => {
    h = await startHarness({ env: { ...ENV, PREP_TRUST_PROXY: `${PROXY}, 192.0.2.0/24` } });
  });
  afterAll(() => h.close());

  const via = (remoteAddress: string, forwardedFor: string, authorization: string) =>
    testClient(h).call('GET', '/v1/candidates', { remoteAddress, headers: { authorization, 'x-forwarded-for': forwardedFor } });

  it('counts each client the trusted proxy forwards for, and ignores the header from anyone else', async () => {
    const client = uniqueAddress();
    for (let i = 0; i < LIMIT; i++) expect((await via(PROXY, client, `Bearer sk_test_guess${i}`)).status).toBe(401);
    expect((await via(PROXY, client, 'Bearer sk_test_guess_more')).status).toBe(429);
    // Another client behind the same proxy is not refused.
    expect((await via(PROXY, uniqueAddress(), 'Bearer sk_test_guess')).status).toBe(401);
    // An untrusted sender cannot pick its address with the header: its own address is counted.
    const sender = uniqueAddress();
    for (let i = 0; i < LIMIT; i++) expect((await via(sender, uniqueAddress(), `Bearer sk_test_guess${i}`)).status).toBe(401);
    expect((await via(sender, uniqueAddress(), 'Bearer sk_test_guess_more')).status).toBe(429);
  });

  it('takes addresses, CIDR ranges and proxy-addr\'s names, never "everyone"', () => {
    expect(loadConfig({ PREP_TRUST_PROXY: ' 10.0.0.0/8, loopback,2001:db8::1 ' }).trustProxy).toEqual(['10.0.0.0/8', 'loopback', '2001:db8::1']);
    expect(loadConfig({}).trustProxy).toEqual([]);
    for (const bad of ['true', '*', '10.0.0.0/33', '10.0.0.1/8/1', 'proxy.example.com']) {
      expect(() => loadConfig({ PREP_TRUST_PROXY: bad }), bad).toThrow(ConfigError);
    }
  });
});
