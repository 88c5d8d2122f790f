import { execFile } from 'node:child_process';
import { createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JWKS_MAX_AGE_SECONDS, PUBLISH_LEAD_MS, RETIRED_KEY_GRACE_MS } from '../../src/modules/signing-keys/service.js';
import { createEncryption } from '../../src/platform/encryption.js';
import { testClient, type TestClient } from '../helpers/client.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/** Signing keys: the JWKS, keys encrypted at rest, rotation while tokens are live, and `prep signing-keys rotate`. */

const ORIGIN = 'https://app.acme.test';
const run = promisify(execFile);

/** Helpers bound to one harness (each describe below runs on its own, so clocks do not interfere). */
function kit(get: () => Harness) {
  let testId: string | undefined;
  let bound: TestClient | undefined;
  const client = () => (bound ??= testClient(get()));
  const call: TestClient['call'] = (...args) => client().call(...args);

  return {
    call,
    async jwks(): Promise<Array<Record<string, string>>> {
      const res = await call('GET', '/v1/.well-known/jwks.json');
      expect(res.status).toBe(200);
      return res.body.keys;
    },
    /** A new coding session of the harness org with a session token bound to ORIGIN. */
    async token(): Promise<{ id: string; token: string; kid: string }> {
      const key = get().org.keys.secret_test;
      testId ??= (await call('GET', '/v1/coding-tests', { key })).body.data[0].id as string;
      const session = await client().assign(key, 'coding', testId, await client().candidate(key, { name: 'Ada' }));
      const token = await client().token(key, 'coding', session.id, ORIGIN);
      return { id: session.id, token, kid: header(token).kid };
    },
    timer: (id: string, token: string) => call('GET', `/v1/coding-sessions/${id}/timer`, { token, origin: ORIGIN }),
    /** The private half of a stored key, decrypted with the configured key. */
    async privateKey(kid: string): Promise<KeyObject> {
      const row = await get().db.kysely.selectFrom('signing_keys').select('private_key').where('kid', '=', kid).executeTakeFirstOrThrow();
      return createPrivateKey(createEncryption(() => get().config.encryptionKey!).decrypt(row.private_key));
    },
  };
}

const header = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
const payload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));

/** Checks a token's signature with node:crypto against the JWKS entry for its kid. */
function verifiesAgainst(token: string, keys: Array<Record<string, string>>): boolean {
  const [h, p, s] = token.split('.');
  const jwk = keys.find((k) => k.kid === header(token).kid);
  if (!jwk) return false;
  return verify(null, Buffer.from(`${h}.${p}`), createPublicKey({ key: jwk as never, format: 'jwk' }), Buffer.from(s, 'base64url'));
}

