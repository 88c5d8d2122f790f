import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncryption } from '../../src/platform/encryption.js';
import { testClient, type Reply, type TestClient } from '../helpers/client.js';
import { startHarness, type Harness, type Org } from '../helpers/harness.js';

/**
 * Candidate access as an attacker sees it: tokens forged or bent in ways session-tokens.test.ts does not try, Origin
 * headers a browser would never send but a script can, keys of the wrong kind, and the launch exchange as a target for
 * guessing. Each case is an attack; each must fail closed (401/403/429), never 2xx and never 5xx.
 */

const ORIGIN = 'https://app.acme.test';
let h: Harness;
let client: TestClient;
let org: Org;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_PUBLIC_URL: 'http://localhost:8080' } });
  client = testClient(h);
  org = await h.createOrg('Acme', 200);
  await client.allowOrigin(org.keys.secret_test, ORIGIN);
});
afterAll(() => h.close());

function expectError(res: Reply, status: number, code: string) {
  expect(res.status, res.raw).toBe(status);
  expect(res.body.error.code, res.raw).toBe(code);
}

let testId: string | undefined;
async function codingSession(key = org.keys.secret_test): Promise<string> {
  testId ??= (await client.ok('GET', '/v1/coding-tests?limit=100', { key })).data.find((t: any) => t.duration_minutes !== null).id;
  return (await client.assign(key, 'coding', testId!)).id;
}

async function minted(origin = ORIGIN) {
  const id = await codingSession();
  const body = await client.ok('POST', '/v1/sessions', { key: org.keys.secret_test, body: { origin, coding_session_id: id } });
  return { id, token: body.session_token as string };
}

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const parts = (token: string) => token.split('.');
const claimsOf = (token: string) => JSON.parse(Buffer.from(parts(token)[1], 'base64url').toString('utf8'));

async function realKey(): Promise<{ kid: string; privateKey: KeyObject }> {
  const row = await h.db.kysely.selectFrom('signing_keys').selectAll().where('retired_at', 'is', null).executeTakeFirstOrThrow();
  return { kid: row.kid, privateKey: createPrivateKey(createEncryption(() => h.config.encryptionKey!).decrypt(row.private_key)) };
}

function signed(header: object, payload: object, privateKey: KeyObject, encodePayload = true): string {
  const p = encodePayload ? b64json(payload) : JSON.stringify(payload);
  const input = `${b64json(header)}.${p}`;
  return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
}

const session = (token: string, headers: Record<string, string> = { origin: ORIGIN }) =>
  client.call('GET', '/v1/session', { token, origin: null, headers });

