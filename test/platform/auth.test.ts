import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

type Headers = Record<string, string>;

function get(url: string, headers: Headers = {}) {
  return h.app.inject({ method: 'GET', url, headers });
}

function expectError(res: { statusCode: number; json(): any }, status: number, type: string, code: string) {
  expect(res.statusCode).toBe(status);
  const { error } = res.json();
  expect(error.type).toBe(type);
  expect(error.code).toBe(code);
  expect(error.request_id).toMatch(/^req_/);
}

const expectInvalidKey = (res: { statusCode: number; json(): any }) => expectError(res, 401, 'authentication_error', 'invalid_api_key');

let emailSeq = 0;
async function createCandidate(key: string) {
  const res = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(key), payload: { email: `auth-${++emailSeq}@example.com`, name: 'Ada' } });
  expect(res.statusCode).toBe(201);
  return res.json();
}

async function listIds(url: string, key: string): Promise<string[]> {
  const res = await get(url, bearer(key));
  expect(res.statusCode).toBe(200);
  return res.json().data.map((r: { id: string }) => r.id);
}

describe('secret-key authentication', () => {
  it('accepts the key as Authorization: Bearer and as X-API-KEY', async () => {
    const viaBearer = await get('/v1/candidates', bearer(h.org.keys.secret_test));
    expect(viaBearer.statusCode).toBe(200);
    expect(viaBearer.json().object).toBe('list');

    const viaHeader = await get('/v1/candidates', { 'x-api-key': h.org.keys.secret_test });
    expect(viaHeader.statusCode).toBe(200);
    expect(viaHeader.json().object).toBe('list');

    const lowerScheme = await get('/v1/candidates', { authorization: `bearer ${h.org.keys.secret_live}` });
    expect(lowerScheme.statusCode).toBe(200);
  });

  it('refuses a request without a key', async () => {
    const res = await get('/v1/candidates');
    expectInvalidKey(res);
    expect(res.json().error.param).toBeNull();
    // Empty headers count as no key.
    expectInvalidKey(await get('/v1/candidates', { 'x-api-key': '' }));
  });

  const secret = () => h.org.keys.secret_test;
  const randomPart = () => secret().slice('svc_sk_test_'.length);
  const cases: Array<[string, () => string]> = [
    ['garbage', () => 'not-a-key'],
    ['the bare prefix', () => 'svc_sk_test_'],
    ['a truncated key', () => secret().slice(0, -10)],
    ['a key with a changed last character', () => secret().slice(0, -1) + (secret().endsWith('A') ? 'B' : 'A')],
    ['a sibling product key (sk_live_)', () => `sk_live_${randomPart()}`],
    ['a sibling product key (hire_sk_live_)', () => `hire_sk_live_${randomPart()}`],
    ['a sibling product key (hire_sk_test_)', () => `hire_sk_test_${randomPart()}`],
    ['our key with another brand prefix', () => `xyz_sk_test_${randomPart()}`],
    ['a well-formed svc_sk_test_ key that does not exist', () => `svc_sk_test_${'a'.repeat(43)}`],
    ['a well-formed svc_sk_live_ key that does not exist', () => `svc_sk_live_${randomPart()}`],
    ['a publishable live key', () => h.org.keys.publishable_live],
    ['a publishable test key', () => h.org.keys.publishable_test],
    ['a JWT-looking token', () => 'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlc2lnbmF0dXJlc2lnbmF0dXJl'],
  ];

  it.each(cases)('answers 401 invalid_api_key for %s, by either header', async (_label, key) => {
    expectInvalidKey(await get('/v1/candidates', bearer(key())));
    expectInvalidKey(await get('/v1/candidates', { 'x-api-key': key() }));
  });

  it('refuses a non-Bearer Authorization scheme even with a valid key, and does not fall back to X-API-KEY', async () => {
    expectInvalidKey(await get('/v1/candidates', { authorization: `Basic ${h.org.keys.secret_test}` }));
    expectInvalidKey(await get('/v1/candidates', { authorization: `Basic ${h.org.keys.secret_test}`, 'x-api-key': h.org.keys.secret_test }));
    expectInvalidKey(await get('/v1/candidates', { authorization: `Bearer ${h.org.keys.secret_test} extra` }));
  });

  it('authenticates before validating the request', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer('garbage'), payload: { nonsense: true } });
    expectInvalidKey(res);
  });

  it('leaves unauthenticated operations open', async () => {
    const res = await get('/v1/health', bearer('garbage'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ object: 'health', status: 'ok' });
  });

  it('answers 401 revoked_api_key for a key revoked by another key', async () => {
    const org = await h.createOrg('Revoked Co');
    const victim = await h.app.inject({ method: 'POST', url: '/v1/api-keys', headers: bearer(org.keys.secret_test), payload: { type: 'secret' } });
    expect(victim.statusCode).toBe(201);
    const { id, secret } = victim.json();
    expect((await get('/v1/candidates', bearer(secret))).statusCode).toBe(200);

    const del = await h.app.inject({ method: 'DELETE', url: `/v1/api-keys/${id}`, headers: bearer(org.keys.secret_test) });
    expect(del.statusCode).toBe(200);

    expectError(await get('/v1/candidates', bearer(secret)), 401, 'authentication_error', 'revoked_api_key');
    expectError(await get('/v1/candidates', { 'x-api-key': secret }), 401, 'authentication_error', 'revoked_api_key');
    // The revoking key is unaffected.
    expect((await get('/v1/candidates', bearer(org.keys.secret_test))).statusCode).toBe(200);
  });
});

