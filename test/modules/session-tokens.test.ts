import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { createEncryption } from '../../src/platform/encryption.js';
import { testClient, type Reply, type TestClient } from '../helpers/client.js';
import { startHarness, type Harness, type Org } from '../helpers/harness.js';
import { SESSION_REFRESHES_MAX } from '../../src/modules/candidate-access/service.js';

/**
 * Session tokens: minting (POST /v1/sessions), the JWT itself, forgeries, origin binding, subject scope,
 * which credential each operation takes, refresh, revocation, CORS and the session context.
 */

let h: Harness;
let client: TestClient;
/** Assigning a coding test reserves a credit (in sandbox too), and every test here assigns: more than the harness's 10. */
let org: Org;
let other: Org;
const ORIGIN = 'https://app.acme.test';

beforeAll(async () => {
  h = await startHarness();
  client = testClient(h);
  org = await h.createOrg('Acme', 500);
  other = await h.createOrg('Globex');
  for (const key of [org.keys.secret_test, org.keys.secret_live]) await allowlist(key, ORIGIN);
});
afterAll(() => h.close());

// ---------------------------------------------------------------- helpers

const call: TestClient['call'] = (...args) => client.call(...args);

function expectError(res: Reply, status: number, code: string, param?: string | null) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const { error } = res.body;
  expect(error.code).toBe(code);
  expect(error.request_id).toMatch(/^req_/);
  if (param !== undefined) expect(error.param).toBe(param);
}

async function allowlist(key: string, origin: string) {
  const res = await call('POST', '/v1/domains', { key, body: { origin } });
  expect([200, 201]).toContain(res.status);
  return res.body as { id: string };
}

let timedTest: { id: string; name: string; description: string; duration_minutes: number } | undefined;
let seq = 0;

/** A fresh candidate with a timed coding test assigned; returns the coding session and candidate. */
async function assign(key = org.keys.secret_test) {
  if (!timedTest) {
    const tests = await call('GET', '/v1/coding-tests?limit=100', { key });
    expect(tests.status).toBe(200);
    timedTest = tests.body.data.find((t: any) => t.duration_minutes !== null);
    expect(timedTest).toBeDefined();
  }
  const name = `Candidate ${++seq}`;
  const candidateId = await client.candidate(key, { name });
  const session = await client.assign(key, 'coding', timedTest!.id, candidateId);
  return { id: session.id as string, candidate: { id: candidateId, name }, test: timedTest! };
}

const mint = (key: string, body: Record<string, unknown>) => call('POST', '/v1/sessions', { key, body });

/** A coding session and a session token bound to it and to `origin`. */
async function tokenFor(options: { key?: string; origin?: string } = {}) {
  const key = options.key ?? org.keys.secret_test;
  const subject = await assign(key);
  const res = await mint(key, { origin: options.origin ?? ORIGIN, coding_session_id: subject.id });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const body = res.body;
  return { ...subject, token: body.session_token as string, jti: body.jti as string, body };
}

/** GET .../timer with a token and an Origin header (null: none). */
const timer = (id: string, token: string, origin: string | null = ORIGIN) => call('GET', `/v1/coding-sessions/${id}/timer`, { token, origin });

// JWT pieces, built by hand so forgeries do not depend on the library under test.
const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function decode(token: string) {
  const [header, payload, signature] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
    signingInput: `${header}.${payload}`,
    signature: Buffer.from(signature, 'base64url'),
    parts: [header, payload, signature] as const,
  };
}