describe('forged session tokens', () => {
  it('a kid that is not one of ours, whatever it holds, is refused without a server fault', async () => {
    const { token } = await minted();
    const { privateKey } = await realKey();
    const payload = claimsOf(token);
    for (const kid of ["' OR '1'='1", '%', '_', '../../signing_keys', 'k'.repeat(4000), '\u0000', '']) {
      const forged = signed({ alg: 'EdDSA', kid, typ: 'JWT' }, payload, privateKey);
      expectError(await session(forged), 401, 'invalid_session_token');
    }
    for (const kid of [42, null, ['x'], { $ne: 1 }]) {
      expectError(await session(signed({ alg: 'EdDSA', kid, typ: 'JWT' }, payload, privateKey)), 401, 'invalid_session_token');
    }
  });

  it("the real key's kid in another case is not the real key", async () => {
    const { token } = await minted();
    const { kid, privateKey } = await realKey();
    expect((await session(signed({ alg: 'EdDSA', kid, typ: 'JWT' }, claimsOf(token), privateKey))).status).toBe(200); // control
    expectError(await session(signed({ alg: 'EdDSA', kid: kid.toUpperCase(), typ: 'JWT' }, claimsOf(token), privateKey)), 401, 'invalid_session_token');
  });

  it('critical extensions, an unencoded payload and another typ are refused, even signed with the real key', async () => {
    const { token } = await minted();
    const { kid, privateKey } = await realKey();
    const payload = claimsOf(token);
    const headers = [
      { alg: 'EdDSA', kid, typ: 'JWT', crit: ['exp'] },
      { alg: 'EdDSA', kid, typ: 'JWT', crit: ['x-never-heard-of'], 'x-never-heard-of': true },
      { alg: 'EdDSA', kid, typ: 'at+jwt' },
      { alg: 'Ed25519', kid, typ: 'JWT' },
      { alg: 'eddsa', kid, typ: 'JWT' },
    ];
    const accepted: string[] = [];
    for (const header of headers) if ((await session(signed(header, payload, privateKey))).status !== 401) accepted.push(JSON.stringify(header));
    const unencoded = signed({ alg: 'EdDSA', kid, typ: 'JWT', b64: false, crit: ['b64'] }, payload, privateKey, false);
    if ((await session(unencoded)).status !== 401) accepted.push('b64:false');
    expect(accepted).toEqual([]);
  });

  it('a real token bent in its framing (extra segment, padding, whitespace, JSON serialisation) is refused', async () => {
    const { token } = await minted();
    const [header, payload, sig] = parts(token);
    const bent = [
      `${token}.`, `${token}.${sig}`, `.${token}`, `${header}=.${payload}.${sig}`, `${header}.${payload}=.${sig}`,
      `${header}.${payload}`, JSON.stringify({ protected: header, payload, signature: sig }),
      Buffer.from(token).toString('base64url'),
    ];
    const accepted: string[] = [];
    for (const t of bent) if ((await session(t)).status !== 401) accepted.push(t.replace(header, 'H').replace(payload, 'P').replace(sig, 'S'));
    expect(accepted).toEqual([]);
    expect((await session(token)).status).toBe(200);
    // Padding on the signature decodes to the same signature over the same bytes: the same token, same jti, same
    // revocation; it gains nothing, and is accepted.
    expect((await session(`${token}==`)).status).toBe(200);
  });

  it('a token minted for one subject carries nothing a second request can swap: the subject id in the URL is the token\'s or refused', async () => {
    const a = await minted();
    const b = await minted();
    const onB = await client.call('GET', `/v1/coding-sessions/${b.id}/timer`, { token: a.token, origin: ORIGIN });
    expectError(onB, 403, 'session_scope_mismatch');
    const upper = await client.call('GET', `/v1/coding-sessions/${b.id.toUpperCase()}/timer`, { token: a.token, origin: ORIGIN });
    expectError(upper, 403, 'session_scope_mismatch'); // B's id in capitals is still not A
  });
});

describe('a token signed with the real key but not as recorded', () => {
  // Was a gap: the recorded row was read on every request, for revocation only, so whoever held the signing key (a
  // leaked backup and its encryption key) could take any jti ever shown and re-bind it: another subject, another
  // organisation, another origin, a longer life. The row is the authority now: a token must say what was recorded.
  it('a recorded jti re-bound to another subject, organisation, environment, kind or origin, or given a longer life, is refused', async () => {
    const other = await h.createOrg('Globex', 20);
    await client.allowOrigin(other.keys.secret_test, ORIGIN);
    const mine = await minted();
    const theirs = await codingSession(other.keys.secret_test);
    const sibling = await codingSession();
    const { kid, privateKey } = await realKey();
    const claims = claimsOf(mine.token);
    const resign = (changes: Record<string, unknown>) => signed({ alg: 'EdDSA', kid, typ: 'JWT' }, { ...claims, ...changes }, privateKey);
    const timer = (id: string, token: string, origin = ORIGIN) => client.call('GET', `/v1/coding-sessions/${id}/timer`, { token, origin });

    expect((await timer(mine.id, resign({}))).status).toBe(200); // control: re-signed as recorded
    const refused: Array<[string, Reply]> = [
      ['sibling subject', await timer(sibling, resign({ sub: sibling }))],
      ['other organisation', await timer(theirs, resign({ sub: theirs, org: other.id }))],
      ['live', await timer(mine.id, resign({ livemode: true }))],
      ['other kind', await client.call('GET', '/v1/session', { token: resign({ subject_kind: 'psychometric' }), origin: ORIGIN })],
      ['other origin', await timer(mine.id, resign({ origin: 'https://evil.test' }), 'https://evil.test')],
      ['longer life', await timer(mine.id, resign({ exp: claims.exp + 86_400 }))],
    ];
    expect(refused.filter(([, res]) => res.status !== 401 || res.body.error.code !== 'invalid_session_token').map(([label]) => label)).toEqual([]);
    expect((await timer(mine.id, mine.token)).status).toBe(200);
  });
});