describe('environments', () => {
  it('keeps live records out of the test environment and the reverse', async () => {
    const live = await createCandidate(h.org.keys.secret_live);
    const test = await createCandidate(h.org.keys.secret_test);
    expect(live.livemode).toBe(true);
    expect(test.livemode).toBe(false);

    expect(await listIds('/v1/candidates?limit=100', h.org.keys.secret_live)).toContain(live.id);
    expect(await listIds('/v1/candidates?limit=100', h.org.keys.secret_live)).not.toContain(test.id);
    expect(await listIds('/v1/candidates?limit=100', h.org.keys.secret_test)).toContain(test.id);
    expect(await listIds('/v1/candidates?limit=100', h.org.keys.secret_test)).not.toContain(live.id);

    // Exact email lookup does not cross environments either.
    expect(await listIds(`/v1/candidates?email=${encodeURIComponent(live.email)}`, h.org.keys.secret_test)).toEqual([]);
    expect(await listIds(`/v1/candidates?email=${encodeURIComponent(live.email)}`, h.org.keys.secret_live)).toEqual([live.id]);

    expectError(await get(`/v1/candidates/${live.id}`, bearer(h.org.keys.secret_test)), 404, 'not_found_error', 'resource_not_found');
    expectError(await get(`/v1/candidates/${test.id}`, bearer(h.org.keys.secret_live)), 404, 'not_found_error', 'resource_not_found');

    const patch = await h.app.inject({ method: 'PATCH', url: `/v1/candidates/${live.id}`, headers: bearer(h.org.keys.secret_test), payload: { name: 'Mallory' } });
    expect(patch.statusCode).toBe(404);
    const del = await h.app.inject({ method: 'DELETE', url: `/v1/candidates/${live.id}`, headers: bearer(h.org.keys.secret_test) });
    expect(del.statusCode).toBe(404);

    const still = await get(`/v1/candidates/${live.id}`, bearer(h.org.keys.secret_live));
    expect(still.statusCode).toBe(200);
    expect(still.json()).toMatchObject({ id: live.id, name: 'Ada', livemode: true });
  });

  it('lets the same email exist once per environment', async () => {
    const payload = { email: 'twin@example.com', name: 'Twin' };
    const live = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(h.org.keys.secret_live), payload });
    const test = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(h.org.keys.secret_test), payload });
    expect(live.statusCode).toBe(201);
    expect(test.statusCode).toBe(201);
    expect(live.json().id).not.toBe(test.json().id);
  });

  it('marks every record with its environment', async () => {
    for (const [key, livemode] of [[h.org.keys.secret_live, true], [h.org.keys.secret_test, false]] as const) {
      const candidates = await get('/v1/candidates?limit=100', bearer(key));
      expect(candidates.json().data.length).toBeGreaterThan(0);
      for (const c of candidates.json().data) expect(c.livemode).toBe(livemode);

      const keys = await get('/v1/api-keys', bearer(key));
      expect(keys.json().data.length).toBeGreaterThan(0);
      for (const k of keys.json().data) expect(k.livemode).toBe(livemode);
    }
  });
});