function signEdDSA(header: object, payload: object, privateKey: KeyObject): string {
  const input = `${b64json(header)}.${b64json(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

async function jwks(): Promise<Array<Record<string, string>>> {
  const res = await call('GET', '/v1/.well-known/jwks.json');
  expect(res.status).toBe(200);
  return res.body.keys;
}

/** The service's current signing key, decrypted from the database (to sign tokens that only differ in one respect). */
async function realSigningKey(): Promise<{ kid: string; privateKey: KeyObject }> {
  const row = await h.db.kysely.selectFrom('signing_keys').selectAll().where('retired_at', 'is', null).executeTakeFirstOrThrow();
  const encryption = createEncryption(() => h.config.encryptionKey!);
  return { kid: row.kid, privateKey: createPrivateKey(encryption.decrypt(row.private_key)) };
}

const countTokens = async () => Number((await h.db.kysely.selectFrom('session_tokens').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

// ---------------------------------------------------------------- minting

describe('POST /v1/sessions', () => {
  it('mints a 15-minute session for an allowlisted origin and an open coding session', async () => {
    const subject = await assign();
    const now = Math.floor(h.clock.now() / 1000);
    const res = await mint(org.keys.secret_test, { origin: ORIGIN, coding_session_id: subject.id });
    expect(res.status).toBe(201);
    const body = res.body;
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'jti', 'object', 'refresh_after', 'session_token', 'subject_id', 'subject_kind']);
    expect(body).toMatchObject({ object: 'session', subject_kind: 'coding', subject_id: subject.id });
    expect(body.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.expires_at).toBe(now + 900);
    expect(body.refresh_after).toBe(body.expires_at - 300);

    const row = await h.db.kysely.selectFrom('session_tokens').selectAll().where('jti', '=', body.jti).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ organization_id: org.id, subject_kind: 'coding', subject_id: subject.id, origin: ORIGIN, source: 'secret_key', revoked_at: null });
    expect(Number(row.livemode)).toBe(0);
    expect((await timer(subject.id, body.session_token)).status).toBe(200);
  });

  it('requires an origin', async () => {
    const subject = await assign();
    const res = await mint(org.keys.secret_test, { coding_session_id: subject.id });
    expectError(res, 400, 'parameter_missing', 'origin');
    expectError(await mint(org.keys.secret_test, { origin: '', coding_session_id: subject.id }), 400, 'parameter_invalid', 'origin');
  });

  it.each([
    ['a path', `${ORIGIN}/app`],
    ['a trailing slash', `${ORIGIN}/`],
    ['a query', `${ORIGIN}?x=1`],
    ['a fragment', `${ORIGIN}#top`],
    ['userinfo', 'https://user:pw@app.acme.test'],
    ['an ftp scheme', 'ftp://app.acme.test'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a bare host', 'app.acme.test'],
    ['http on a host other than localhost', 'http://app.acme.test'],
    ['an impossible port', 'https://app.acme.test:99999'],
    ['the opaque origin "null"', 'null'],
    ['more than 255 characters', `https://${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.test`],
  ])('refuses an origin with %s as 400 invalid_origin', async (_label, origin) => {
    const subject = await assign();
    const before = await countTokens();
    expectError(await mint(org.keys.secret_test, { origin, coding_session_id: subject.id }), 400, 'invalid_origin', 'origin');
    expect(await countTokens()).toBe(before);
  });

  it('refuses an origin not allowlisted by this organisation in this environment with 403 origin_not_allowed', async () => {
    const subject = await assign();
    const key = org.keys.secret_test;
    const before = await countTokens();
    expectError(await mint(key, { origin: 'https://nowhere.acme.test', coding_session_id: subject.id }), 403, 'origin_not_allowed', 'origin');
    // Same host, another port or scheme: no match.
    expectError(await mint(key, { origin: 'https://app.acme.test:8443', coding_session_id: subject.id }), 403, 'origin_not_allowed');

    // Allowlisted in live only: not for a test key.
    await allowlist(org.keys.secret_live, 'https://live-only.acme.test');
    expectError(await mint(key, { origin: 'https://live-only.acme.test', coding_session_id: subject.id }), 403, 'origin_not_allowed');
    // Allowlisted by another organisation only.
    await allowlist(other.keys.secret_test, 'https://globex-only.test');
    expectError(await mint(key, { origin: 'https://globex-only.test', coding_session_id: subject.id }), 403, 'origin_not_allowed');
    expect(await countTokens()).toBe(before);
  });

  it('accepts http://localhost:3000 once allowlisted (http is allowed on localhost), and only that port', async () => {
    const subject = await assign();
    const key = org.keys.secret_test;
    expectError(await mint(key, { origin: 'http://localhost:3000', coding_session_id: subject.id }), 403, 'origin_not_allowed');
    await allowlist(key, 'http://localhost:3000');
    const ok = await mint(key, { origin: 'http://localhost:3000', coding_session_id: subject.id });
    expect(ok.status).toBe(201);
    expect(decode(ok.body.session_token).payload.origin).toBe('http://localhost:3000');
    expectError(await mint(key, { origin: 'http://localhost:3001', coding_session_id: subject.id }), 403, 'origin_not_allowed');
  });

  it('matches the default port as the bare origin (https://host:443 is https://host)', async () => {
    const subject = await assign();
    const res = await mint(org.keys.secret_test, { origin: 'https://app.acme.test:443', coding_session_id: subject.id });
    expect(res.status).toBe(201);
    expect(decode(res.body.session_token).payload.origin).toBe(ORIGIN);
  });

  it('binds exactly one subject', async () => {
    const subject = await assign();
    const key = org.keys.secret_test;
    expectError(await mint(key, { origin: ORIGIN }), 400, 'parameter_missing', 'interview_id');
    expectError(await mint(key, { origin: ORIGIN, coding_session_id: subject.id, interview_id: randomUUID() }), 400, 'parameter_invalid');
    expectError(await mint(key, { origin: ORIGIN, coding_session_id: 'not-a-uuid' }), 400, 'parameter_invalid', 'coding_session_id');
  });

  it('answers 404 for an interview (module not landed), an unknown coding session, or one of another organisation or environment', async () => {
    const key = org.keys.secret_test;
    expectError(await mint(key, { origin: ORIGIN, interview_id: randomUUID() }), 404, 'resource_not_found', 'interview_id');
    expectError(await mint(key, { origin: ORIGIN, coding_session_id: randomUUID() }), 404, 'resource_not_found', 'coding_session_id');

    const theirs = await assign(other.keys.secret_test);
    await allowlist(other.keys.secret_test, ORIGIN);
    expectError(await mint(key, { origin: ORIGIN, coding_session_id: theirs.id }), 404, 'resource_not_found', 'coding_session_id');
    // The owner can mint for it (so the 404 above is about ownership).
    expect((await mint(other.keys.secret_test, { origin: ORIGIN, coding_session_id: theirs.id })).status).toBe(201);

    const live = await assign(org.keys.secret_live);
    expectError(await mint(key, { origin: ORIGIN, coding_session_id: live.id }), 404, 'resource_not_found');
  });

  it('refuses a cancelled coding session with 400 session_cancelled', async () => {
    const subject = await assign();
    expect((await call('POST', `/v1/coding-sessions/${subject.id}/cancel`, { key: org.keys.secret_test })).status).toBe(200);
    expectError(await mint(org.keys.secret_test, { origin: ORIGIN, coding_session_id: subject.id }), 400, 'session_cancelled');
  });

  it('refuses a finished coding session (time limit run out) with 400 session_already_finalized', async () => {
    const { id, token, test } = await tokenFor();
    expect((await call('POST', `/v1/coding-sessions/${id}/start`, { token, origin: ORIGIN })).status).toBe(200);
    h.clock.advance(test.duration_minutes * 60_000 + 1000);
    expectError(await mint(org.keys.secret_test, { origin: ORIGIN, coding_session_id: id }), 400, 'session_already_finalized');
    await h.modules.coding.expireDue();
    expectError(await mint(org.keys.secret_test, { origin: ORIGIN, coding_session_id: id }), 400, 'session_already_finalized');
  });

  it('refuses a coding session whose 7-day assignment window lapsed with 400 assignment_expired', async () => {
    const subject = await assign();
    h.clock.advance(7 * 86_400_000 - 60_000);
    expect((await mint(org.keys.secret_test, { origin: ORIGIN, coding_session_id: subject.id })).status).toBe(201);
    h.clock.advance(60_000 + 1000);
    expectError(await mint(org.keys.secret_test, { origin: ORIGIN, coding_session_id: subject.id }), 400, 'assignment_expired');
  });
});

