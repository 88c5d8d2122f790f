import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testClient, type Method, type Reply, type TestClient } from '../helpers/client.js';
import { startHarness, type Harness, type Org } from '../helpers/harness.js';

let h: Harness;
let client: TestClient;
beforeAll(async () => {
  h = await startHarness();
  client = testClient(h);
});
afterAll(() => h.close());

/** A fresh organisation per test, so key counts and rotations never leak between tests. */
let org: Org;
beforeEach(async () => {
  org = await h.createOrg('Keys Co');
});

const nowSeconds = () => Math.floor(h.clock.now() / 1000);

const call = (method: Method, url: string, key: string, body?: object) => client.call(method, url, { key, body });

const listKeys = async (key: string) => {
  const res = await call('GET', '/v1/api-keys?limit=100', key);
  expect(res.status).toBe(200);
  return res.body.data as any[];
};
const createKey = async (key: string, payload: object = { type: 'secret' }) => {
  const res = await call('POST', '/v1/api-keys', key, payload);
  expect(res.status).toBe(201);
  return res.body;
};
const rotate = (key: string, id: string, payload?: object) => call('POST', `/v1/api-keys/${id}/rotate`, key, payload);
const keyIdOf = async (caller: string, type: 'secret' | 'publishable') => (await listKeys(caller)).find((k) => k.type === type && k.status === 'active').id as string;
/** Whether a key authenticates a secret-key operation: 200, else the error code. */
const authOutcome = async (key: string) => {
  const res = await call('GET', '/v1/candidates', key);
  return res.status === 200 ? 200 : res.body.error.code;
};

function expectError(res: Reply, status: number, code: string, param?: string | null) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

describe('GET /v1/api-keys', () => {
  it("lists only this environment's keys, redacted, never the secret or its hash", async () => {
    for (const [caller, livemode, prefixes] of [
      [org.keys.secret_test, false, ['svc_sk_test_', 'svc_pk_test_']],
      [org.keys.secret_live, true, ['svc_sk_live_', 'svc_pk_live_']],
    ] as const) {
      const res = await call('GET', '/v1/api-keys', caller);
      expect(res.status).toBe(200);
      const body = res.body;
      expect(body).toMatchObject({ object: 'list', has_more: false });
      expect(body.data).toHaveLength(2);
      expect(body.data.map((k: any) => k.type).sort()).toEqual(['publishable', 'secret']);
      for (const k of body.data) {
        expect(k).toMatchObject({ object: 'api_key', livemode, status: 'active', revoked_at: null, expires_at: null, rate_limit: null });
        expect(k).not.toHaveProperty('secret');
        expect(k).not.toHaveProperty('key_hash');
        expect(prefixes.some((p) => k.redacted_key.startsWith(p))).toBe(true);
      }
      const raw = res.raw;
      for (const secret of Object.values(org.keys)) {
        expect(raw).not.toContain(secret);
        expect(raw).not.toContain(secret.slice(12, -4));
      }
      // The redacted form ends with the key's last four characters.
      const own = body.data.find((k: any) => k.type === 'secret');
      expect(own.redacted_key.endsWith(caller.slice(-4))).toBe(true);
    }
  });
});