describe('organisations are isolated', () => {
  let b: Org;
  let candidateOfB: { id: string };
  let keyOfB: { id: string };
  beforeAll(async () => {
    b = await h.createOrg('Org B');
    candidateOfB = await createCandidate(b.keys.secret_test);
    const keys = await get('/v1/api-keys', bearer(b.keys.secret_test));
    keyOfB = keys.json().data.find((k: { type: string }) => k.type === 'publishable');
  });

  it("answers 404 for another organisation's candidate, and leaves it untouched", async () => {
    const a = h.org.keys.secret_test;
    expectError(await get(`/v1/candidates/${candidateOfB.id}`, bearer(a)), 404, 'not_found_error', 'resource_not_found');
    expect(await listIds('/v1/candidates?limit=100', a)).not.toContain(candidateOfB.id);

    const patch = await h.app.inject({ method: 'PATCH', url: `/v1/candidates/${candidateOfB.id}`, headers: bearer(a), payload: { name: 'Mallory' } });
    expectError(patch, 404, 'not_found_error', 'resource_not_found');
    const del = await h.app.inject({ method: 'DELETE', url: `/v1/candidates/${candidateOfB.id}`, headers: bearer(a) });
    expectError(del, 404, 'not_found_error', 'resource_not_found');

    const still = await get(`/v1/candidates/${candidateOfB.id}`, bearer(b.keys.secret_test));
    expect(still.statusCode).toBe(200);
    expect(still.json().name).toBe('Ada');
  });

  it("answers 404 for another organisation's API key, and leaves it working", async () => {
    const a = h.org.keys.secret_test;
    expect((await listIds('/v1/api-keys', a))).not.toContain(keyOfB.id);

    const del = await h.app.inject({ method: 'DELETE', url: `/v1/api-keys/${keyOfB.id}`, headers: bearer(a) });
    expectError(del, 404, 'not_found_error', 'resource_not_found');
    const rotate = await h.app.inject({ method: 'POST', url: `/v1/api-keys/${keyOfB.id}/rotate`, headers: bearer(a), payload: { grace_seconds: 0 } });
    expectError(rotate, 404, 'not_found_error', 'resource_not_found');

    const listed = (await get('/v1/api-keys', bearer(b.keys.secret_test))).json().data.find((k: { id: string }) => k.id === keyOfB.id);
    expect(listed).toMatchObject({ status: 'active', revoked_at: null, expires_at: null });
    expect((await get('/v1/candidates', bearer(b.keys.secret_test))).statusCode).toBe(200);
  });
});

describe('organisation gates', () => {
  it('answers 403 public_api_not_enabled while the public API is off, for every key of the org', async () => {
    const org = await h.createOrg('Switched Off');
    await h.services.organizations.setApiEnabled(org.id, false);
    for (const key of [org.keys.secret_live, org.keys.secret_test]) {
      expectError(await get('/v1/candidates', bearer(key)), 403, 'permission_error', 'public_api_not_enabled');
      expectError(await get('/v1/api-keys', { 'x-api-key': key }), 403, 'permission_error', 'public_api_not_enabled');
    }
    // Other organisations are not affected, and a bad key is still a bad key.
    expect((await get('/v1/candidates', bearer(h.org.keys.secret_test))).statusCode).toBe(200);
    expectInvalidKey(await get('/v1/candidates', bearer(org.keys.publishable_test)));

    await h.services.organizations.setApiEnabled(org.id, true);
    expect((await get('/v1/candidates', bearer(org.keys.secret_test))).statusCode).toBe(200);
  });

  it('answers 403 module_not_enabled on a disabled module only, and re-enabling restores it', async () => {
    const org = await h.createOrg('Modular');
    const key = org.keys.secret_test;
    expect((await get('/v1/round-types', bearer(key))).statusCode).toBe(200);

    await h.services.organizations.setModule(org.id, 'interviews', false);
    for (const k of [org.keys.secret_test, org.keys.secret_live]) {
      expectError(await get('/v1/round-types', bearer(k)), 403, 'permission_error', 'module_not_enabled');
    }
    for (const url of ['/v1/candidates', '/v1/companies', '/v1/jobs', '/v1/api-keys', '/v1/usage']) {
      expect((await get(url, bearer(key))).statusCode, url).toBe(200);
    }
    expect((await get('/v1/usage', bearer(key))).json().modules.interviews).toBe(false);
    // The switch is per organisation.
    expect((await get('/v1/round-types', bearer(h.org.keys.secret_test))).statusCode).toBe(200);
    // Authentication still comes first.
    expectInvalidKey(await get('/v1/round-types', bearer('garbage')));

    await h.services.organizations.setModule(org.id, 'interviews', true);
    expect((await get('/v1/round-types', bearer(key))).statusCode).toBe(200);
    expect((await get('/v1/usage', bearer(key))).json().modules.interviews).toBe(true);
  });
});