// ---------------------------------------------------------------- the JWT

describe('the session token', () => {
  it('is an EdDSA JWT with a kid from the JWKS and the documented claims', async () => {
    const { id, token, jti, body } = await tokenFor();
    const { header, payload } = decode(token);
    expect(header).toEqual({ alg: 'EdDSA', typ: 'JWT', kid: expect.any(String) });
    expect((await jwks()).map((k) => k.kid)).toContain(header.kid);

    expect(payload).toMatchObject({
      iss: h.config.publicUrl, aud: 'prep:session', sub: id, jti, org: org.id, livemode: false, subject_kind: 'coding', origin: ORIGIN,
    });
    expect(h.config.publicUrl).toBe('http://localhost:8080');
    expect(payload.exp - payload.iat).toBe(900);
    expect(payload.exp).toBe(body.expires_at);
    expect(payload.iat).toBe(Math.floor(h.clock.now() / 1000));
  });

  it('carries livemode true when minted with a live key', async () => {
    const { token } = await tokenFor({ key: org.keys.secret_live });
    expect(decode(token).payload).toMatchObject({ livemode: true, org: org.id });
  });

  it('verifies with node:crypto against the published JWK (an independent implementation)', async () => {
    const { token } = await tokenFor();
    const { header, signingInput, signature } = decode(token);
    const jwk = (await jwks()).find((k) => k.kid === header.kid)!;
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(jwk).not.toHaveProperty('d');
    const publicKey = createPublicKey({ key: jwk as never, format: 'jwk' });
    expect(signature.length).toBe(64);
    expect(verify(null, Buffer.from(signingInput), publicKey, signature)).toBe(true);
    // And the check is real: one flipped bit fails.
    const flipped = Buffer.from(signature);
    flipped[0] ^= 1;
    expect(verify(null, Buffer.from(signingInput), publicKey, flipped)).toBe(false);
  });
});

// ---------------------------------------------------------------- forgeries