describe('the Origin header, as a script can send it', () => {
  it('accepts only the bound origin, and its default-port spelling', async () => {
    const { token } = await minted();
    expect((await session(token, { origin: ORIGIN })).status).toBe(200);
    expect((await session(token, { origin: `${ORIGIN}:443` })).status).toBe(200);
    const refused = [
      'null', '', ' ', `${ORIGIN}.`, `${ORIGIN}:444`, `${ORIGIN}:0443x`, 'http://app.acme.test', `${ORIGIN}/`, `${ORIGIN}/path`,
      `${ORIGIN}?x`, `${ORIGIN}#x`, 'https://app.acme.test.evil.test', 'https://evil.test@app.acme.test', 'https://app.acme.test@evil.test',
      'https://xapp.acme.test', 'https://acme.test', `${ORIGIN}, ${ORIGIN}`, `${ORIGIN} ${ORIGIN}`, 'https://*.acme.test',
      'wss://app.acme.test', 'file://', 'https://app.acme.test\\@evil.test',
    ];
    for (const origin of refused) {
      const res = await session(token, { origin });
      expect(res.status, JSON.stringify(origin)).toBe(403);
      expect(res.body.error.code, JSON.stringify(origin)).toBe('origin_not_allowed');
    }
  });

  it('a same-origin claim (no Origin; Sec-Fetch-Site same-origin or none at all) stands only for the service\'s own origin', async () => {
    const { token } = await minted();
    for (const site of [undefined, 'same-origin', 'same-site', 'cross-site', 'none']) {
      const res = await session(token, site ? { 'sec-fetch-site': site } : {});
      expectError(res, 403, 'origin_not_allowed');
    }
  });

  it('an origin with a trailing dot, or a punycode twin, is not the allowlisted origin', async () => {
    const id = await codingSession();
    const mint = (origin: string) => client.call('POST', '/v1/sessions', { key: org.keys.secret_test, body: { origin, coding_session_id: id } });
    expectError(await mint(`${ORIGIN}.`), 403, 'origin_not_allowed');
    expectError(await mint('https://xn--pp-7ia.acme.test'), 403, 'origin_not_allowed'); // "äpp"
    const normalised = await mint('HTTPS://APP.ACME.TEST:443'); // the same origin, spelled otherwise: bound as allowlisted
    expect(normalised.status, normalised.raw).toBe(201);
    expect(claimsOf(normalised.body.session_token).origin).toBe(ORIGIN);
  });

  it('an IDN origin is allowlisted and bound in its punycode form, as browsers send it', async () => {
    await client.allowOrigin(org.keys.secret_test, 'https://bücher.acme.test');
    const list = await client.ok('GET', '/v1/domains?limit=100', { key: org.keys.secret_test });
    expect(list.data.map((d: any) => d.origin)).toContain('https://xn--bcher-kva.acme.test');
    const { token } = await minted('https://bücher.acme.test');
    expect(claimsOf(token).origin).toBe('https://xn--bcher-kva.acme.test');
    expect((await session(token, { origin: 'https://xn--bcher-kva.acme.test' })).status).toBe(200);
    expectError(await session(token, { origin: 'https://bucher.acme.test' }), 403, 'origin_not_allowed');
  });

  it('a preflight from null, a trailing-dot twin or a look-alike gets no CORS grant', async () => {
    for (const origin of ['null', `${ORIGIN}.`, 'https://app.acme.test.evil.test', `${ORIGIN}:444`, 'http://app.acme.test']) {
      const res = await client.call('OPTIONS', '/v1/session', {
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
    const ok = await client.call('OPTIONS', '/v1/session', {
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(ok.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('keys of the wrong kind', () => {
  it('a publishable key reaches no secret-key operation, in either header, and is never echoed', async () => {
    const { token } = await minted();
    const jti = claimsOf(token).jti;
    const id = await codingSession();
    const ops: Array<[string, string, unknown]> = [
      ['POST', '/v1/sessions', { origin: ORIGIN, coding_session_id: id }],
      ['DELETE', `/v1/sessions/${jti}`, undefined],
      ['POST', '/v1/domains', { origin: 'https://evil.acme.test' }],
      ['GET', '/v1/domains', undefined],
      ['POST', `/v1/coding-sessions/${id}/launch-link`, {}],
      ['GET', '/v1/api-keys', undefined],
    ];
    for (const pk of [org.keys.publishable_test, org.keys.publishable_live]) {
      for (const [method, url, body] of ops) {
        for (const headers of [{ authorization: `Bearer ${pk}` }, { 'x-api-key': pk }] as Array<Record<string, string>>) {
          const res = await client.call(method as never, url, { headers, body });
          expect(res.status, `${method} ${url}`).toBe(401);
          expect(res.body.error.code).toBe('invalid_api_key');
          expect(res.raw).not.toContain(pk);
        }
      }
    }
    expect((await session(token)).status).toBe(200); // the DELETE above did nothing
    expect((await client.ok('GET', '/v1/domains?limit=100', { key: org.keys.secret_test })).data.map((d: any) => d.origin)).not.toContain('https://evil.acme.test');
  });

  it('a session token is no key, and a key is no session token; neither is echoed', async () => {
    const { token, id } = await minted();
    for (const [method, url] of [['GET', '/v1/domains'], ['POST', `/v1/coding-sessions/${id}/launch-link`], ['GET', '/v1/api-keys']]) {
      const res = await client.call(method as never, url, { token, body: method === 'POST' ? {} : undefined });
      expectError(res, 401, 'invalid_api_key');
      expect(res.raw).not.toContain(token);
    }
    const embed = await client.call('GET', `/v1/embed-config?pk=${token}`);
    expectError(embed, 401, 'invalid_api_key');
    expect(embed.raw).not.toContain(token);
    for (const key of [org.keys.secret_test, org.keys.publishable_test]) {
      const res = await client.call('GET', '/v1/session', { token: key });
      expectError(res, 401, 'invalid_session_token');
      expect(res.raw).not.toContain(key);
    }
  });
});

describe('guessing launch tokens', () => {
  const LIMIT = 6;
  let hl: Harness;
  let c: TestClient;
  beforeAll(async () => {
    hl = await startHarness({ env: { PREP_PUBLIC_URL: 'http://localhost:8080', PREP_RATE_LIMIT: String(LIMIT), PREP_AUTH_FAILURE_LIMIT: '1000' } });
    c = testClient(hl);
  });
  afterAll(() => hl?.close());

  const exchange = (token: string, remoteAddress: string) => c.call('POST', '/v1/launch/exchange', { body: { token }, remoteAddress });
  const preview = (token: string, remoteAddress: string) => c.call('POST', '/launch/preview', { body: { token }, remoteAddress });

  it('the exchange and the preview share one budget per client address; another address and the keys keep theirs', async () => {
    const guess = (i: number) => Buffer.alloc(32, i).toString('base64url');
    for (let i = 0; i < LIMIT / 2; i++) {
      expectError(await exchange(guess(i), '198.51.100.7'), 401, 'invalid_launch_token');
      expectError(await preview(guess(i), '198.51.100.7'), 401, 'invalid_launch_token');
    }
    const limited = await exchange(guess(99), '198.51.100.7');
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await preview(guess(99), '198.51.100.7'), 429, 'rate_limited');
    expectError(await exchange(guess(99), '198.51.100.8'), 401, 'invalid_launch_token');
    expect((await c.call('GET', '/v1/domains', { key: hl.org.keys.secret_test, remoteAddress: '198.51.100.7' })).status).toBe(200);
  });
});