describe('POST /v1/api-keys', () => {
  it('mints a secret key in the caller environment that works at once, with its secret shown once', async () => {
    for (const [caller, livemode, prefix] of [[org.keys.secret_test, false, 'svc_sk_test_'], [org.keys.secret_live, true, 'svc_sk_live_']] as const) {
      const created = await createKey(caller, { type: 'secret', name: 'ci' });
      expect(created).toMatchObject({ object: 'api_key', type: 'secret', livemode, name: 'ci', status: 'active', created_at: nowSeconds() });
      expect(created.secret.startsWith(prefix)).toBe(true);
      expect(created.secret.length).toBeGreaterThanOrEqual(prefix.length + 43); // at least 32 random bytes in base62
      expect(created.redacted_key.endsWith(created.secret.slice(-4))).toBe(true);
      expect(created.redacted_key).not.toContain(created.secret.slice(12, -4));

      expect(await authOutcome(created.secret)).toBe(200);
      // Same environment: a candidate it creates is visible to the caller, not to the other environment.
      const cand = await call('POST', '/v1/candidates', created.secret, { email: `minted-${livemode}@example.com`, name: 'M' });
      expect(cand.body.livemode).toBe(livemode);
      expect((await call('GET', `/v1/candidates/${cand.body.id}`, caller)).status).toBe(200);

      const listed = (await listKeys(caller)).find((k) => k.id === created.id);
      expect(listed).toBeDefined();
      expect(listed).not.toHaveProperty('secret');
      const { secret: _secret, ...withoutSecret } = created;
      expect(listed).toEqual(withoutSecret);
    }
  });

  it('defaults to a secret key and gives each mint a distinct secret', async () => {
    const a = await createKey(org.keys.secret_test, {});
    const b = await createKey(org.keys.secret_test, {});
    expect(a.type).toBe('secret');
    expect(a.secret).not.toBe(b.secret);
    expect(a.id).not.toBe(b.id);
  });

  it('mints a publishable key that cannot call secret-key operations', async () => {
    const created = await createKey(org.keys.secret_live, { type: 'publishable' });
    expect(created).toMatchObject({ type: 'publishable', livemode: true });
    expect(created.secret.startsWith('svc_pk_live_')).toBe(true);
    expect(await authOutcome(created.secret)).toBe('invalid_api_key');
  });

  it('validates the body', async () => {
    expectError(await call('POST', '/v1/api-keys', org.keys.secret_test, { type: 'admin' }), 400, 'parameter_invalid', 'type');
    expectError(await call('POST', '/v1/api-keys', org.keys.secret_test, { type: 'secret', livemode: true }), 400, 'parameter_unknown', 'livemode');
    expect(await listKeys(org.keys.secret_test)).toHaveLength(2);
  });

  it('stores only a hash: no column of api_keys holds the secret', async () => {
    const created = await createKey(org.keys.secret_test, { name: 'stored' });
    const rows = await h.db.kysely.selectFrom('api_keys').selectAll().where('organization_id', '=', org.id).execute();
    expect(rows).toHaveLength(5);
    const row = rows.find((r) => r.id === created.id)!;
    expect(row).toBeDefined();
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    const body = created.secret.slice('svc_sk_test_'.length);
    for (const r of rows) {
      for (const [column, value] of Object.entries(r)) {
        const text = String(value);
        for (const secret of [created.secret, ...Object.values(org.keys)]) {
          expect(text, `api_keys.${column}`).not.toContain(secret);
          expect(text, `api_keys.${column}`).not.toContain(secret.slice(12, -4));
        }
        expect(text, `api_keys.${column}`).not.toContain(body.slice(0, 8));
      }
    }
  });
});

describe('how many keys an environment holds', () => {
  // Was a bug: any secret key could mint keys without end, each with a rate limit of its own.
  it('mints at most 50 working keys per environment (api_key_limit); revoking one makes room; rotation is never refused', async () => {
    const caller = org.keys.secret_test;
    const working = (await listKeys(caller)).length; // the organisation's own test keys
    const minted: any[] = [];
    for (let i = working; i < 50; i++) minted.push(await createKey(caller, { type: i % 2 ? 'secret' : 'publishable' }));
    expectError(await call('POST', '/v1/api-keys', caller, { type: 'secret' }), 400, 'api_key_limit');
    // The other environment counts its own.
    await createKey(org.keys.secret_live);
    // A rotation replaces a key at the limit (51 work for a while); the key it replaces counts until it stops.
    const rotated = await rotate(caller, minted[1].id, { grace_seconds: 60 });
    expect(rotated.status, rotated.raw).toBe(201);
    expect(await authOutcome(rotated.body.secret)).toBe(200);
    expect((await call('DELETE', `/v1/api-keys/${minted[3].id}`, caller)).status).toBe(200);
    expectError(await call('POST', '/v1/api-keys', caller, { type: 'secret' }), 400, 'api_key_limit'); // 50 still
    h.clock.advance(61_000);
    await createKey(caller); // the rotated-out key stopped: 49 worked
    expectError(await call('POST', '/v1/api-keys', caller, { type: 'secret' }), 400, 'api_key_limit');
  });
});