describe('forged and dead tokens answer 401 invalid_session_token', () => {
  const attacker = generateKeyPairSync('ed25519');

  it('a token re-signed by hand with the real key is accepted (control for the cases below)', async () => {
    const { id, token } = await tokenFor();
    const { header, payload } = decode(token);
    const real = await realSigningKey();
    expect(real.kid).toBe(header.kid);
    expect((await timer(id, signEdDSA(header, payload, real.privateKey))).status).toBe(200);
  });

  it('signed by another Ed25519 key under the same kid', async () => {
    const { id, token } = await tokenFor();
    const { header, payload } = decode(token);
    expectError(await timer(id, signEdDSA(header, payload, attacker.privateKey)), 401, 'invalid_session_token');
  });

  it('alg none (unsigned), with or without a trailing signature', async () => {
    const { id, token } = await tokenFor();
    const { header, payload, parts } = decode(token);
    const unsigned = `${b64json({ ...header, alg: 'none' })}.${b64json(payload)}`;
    expectError(await timer(id, `${unsigned}.`), 401, 'invalid_session_token');
    expectError(await timer(id, `${unsigned}.${parts[2]}`), 401, 'invalid_session_token');
    expectError(await timer(id, `${b64json({ alg: 'none', typ: 'JWT' })}.${b64json(payload)}.`), 401, 'invalid_session_token');
  });

  it('HS256 signed with the public key as the HMAC secret', async () => {
    const { id, token } = await tokenFor();
    const { header, payload } = decode(token);
    const jwk = (await jwks()).find((k) => k.kid === header.kid)!;
    const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    for (const secret of [Buffer.from(jwk.x, 'base64url'), Buffer.from(pem as string), Buffer.from(JSON.stringify(jwk))]) {
      const input = `${b64json({ alg: 'HS256', typ: 'JWT', kid: header.kid })}.${b64json(payload)}`;
      const forged = `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
      expectError(await timer(id, forged), 401, 'invalid_session_token');
    }
  });

  it('a tampered payload (other subject, other organisation, longer life) with the original signature', async () => {
    const mine = await tokenFor();
    const sibling = await assign();
    const { parts, payload } = decode(mine.token);
    const tamper = (changes: object) => `${parts[0]}.${b64json({ ...payload, ...changes })}.${parts[2]}`;
    // Moved to another coding session of the same organisation: the signature fails before any scope check.
    expectError(await timer(sibling.id, tamper({ sub: sibling.id })), 401, 'invalid_session_token');
    expectError(await timer(mine.id, tamper({ org: other.id })), 401, 'invalid_session_token');
    expectError(await timer(mine.id, tamper({ exp: payload.exp + 86_400 })), 401, 'invalid_session_token');
    expectError(await timer(mine.id, tamper({ origin: 'https://evil.test' }), 'https://evil.test'), 401, 'invalid_session_token');
    // The untampered token still works.
    expect((await timer(mine.id, mine.token)).status).toBe(200);
  });

  it('a header embedding a key (jwk) or pointing at one (jku, x5u)', async () => {
    const { id, token } = await tokenFor();
    const { header, payload } = decode(token);
    const attackerJwk = attacker.publicKey.export({ format: 'jwk' });
    // Signed by the attacker, offering the attacker's key.
    expectError(await timer(id, signEdDSA({ alg: 'EdDSA', typ: 'JWT', jwk: attackerJwk }, payload, attacker.privateKey)), 401, 'invalid_session_token');
    expectError(await timer(id, signEdDSA({ ...header, jwk: attackerJwk }, payload, attacker.privateKey)), 401, 'invalid_session_token');
    expectError(await timer(id, signEdDSA({ ...header, jku: 'https://evil.test/jwks.json' }, payload, attacker.privateKey)), 401, 'invalid_session_token');
    // Such headers are refused outright, even on a token our own key signed.
    const real = await realSigningKey();
    for (const extra of [{ jwk: attackerJwk }, { jku: 'https://evil.test/jwks.json' }, { x5u: 'https://evil.test/cert.pem' }]) {
      expectError(await timer(id, signEdDSA({ ...header, ...extra }, payload, real.privateKey)), 401, 'invalid_session_token');
    }
  });

  it('an unknown kid, or no kid', async () => {
    const { id, token } = await tokenFor();
    const { header, payload } = decode(token);
    expectError(await timer(id, signEdDSA({ ...header, kid: randomUUID() }, payload, attacker.privateKey)), 401, 'invalid_session_token');
    const real = await realSigningKey();
    expectError(await timer(id, signEdDSA({ ...header, kid: randomUUID() }, payload, real.privateKey)), 401, 'invalid_session_token');
    expectError(await timer(id, signEdDSA({ alg: 'EdDSA', typ: 'JWT' }, payload, real.privateKey)), 401, 'invalid_session_token');
  });

  it('claims the service would never issue, even when signed with its key', async () => {
    const { id, token } = await tokenFor();
    const { header, payload } = decode(token);
    const { privateKey } = await realSigningKey();
    const resign = (changes: Record<string, unknown>) => signEdDSA(header, { ...payload, ...changes }, privateKey);
    expectError(await timer(id, resign({ iss: 'https://evil.test' })), 401, 'invalid_session_token');
    expectError(await timer(id, resign({ aud: 'prep:other' })), 401, 'invalid_session_token');
    expectError(await timer(id, resign({ subject_kind: 'wizard' })), 401, 'invalid_session_token');
    // A jti the service never recorded (cannot be revoked, so not accepted).
    expectError(await timer(id, resign({ jti: randomUUID() })), 401, 'invalid_session_token');
  });

  it('expired: accepted until 15 minutes have passed, refused after (cached or not)', async () => {
    const seen = await tokenFor();
    const unseen = await tokenFor();
    expect((await timer(seen.id, seen.token)).status).toBe(200);
    h.clock.advance(899_000);
    expect((await timer(seen.id, seen.token)).status).toBe(200);
    h.clock.advance(2_000);
    expectError(await timer(seen.id, seen.token), 401, 'invalid_session_token');
    expectError(await timer(unseen.id, unseen.token), 401, 'invalid_session_token');
  });

  it('expired after 15 min + 1 s', async () => {
    const { id, token } = await tokenFor();
    h.clock.advance(15 * 60_000 + 1000);
    expectError(await timer(id, token), 401, 'invalid_session_token');
  });

  it('garbage, an API key, or nothing at all', async () => {
    const { id } = await tokenFor();
    for (const junk of ['garbage', 'a.b.c', 'eyJhbGciOiJFZERTQSJ9.e30.', org.keys.secret_test, org.keys.publishable_test]) {
      expectError(await timer(id, junk), 401, 'invalid_session_token');
    }
    expectError(await call('GET', `/v1/coding-sessions/${id}/timer`, { origin: ORIGIN }), 401, 'invalid_session_token');
    expectError(await call('GET', `/v1/coding-sessions/${id}/timer`, { origin: ORIGIN, headers: { authorization: 'Bearer ' } }), 401, 'invalid_session_token');
  });
});

// ---------------------------------------------------------------- revocation

describe('DELETE /v1/sessions/{jti}', () => {
  it('revokes at once: 200, then the token answers 401', async () => {
    const { id, token, jti } = await tokenFor();
    expect((await timer(id, token)).status).toBe(200);
    const res = await call('DELETE', `/v1/sessions/${jti}`, { key: org.keys.secret_test });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'session', jti, revoked: true });
    const row = await h.db.kysely.selectFrom('session_tokens').select('revoked_at').where('jti', '=', jti).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    expectError(await timer(id, token), 401, 'invalid_session_token');
    expectError(await call('GET', '/v1/session', { token, origin: ORIGIN }), 401, 'invalid_session_token');
  });

  it('answers 404 for an unknown jti, or one of another organisation or environment (which stays valid)', async () => {
    expectError(await call('DELETE', `/v1/sessions/${randomUUID()}`, { key: org.keys.secret_test }), 404, 'resource_not_found');
    const { id, token, jti } = await tokenFor();
    expectError(await call('DELETE', `/v1/sessions/${jti}`, { key: other.keys.secret_test }), 404, 'resource_not_found');
    expectError(await call('DELETE', `/v1/sessions/${jti}`, { key: org.keys.secret_live }), 404, 'resource_not_found');
    expect((await timer(id, token)).status).toBe(200);
    expectError(await call('DELETE', '/v1/sessions/not-a-uuid', { key: org.keys.secret_test }), 400, 'parameter_invalid', 'jti');
  });

  it('takes effect in every server process sharing the database', async () => {
    const db2 = openDatabase(h.config);
    const second = (await buildApp({ config: h.config, db: db2, clock: h.clock, logger: false })).app;
    try {
      const { id, token, jti } = await tokenFor();
      const onSecond = () => testClient({ ...h, app: second }).call('GET', `/v1/coding-sessions/${id}/timer`, { token, origin: ORIGIN });
      expect((await onSecond()).status).toBe(200); // the second process verified (and cached) it
      expect((await call('DELETE', `/v1/sessions/${jti}`, { key: org.keys.secret_test })).status).toBe(200);
      expectError(await onSecond(), 401, 'invalid_session_token');
    } finally {
      await second.close();
      await db2.close();
    }
  });
});

describe('revoking the secret key that minted a session', () => {
  // Was a bug: a session outlived the key that minted it, refreshable for 8 hours, and only its jti (known to whoever
  // minted it: the thief of a leaked key too) could end it; DELETE /v1/api-keys/{id} left every such session running.
  async function siblingKey(key = org.keys.secret_test) {
    const res = await call('POST', '/v1/api-keys', { key, body: { type: 'secret' } });
    expect(res.status, res.raw).toBe(201);
    return res.body as { id: string; secret: string };
  }

  it('ends the sessions it minted and their refreshes, at once; sessions of other keys go on', async () => {
    const minter = await siblingKey();
    const { id, token } = await tokenFor({ key: minter.secret });
    const bystander = await tokenFor();
    const refreshed = await call('POST', '/v1/sessions/refresh', { token, origin: ORIGIN });
    expect(refreshed.status, refreshed.raw).toBe(201);
    expect((await timer(id, refreshed.body.session_token)).status).toBe(200);

    expect((await call('DELETE', `/v1/api-keys/${minter.id}`, { key: org.keys.secret_test })).status).toBe(200);
    for (const t of [token, refreshed.body.session_token]) {
      expectError(await timer(id, t), 401, 'invalid_session_token');
      expectError(await call('POST', '/v1/sessions/refresh', { token: t, origin: ORIGIN }), 401, 'invalid_session_token');
    }
    expect((await timer(bystander.id, bystander.token)).status).toBe(200);
  });

  it('a rotation with no grace ends them too; one with a grace does not, even once the grace is over', async () => {
    const onTheSpot = await siblingKey();
    const ended = await tokenFor({ key: onTheSpot.secret });
    expect((await call('POST', `/v1/api-keys/${onTheSpot.id}/rotate`, { key: org.keys.secret_test, body: { grace_seconds: 0 } })).status).toBe(201);
    expectError(await timer(ended.id, ended.token), 401, 'invalid_session_token');

    const routine = await siblingKey();
    const kept = await tokenFor({ key: routine.secret });
    expect((await call('POST', `/v1/api-keys/${routine.id}/rotate`, { key: org.keys.secret_test, body: { grace_seconds: 60 } })).status).toBe(201);
    h.clock.advance(61_000);
    expectError(await call('GET', '/v1/usage', { key: routine.secret }), 401, 'revoked_api_key');
    expect((await timer(kept.id, kept.token)).status).toBe(200);
  });
});

// ---------------------------------------------------------------- origin binding and scope

describe('origin binding', () => {
  it('re-checks the Origin header on every request', async () => {
    const { id, token } = await tokenFor();
    expect((await timer(id, token, ORIGIN)).status).toBe(200);
    expectError(await timer(id, token, 'https://evil.test'), 403, 'origin_not_allowed');
    expect((await timer(id, token, ORIGIN)).status).toBe(200);
  });

  it('refuses another origin, including one the organisation also allowlisted, and a missing Origin', async () => {
    const { id, token } = await tokenFor();
    await allowlist(org.keys.secret_test, 'https://other-app.acme.test');
    for (const origin of ['https://other-app.acme.test', 'https://app.acme.test:8443', 'http://app.acme.test', 'https://evil.test', 'null', h.config.publicUrl]) {
      expectError(await timer(id, token, origin), 403, 'origin_not_allowed');
    }
    expectError(await timer(id, token, null), 403, 'origin_not_allowed');
    // Claiming to be same-origin only stands for the service's own origin, not the bound one.
    expectError(await call('GET', `/v1/coding-sessions/${id}/timer`, { token, origin: null, headers: { 'sec-fetch-site': 'same-origin' } }), 403, 'origin_not_allowed');
    expect((await timer(id, token, ORIGIN)).status).toBe(200);
  });

  it('applies to refresh and to the session context too', async () => {
    const { token } = await tokenFor();
    expectError(await call('POST', '/v1/sessions/refresh', { token, origin: 'https://evil.test' }), 403, 'origin_not_allowed');
    expectError(await call('GET', '/v1/session', { token, origin: 'https://evil.test' }), 403, 'origin_not_allowed');
    expectError(await call('GET', '/v1/session', { token, origin: null }), 403, 'origin_not_allowed');
  });
});

describe('subject scope', () => {
  it('a token for coding session A used on coding session B answers 403 session_scope_mismatch', async () => {
    const a = await tokenFor();
    const b = await assign();
    expectError(await timer(b.id, a.token), 403, 'session_scope_mismatch');
    expectError(await call('POST', `/v1/coding-sessions/${b.id}/start`, { token: a.token, origin: ORIGIN }), 403, 'session_scope_mismatch');
    expectError(await call('POST', `/v1/coding-sessions/${b.id}/events`, { token: a.token, origin: ORIGIN, body: { events: [{ type: 'blur' }] } }), 403, 'session_scope_mismatch');
    const bRow = await h.db.kysely.selectFrom('coding_sessions').select(['status', 'started_at']).where('id', '=', b.id).executeTakeFirstOrThrow();
    expect(bRow).toEqual({ status: 'assigned', started_at: null });
    const events = await h.db.kysely.selectFrom('proctoring_events').select('id').where('subject_id', '=', b.id).execute();
    expect(events).toHaveLength(0);
    expect((await timer(a.id, a.token)).status).toBe(200);
  });
});

describe('each operation takes its own credential', () => {
  it('a secret-key operation refuses a session token with 401 invalid_api_key', async () => {
    const { id, token, jti } = await tokenFor();
    expectError(await call('GET', `/v1/coding-sessions/${id}`, { token, origin: ORIGIN }), 401, 'invalid_api_key');
    expectError(await call('GET', '/v1/candidates', { token, origin: ORIGIN }), 401, 'invalid_api_key');
    expectError(await mint(token, { origin: ORIGIN, coding_session_id: id }), 401, 'invalid_api_key');
    expectError(await call('DELETE', `/v1/sessions/${jti}`, { token, origin: ORIGIN }), 401, 'invalid_api_key');
    expect((await timer(id, token)).status).toBe(200);
  });

  it('a session-token operation refuses a secret key with 401 invalid_session_token', async () => {
    const { id } = await tokenFor();
    for (const key of [org.keys.secret_test, org.keys.secret_live]) {
      expectError(await timer(id, key), 401, 'invalid_session_token');
      expectError(await call('GET', '/v1/session', { key, origin: ORIGIN }), 401, 'invalid_session_token');
      expectError(await call('POST', '/v1/sessions/refresh', { key, origin: ORIGIN }), 401, 'invalid_session_token');
      expectError(await call('POST', `/v1/coding-sessions/${id}/start`, { key, origin: ORIGIN }), 401, 'invalid_session_token');
    }
    expectError(await call('GET', `/v1/coding-sessions/${id}/timer`, { origin: ORIGIN, headers: { 'x-api-key': org.keys.secret_test } }), 401, 'invalid_session_token');
  });
});

// ---------------------------------------------------------------- refresh

describe('POST /v1/sessions/refresh', () => {
  // Was a bug: a session could be refreshed without end (each refresh a row, 600 a minute per subject): a token held
  // by someone else could make some 288,000 rows over its 8 hours.
  it(`refreshes one session at most ${SESSION_REFRESHES_MAX} times, from any token of its chain`, async () => {
    const first = await tokenFor();
    let token = first.token;
    for (let i = 0; i < SESSION_REFRESHES_MAX; i++) {
      const res = await call('POST', '/v1/sessions/refresh', { token: i % 2 ? token : first.token, origin: ORIGIN });
      expect(res.status, res.raw).toBe(201);
      token = res.body.session_token;
    }
    const refused = await call('POST', '/v1/sessions/refresh', { token, origin: ORIGIN });
    expectError(refused, 401, 'invalid_session_token');
    expect(refused.body.error.message).toMatch(/refreshed 400 times/);
    expect((await timer(first.id, token)).status).toBe(200); // the tokens it has still work
  }, 60_000);

  it('answers 201 with a new token of the same binding and a new jti; both tokens work', async () => {
    const first = await tokenFor();
    h.clock.advance(10 * 60_000);
    const res = await call('POST', '/v1/sessions/refresh', { token: first.token, origin: ORIGIN });
    expect(res.status).toBe(201);
    const body = res.body;
    const now = Math.floor(h.clock.now() / 1000);
    expect(body).toMatchObject({ object: 'session', subject_kind: 'coding', subject_id: first.id, expires_at: now + 900, refresh_after: now + 600 });
    expect(body.jti).not.toBe(first.jti);
    expect(body.session_token).not.toBe(first.token);

    const before = decode(first.token).payload;
    const after = decode(body.session_token).payload;
    expect(after).toMatchObject({ sub: before.sub, org: before.org, livemode: before.livemode, origin: before.origin, subject_kind: before.subject_kind, jti: body.jti });
    const row = await h.db.kysely.selectFrom('session_tokens').selectAll().where('jti', '=', body.jti).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ source: 'refresh', origin: ORIGIN, subject_id: first.id, organization_id: org.id });

    expect((await timer(first.id, body.session_token)).status).toBe(200);
    // The old token keeps working until its own expiry, and no longer.
    expect((await timer(first.id, first.token)).status).toBe(200);
    h.clock.advance(5 * 60_000 + 1000);
    expectError(await timer(first.id, first.token), 401, 'invalid_session_token');
    expect((await timer(first.id, body.session_token)).status).toBe(200);
  });

  // Was a bug: refresh skipped the allowlist for any token bound to the service's own origin (meant for launch-link
  // sessions), so a secret-key token minted for that origin, once allowlisted, refreshed for 8 hours after removal.
  it('re-checks the allowlist for a secret-key token bound to the service\'s own origin; a launch-link session needs none', async () => {
    const own = h.config.publicUrl;
    const domain = await allowlist(org.keys.secret_test, own);
    const minted = await tokenFor({ origin: own });
    expect((await call('POST', '/v1/sessions/refresh', { token: minted.token, origin: own })).status).toBe(201);
    expect((await call('DELETE', `/v1/domains/${domain.id}`, { key: org.keys.secret_test })).status).toBe(200);
    expectError(await call('POST', '/v1/sessions/refresh', { token: minted.token, origin: own }), 403, 'origin_not_allowed');
  });

  it('refuses an expired or revoked token, or none', async () => {
    const expiring = await tokenFor();
    h.clock.advance(15 * 60_000 + 1000);
    expectError(await call('POST', '/v1/sessions/refresh', { token: expiring.token, origin: ORIGIN }), 401, 'invalid_session_token');

    const revoked = await tokenFor();
    expect((await call('DELETE', `/v1/sessions/${revoked.jti}`, { key: org.keys.secret_test })).status).toBe(200);
    const before = await countTokens();
    expectError(await call('POST', '/v1/sessions/refresh', { token: revoked.token, origin: ORIGIN }), 401, 'invalid_session_token');
    expectError(await call('POST', '/v1/sessions/refresh', { origin: ORIGIN }), 401, 'invalid_session_token');
    expect(await countTokens()).toBe(before);
  });

  it('revoking the original jti also revokes the tokens refreshed from it, however many times', async () => {
    const first = await tokenFor();
    const second = (await call('POST', '/v1/sessions/refresh', { token: first.token, origin: ORIGIN })).body;
    const third = (await call('POST', '/v1/sessions/refresh', { token: second.session_token, origin: ORIGIN })).body;
    const rows = await h.db.kysely.selectFrom('session_tokens').select(['jti', 'root_jti']).where('jti', 'in', [second.jti, third.jti]).execute();
    expect(rows.map((r) => r.root_jti)).toEqual([first.jti, first.jti]);
    expect((await timer(first.id, third.session_token)).status).toBe(200);

    expect((await call('DELETE', `/v1/sessions/${first.jti}`, { key: org.keys.secret_test })).status).toBe(200);
    for (const token of [first.token, second.session_token, third.session_token]) {
      expectError(await timer(first.id, token), 401, 'invalid_session_token');
    }
    expectError(await call('POST', '/v1/sessions/refresh', { token: third.session_token, origin: ORIGIN }), 401, 'invalid_session_token');
  });

  // Was a bug: revoking a refreshed token (the jti a leaked token shows) left the tokens refreshed from it valid.
  it('revoking a refreshed jti ends the whole session: the original, its siblings and what was refreshed from it', async () => {
    const first = await tokenFor();
    const leaked = (await call('POST', '/v1/sessions/refresh', { token: first.token, origin: ORIGIN })).body;
    const thief = (await call('POST', '/v1/sessions/refresh', { token: leaked.session_token, origin: ORIGIN })).body;
    expect((await timer(first.id, thief.session_token)).status).toBe(200);
    expect((await call('DELETE', `/v1/sessions/${leaked.jti}`, { key: org.keys.secret_test })).status).toBe(200);
    for (const token of [first.token, leaked.session_token, thief.session_token]) {
      expectError(await timer(first.id, token), 401, 'invalid_session_token');
    }
    expectError(await call('POST', '/v1/sessions/refresh', { token: thief.session_token, origin: ORIGIN }), 401, 'invalid_session_token');
  });
});

// ---------------------------------------------------------------- CORS

describe('CORS', () => {
  const preflight = (url: string, origin: string) => call('OPTIONS', url, {
    origin, headers: { 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
  });

  it('a preflight from an origin some organisation allowlisted is allowed, with the Authorization header', async () => {
    const { id } = await tokenFor();
    for (const origin of [ORIGIN, 'https://globex-cors.test']) {
      if (origin !== ORIGIN) await allowlist(other.keys.secret_live, origin);
      const res = await preflight(`/v1/coding-sessions/${id}/timer`, origin);
      expect(res.status).toBeLessThan(300);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(String(res.headers['access-control-allow-headers'])).toMatch(/authorization/i);
      expect(String(res.headers['access-control-allow-methods'])).toMatch(/GET/);
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('a preflight from an origin nobody allowlisted gets no access-control-allow-origin', async () => {
    const { id } = await tokenFor();
    for (const origin of ['https://never-allowlisted.test', 'http://app.acme.test', 'null']) {
      const res = await preflight(`/v1/coding-sessions/${id}/timer`, origin);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  // Was a bug: each process kept its CORS decision per origin for 30 s, so the embed on an origin added just after a
  // refused preflight (a customer trying it before allowlisting) stayed refused for up to 30 s.
  it('an origin allowlisted after a refused preflight is allowed at once, and refused again once removed', async () => {
    const { id } = await tokenFor();
    const origin = 'https://late-allowlisted.test';
    expect((await preflight(`/v1/coding-sessions/${id}/timer`, origin)).headers['access-control-allow-origin']).toBeUndefined();
    const domain = await allowlist(other.keys.secret_live, origin);
    expect((await preflight(`/v1/coding-sessions/${id}/timer`, origin)).headers['access-control-allow-origin']).toBe(origin);
    expect((await call('DELETE', `/v1/domains/${domain.id}`, { key: other.keys.secret_live })).status).toBeLessThan(300);
    expect((await preflight(`/v1/coding-sessions/${id}/timer`, origin)).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('the actual response to the bound origin carries the CORS headers', async () => {
    const { id, token } = await tokenFor();
    const res = await timer(id, token, ORIGIN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(res.headers.vary)).toMatch(/origin/i);
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/request-id/i);
    const elsewhere = await timer(id, token, 'https://never-allowlisted-2.test');
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
  });
});

// ---------------------------------------------------------------- session context

describe('GET /v1/session', () => {
  it('describes the coding subject with the candidate, the test, its duration, the status and the environment\'s branding', async () => {
    const key = org.keys.secret_test;
    expect((await call('PATCH', '/v1/branding', { key, body: { company_name: 'Acme Sandbox', primary_color: '#112233' } })).status).toBe(200);
    expect((await call('PATCH', '/v1/branding', { key: org.keys.secret_live, body: { company_name: 'Acme Live' } })).status).toBe(200);
    const { id, token, candidate, test, body } = await tokenFor();
    const usage = async () => (await call('GET', '/v1/usage', { key })).body;
    const usageBefore = await usage();

    const res = await call('GET', '/v1/session', { token, origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'session_context', subject_kind: 'coding', subject_id: id, livemode: false, origin: ORIGIN, expires_at: body.expires_at,
      candidate, round: { id: test.id, name: test.name }, duration_seconds: test.duration_minutes * 60, status: 'assigned',
      branding: { object: 'branding', livemode: false, company_name: 'Acme Sandbox', primary_color: '#112233' },
    });
    expect(await usage()).toEqual(usageBefore); // not billable

    expect((await call('POST', `/v1/coding-sessions/${id}/start`, { token, origin: ORIGIN })).status).toBe(200);
    expect((await call('GET', '/v1/session', { token, origin: ORIGIN })).body.status).toBe('started');

    expect((await call('PATCH', '/v1/branding', { key, body: { company_name: 'Acme Renamed' } })).status).toBe(200);
    expect((await call('GET', '/v1/session', { token, origin: ORIGIN })).body.branding.company_name).toBe('Acme Renamed');
  });

  it('shows the live branding to a live session', async () => {
    expect((await call('PATCH', '/v1/branding', { key: org.keys.secret_live, body: { company_name: 'Acme Live' } })).status).toBe(200);
    const { token } = await tokenFor({ key: org.keys.secret_live });
    const res = await call('GET', '/v1/session', { token, origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ livemode: true, branding: { livemode: true, company_name: 'Acme Live' } });
  });
});