function signWith(kid: string, claims: object, key: KeyObject): string {
  const input = `${Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT', kid })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}

describe('signing keys, JWKS and rotation', () => {
  let h: Harness;
  const k = kit(() => h);
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('creates one key on first start, publishes only its public half, and serves it without a credential', async () => {
    await h.services.signingKeys.ensureKey();
    await h.services.signingKeys.ensureKey();
    const res = await k.call('GET', '/v1/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const { keys } = res.body;
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(Buffer.from(keys[0].x, 'base64url')).toHaveLength(32);
    const rows = await h.db.kysely.selectFrom('signing_keys').select(['kid', 'retired_at']).execute();
    expect(rows).toEqual([{ kid: keys[0].kid, retired_at: null }]);
  });

  it('keeps private keys encrypted at rest (v1 sealed, not PEM), decryptable only with the configured key', async () => {
    const rows = await h.db.kysely.selectFrom('signing_keys').selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    const [jwk] = await k.jwks();
    for (const row of rows) {
      expect(row.private_key).toMatch(/^v1\./);
      expect(row.private_key).not.toContain('PRIVATE KEY');
      expect(row.private_key).not.toContain('MC4CAQAwBQYDK2Vw'); // the base64 of an Ed25519 PKCS#8 prefix
      expect(() => createEncryption(() => randomBytes(32)).decrypt(row.private_key)).toThrow();
    }
    // The sealed private key is the pair of the published public key.
    const publicOfPrivate = createPublicKey(await k.privateKey(jwk.kid)).export({ format: 'jwk' });
    expect(publicOfPrivate.x).toBe(jwk.x);
  });

  // Was a bug: a rotated-in key signed at once, while the JWKS may be cached 5 minutes (max-age=300, by a proxy too):
  // a verifier re-fetching on the unknown kid could get a copy without it and refuse valid tokens.
  it('rotates while tokens are live: the new kid is published at once and signs once JWKS caches hold it', async () => {
    const t1 = await k.token();
    const unseen = await k.token(); // first presented only after the rotation
    const k1 = t1.kid;
    expect((await k.timer(t1.id, t1.token)).status).toBe(200);

    const rotated = await h.services.signingKeys.rotate();
    const k2 = rotated.kid;
    expect(k2).not.toBe(k1);
    expect(rotated.signsFrom).toBe(h.clock.now() + PUBLISH_LEAD_MS);
    expect(PUBLISH_LEAD_MS).toBeGreaterThanOrEqual(JWKS_MAX_AGE_SECONDS * 1000);
    const retired = await h.db.kysely.selectFrom('signing_keys').select('retired_at').where('kid', '=', k1).executeTakeFirstOrThrow();
    expect(Number(retired.retired_at)).toBe(rotated.signsFrom);

    const both = await k.jwks();
    expect(both.map((key) => key.kid).sort()).toEqual([k1, k2].sort());
    expect((await k.timer(t1.id, t1.token)).status).toBe(200);
    // Until a JWKS cached just before the rotation has expired, the old key signs.
    expect((await k.token()).kid).toBe(k1);
    h.clock.advance(PUBLISH_LEAD_MS - 1000);
    expect((await k.token()).kid).toBe(k1);
    h.clock.advance(1000 + 31_000); // and the process's 30 s key cache
    expect((await k.jwks()).map((key) => key.kid).sort()).toEqual([k1, k2].sort());

    const t2 = await k.token();
    expect(t2.kid).toBe(k2);
    expect(verifiesAgainst(t2.token, both)).toBe(true);
    expect(verifiesAgainst(t1.token, both)).toBe(true);
    expect((await k.timer(t2.id, t2.token)).status).toBe(200);

    // 14 minutes on (past every key cache): a token of the old key, never seen before, is still accepted.
    h.clock.advance(14 * 60_000 - PUBLISH_LEAD_MS - 32_000);
    expect((await k.timer(unseen.id, unseen.token)).status).toBe(200);
    expect((await k.jwks()).map((key) => key.kid)).toContain(k1);

    // Until the grace (token lifetime + cache + skew) after it stopped signing has passed, the old key stays published.
    h.clock.advance(PUBLISH_LEAD_MS + RETIRED_KEY_GRACE_MS - 14 * 60_000 - 1000);
    expect(RETIRED_KEY_GRACE_MS).toBeGreaterThan(15 * 60_000);
    expect((await k.jwks()).map((key) => key.kid)).toEqual(expect.arrayContaining([k1, k2]));

    h.clock.advance(2000);
    const after = await k.jwks();
    expect(after.map((key) => key.kid)).toEqual([k2]);
    for (const t of [t1, unseen, t2]) {
      const res = await k.timer(t.id, t.token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_session_token');
    }
    const t3 = await k.token();
    expect(t3.kid).toBe(k2);
    expect((await k.timer(t3.id, t3.token)).status).toBe(200);

    // The retired key no longer verifies anything, even a fresh, recorded token it signs now.
    const claims = payload(t3.token);
    const byOld = signWith(k1, claims, await k.privateKey(k1));
    const byNew = signWith(k2, claims, await k.privateKey(k2));
    expect((await k.timer(t3.id, byNew)).status).toBe(200); // control: the hand-made token is well formed
    const refused = await k.timer(t3.id, byOld);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_session_token');
  });
});

describe('npx prep signing-keys rotate', () => {
  let h: Harness;
  const k = kit(() => h);
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('publishes a key that signs 5 minutes on; with --now, one that the running app signs with once its 30 s cache has passed', async () => {
    const before = await k.token();
    const rotate = async (...args: string[]) => (await run(process.execPath, ['bin/prep.js', 'signing-keys', 'rotate', ...args], { env: { ...process.env, ...h.env } })).stdout;
    const ahead = /New signing key (\S+) is published; it signs from (\S+)\./.exec(await rotate());
    expect(ahead).not.toBeNull();
    const published = await h.db.kysely.selectFrom('signing_keys').select(['kid', 'created_at', 'retired_at']).execute();
    expect(published).toHaveLength(2);
    const fresh = published.find((r) => r.kid === ahead![1])!;
    expect(Number(published.find((r) => r.kid === before.kid)!.retired_at)).toBe(Number(fresh.created_at) + PUBLISH_LEAD_MS);
    expect(Date.parse(ahead![2]!)).toBe(Number(fresh.created_at) + PUBLISH_LEAD_MS);

    const kid = /New signing key (\S+) is current/.exec(await rotate('--now'))?.[1];
    expect(kid).toBeDefined();
    expect(kid).not.toBe(before.kid);

    const rows = await h.db.kysely.selectFrom('signing_keys').select(['kid', 'retired_at', 'private_key']).execute();
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.kid === kid)).toMatchObject({ retired_at: null });
    expect(rows.find((r) => r.kid === before.kid)!.retired_at).not.toBeNull();
    // The CLI sealed the key with the same configured key.
    expect(rows.find((r) => r.kid === kid)!.private_key).toMatch(/^v1\./);

    expect((await k.jwks()).map((key) => key.kid).sort()).toEqual([before.kid, ahead![1], kid].sort());
    expect((await k.timer(before.id, before.token)).status).toBe(200);

    h.clock.advance(31_000);
    const after = await k.token();
    expect(after.kid).toBe(kid);
    expect(verifiesAgainst(after.token, await k.jwks())).toBe(true);
    expect((await k.timer(after.id, after.token)).status).toBe(200);
    expect((await k.timer(before.id, before.token)).status).toBe(200);
  });
});