describe('DELETE /v1/api-keys/{id}', () => {
  it('revokes another key at once', async () => {
    const victim = await createKey(org.keys.secret_test);
    expect(await authOutcome(victim.secret)).toBe(200);

    const res = await call('DELETE', `/v1/api-keys/${victim.id}`, org.keys.secret_test);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'api_key', id: victim.id, status: 'revoked', revoked_at: nowSeconds() });
    expect(res.body).not.toHaveProperty('secret');

    expect(await authOutcome(victim.secret)).toBe('revoked_api_key');
    expect((await listKeys(org.keys.secret_test)).find((k) => k.id === victim.id)).toMatchObject({ status: 'revoked' });
    // Deleting again is harmless and keeps the original revocation time.
    h.clock.advance(5000);
    const again = await call('DELETE', `/v1/api-keys/${victim.id}`, org.keys.secret_test);
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(res.body.revoked_at);
  });

  it('revokes a publishable key', async () => {
    const id = await keyIdOf(org.keys.secret_test, 'publishable');
    const res = await call('DELETE', `/v1/api-keys/${id}`, org.keys.secret_test);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ type: 'publishable', status: 'revoked' });
  });

  it("refuses to delete the caller's own key", async () => {
    const own = await keyIdOf(org.keys.secret_test, 'secret');
    expectError(await call('DELETE', `/v1/api-keys/${own}`, org.keys.secret_test), 400, 'api_key_self_revocation');
    expect(await authOutcome(org.keys.secret_test)).toBe(200);
  });

  it('answers 404 for an unknown id and for a key of the other environment', async () => {
    expectError(await call('DELETE', '/v1/api-keys/0190a6f4-3c1e-7b2a-9c4d-5e6f7a8b9c0d', org.keys.secret_test), 404, 'resource_not_found', 'id');
    expectError(await call('DELETE', '/v1/api-keys/not-a-uuid', org.keys.secret_test), 400, 'parameter_invalid', 'id');

    const liveId = await keyIdOf(org.keys.secret_live, 'secret');
    expectError(await call('DELETE', `/v1/api-keys/${liveId}`, org.keys.secret_test), 404, 'resource_not_found');
    expect(await authOutcome(org.keys.secret_live)).toBe(200);
  });
});

describe('POST /v1/api-keys/{id}/rotate', () => {
  /** Rotation times are checked against a clock that is not on a whole second. */
  beforeEach(() => {
    h.clock.set((Math.floor(h.clock.now() / 1000) + 1) * 1000 + 737);
  });

  it('replaces a key with a default grace of 86400 seconds', async () => {
    const old = await createKey(org.keys.secret_test, { name: 'worker' });
    const res = await rotate(org.keys.secret_test, old.id);
    expect(res.status).toBe(201);
    const body = res.body;
    expect(body).toMatchObject({
      object: 'api_key', type: 'secret', livemode: false, name: 'worker', status: 'active',
      previous_key_id: old.id, previous_key_expires_at: nowSeconds() + 86_400,
    });
    expect(body.id).not.toBe(old.id);
    expect(body.secret.startsWith('svc_sk_test_')).toBe(true);
    expect(body.secret).not.toBe(old.secret);

    // Both work during the grace window; the listing shows the old key as expiring at that time.
    expect(await authOutcome(body.secret)).toBe(200);
    expect(await authOutcome(old.secret)).toBe(200);
    const listed = await listKeys(org.keys.secret_test);
    expect(listed.find((k) => k.id === old.id)).toMatchObject({ status: 'expiring', expires_at: body.previous_key_expires_at, revoked_at: null });
    expect(listed.find((k) => k.id === body.id)).toMatchObject({ status: 'active', expires_at: null });
    expect(listed.find((k) => k.id === body.id)).not.toHaveProperty('secret');
  });

  it('stops the old key exactly at previous_key_expires_at, not before', async () => {
    const old = await createKey(org.keys.secret_test);
    const body = (await rotate(org.keys.secret_test, old.id, { grace_seconds: 60 })).body;
    expect(body.previous_key_expires_at).toBe(nowSeconds() + 60);

    const expiresAtMs = body.previous_key_expires_at * 1000;
    h.clock.set(expiresAtMs - 1);
    expect(await authOutcome(old.secret)).toBe(200);
    h.clock.set(expiresAtMs);
    expect(await authOutcome(old.secret)).toBe('revoked_api_key');
    expect(await authOutcome(body.secret)).toBe(200);
    expect((await listKeys(org.keys.secret_test)).find((k) => k.id === old.id)).toMatchObject({ status: 'revoked' });
  });

  it('accepts the maximum grace of 604800 seconds and refuses more', async () => {
    const old = await createKey(org.keys.secret_test);
    const tooLong = await rotate(org.keys.secret_test, old.id, { grace_seconds: 604_801 });
    expectError(tooLong, 400, 'parameter_invalid', 'grace_seconds');
    expectError(await rotate(org.keys.secret_test, old.id, { grace_seconds: -1 }), 400, 'parameter_invalid', 'grace_seconds');
    expectError(await rotate(org.keys.secret_test, old.id, { grace_seconds: 1.5 }), 400, 'parameter_invalid', 'grace_seconds');
    // The refused calls changed nothing.
    expect(await listKeys(org.keys.secret_test)).toHaveLength(3);

    const res = await rotate(org.keys.secret_test, old.id, { grace_seconds: 604_800 });
    expect(res.status).toBe(201);
    expect(res.body.previous_key_expires_at).toBe(nowSeconds() + 604_800);
  });

  it('revokes the old key on the spot with a grace of zero', async () => {
    const old = await createKey(org.keys.secret_test);
    const res = await rotate(org.keys.secret_test, old.id, { grace_seconds: 0 });
    expect(res.status).toBe(201);
    expect(res.body.previous_key_expires_at).toBe(nowSeconds());
    expect(await authOutcome(old.secret)).toBe('revoked_api_key');
    expect(await authOutcome(res.body.secret)).toBe(200);
    expect((await listKeys(org.keys.secret_test)).find((k) => k.id === old.id)).toMatchObject({ status: 'revoked' });
  });

  it('refuses a key rotating itself without grace, and allows it with a grace window', async () => {
    const self = await createKey(org.keys.secret_test);
    expectError(await rotate(self.secret, self.id, { grace_seconds: 0 }), 400, 'api_key_self_revocation', 'grace_seconds');
    expect(await authOutcome(self.secret)).toBe(200);
    expect(await listKeys(org.keys.secret_test)).toHaveLength(3);

    const res = await rotate(self.secret, self.id, { grace_seconds: 30 });
    expect(res.status).toBe(201);
    const { secret, previous_key_expires_at: expiresAt } = res.body;

    h.clock.set(expiresAt * 1000 - 1);
    expect(await authOutcome(self.secret)).toBe(200);
    h.clock.set(expiresAt * 1000);
    expect(await authOutcome(self.secret)).toBe('revoked_api_key');
    expect(await authOutcome(secret)).toBe(200);
  });

  it('gives a publishable key a publishable replacement', async () => {
    const id = await keyIdOf(org.keys.secret_live, 'publishable');
    const res = await rotate(org.keys.secret_live, id, { grace_seconds: 10 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'publishable', livemode: true, previous_key_id: id });
    expect(res.body.secret.startsWith('svc_pk_live_')).toBe(true);
    expect(await authOutcome(res.body.secret)).toBe('invalid_api_key');
  });

  it('carries a raised rate limit over to the replacement', async () => {
    const old = await createKey(org.keys.secret_test);
    await h.services.apiKeys.setRateLimit(org.id, old.id, 5000);
    expect((await listKeys(org.keys.secret_test)).find((k) => k.id === old.id).rate_limit).toBe(5000);

    const res = await rotate(org.keys.secret_test, old.id);
    expect(res.status).toBe(201);
    expect(res.body.rate_limit).toBe(5000);
    expect((await listKeys(org.keys.secret_test)).find((k) => k.id === res.body.id).rate_limit).toBe(5000);
    // The limit really applies to the replacement's requests.
    const used = await call('GET', '/v1/candidates', res.body.secret);
    expect(used.status).toBe(200);
    expect(used.headers['x-ratelimit-limit']).toBe('5000');
  });

  it('refuses to rotate a key that is already rotated or revoked', async () => {
    const old = await createKey(org.keys.secret_test);
    expect((await rotate(org.keys.secret_test, old.id, { grace_seconds: 100 })).status).toBe(201);
    expectError(await rotate(org.keys.secret_test, old.id), 400, 'api_key_inactive', 'id');

    const revoked = await createKey(org.keys.secret_test);
    expect((await call('DELETE', `/v1/api-keys/${revoked.id}`, org.keys.secret_test)).status).toBe(200);
    expectError(await rotate(org.keys.secret_test, revoked.id, { grace_seconds: 100 }), 400, 'api_key_inactive', 'id');
    // Only the one successful rotation minted a key: 2 defaults + 2 created + 1 replacement.
    expect(await listKeys(org.keys.secret_test)).toHaveLength(5);
  });

  it('answers 404 for an unknown key and for a key of the other environment', async () => {
    expectError(await rotate(org.keys.secret_test, '0190a6f4-3c1e-7b2a-9c4d-5e6f7a8b9c0d'), 404, 'resource_not_found');
    const liveId = await keyIdOf(org.keys.secret_live, 'secret');
    expectError(await rotate(org.keys.secret_test, liveId, { grace_seconds: 0 }), 404, 'resource_not_found');
    expect(await authOutcome(org.keys.secret_live)).toBe(200);
  });

  it('lets DELETE end the grace window of a rotated key at once', async () => {
    const old = await createKey(org.keys.secret_test);
    expect((await rotate(org.keys.secret_test, old.id, { grace_seconds: 3600 })).status).toBe(201);
    expect(await authOutcome(old.secret)).toBe(200);
    expect((await call('DELETE', `/v1/api-keys/${old.id}`, org.keys.secret_test)).status).toBe(200);
    expect(await authOutcome(old.secret)).toBe('revoked_api_key');
  });
});
