import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/modules/api-keys/key-material.js';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';

let h: Harness;
let other: Org;
beforeAll(async () => {
  h = await startHarness();
  other = await h.createOrg('Other Co');
});
afterAll(() => h.close());

type Res = { statusCode: number; body: string; headers: Record<string, unknown>; json(): any };

const key = () => h.org.keys.secret_test;

function req(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, apiKey = key(), headers: Record<string, string> = {}) {
  return h.app.inject({ method, url, headers: bearer(apiKey, headers), ...(payload === undefined ? {} : { payload: payload as object }) });
}

function expectError(res: Res, status: number, code: string, param?: string | null) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
  if (param !== undefined) expect(res.json().error.param).toBe(param);
}

let seq = 0;
/** A fresh https origin per call, so tests never collide on the per-environment uniqueness. */
const freshOrigin = (tag = 'app') => `https://${tag}-${++seq}.acme.test`;

async function addDomain(origin: string, apiKey = key(), status = 201) {
  const res = await req('POST', '/v1/domains', { origin }, apiKey);
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
}

/** The id of the API key behind a secret, as the database knows it. */
async function keyIdOf(secret: string): Promise<string> {
  const row = await h.db.kysely.selectFrom('api_keys').select('id').where('key_hash', '=', hashKey(secret)).executeTakeFirstOrThrow();
  return row.id;
}

const nowSeconds = () => Math.floor(h.clock.now() / 1000);

describe('POST /v1/domains', () => {
  it('allowlists an origin (201) with the contract fields, recording the calling key', async () => {
    const origin = freshOrigin();
    const body = await addDomain(origin);
    expect(Object.keys(body).sort()).toEqual(['created_at', 'created_by_key_id', 'id', 'livemode', 'object', 'origin']);
    expect(body).toMatchObject({ object: 'domain', origin, livemode: false, created_by_key_id: await keyIdOf(key()), created_at: nowSeconds() });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const row = await h.db.kysely.selectFrom('domains').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ organization_id: h.org.id, origin, created_by_key_id: body.created_by_key_id });
    expect(Number(row.livemode)).toBe(0);
  });

  it('records the live key and livemode true in the live environment', async () => {
    const body = await addDomain(freshOrigin('live'), h.org.keys.secret_live);
    expect(body).toMatchObject({ livemode: true, created_by_key_id: await keyIdOf(h.org.keys.secret_live) });
    expect(body.created_by_key_id).not.toBe(await keyIdOf(key()));
  });

  it('normalises: lower-case scheme and host, default port dropped, other ports kept', async () => {
    const cases: Array<[string, string]> = [
      ['https://App.Acme.TEST:443', 'https://app.acme.test'],
      ['HTTPS://Norm-1.Acme.Test', 'https://norm-1.acme.test'],
      ['https://norm-2.acme.test:8443', 'https://norm-2.acme.test:8443'],
      ['http://LOCALHOST:80', 'http://localhost'],
      ['http://localhost:5173', 'http://localhost:5173'],
      ['http://127.0.0.1:8000', 'http://127.0.0.1:8000'],
      ['http://[::1]:3000', 'http://[::1]:3000'],
      ['https://Bücher.acme.test', 'https://xn--bcher-kva.acme.test'],
    ];
    for (const [input, normalised] of cases) {
      const body = await addDomain(input);
      expect(body.origin, input).toBe(normalised);
    }
  });

  it('answers 200 with the same record when the origin is already allowlisted, in any spelling', async () => {
    const origin = freshOrigin();
    const first = await addDomain(origin);
    h.clock.advance(5_000);
    const again = await addDomain(origin, key(), 200);
    expect(again).toEqual(first);
    const spelled = await addDomain(origin.toUpperCase().replace('HTTPS', 'https') + ':443', key(), 200);
    expect(spelled).toEqual(first);
    // Added by another key of the same environment: still the same record, still the first key's.
    const sibling = await req('POST', '/v1/api-keys', { type: 'secret', name: 'sibling' });
    expect(sibling.statusCode, sibling.body).toBe(201);
    const siblingSecret = sibling.json().secret as string;
    expect(typeof siblingSecret).toBe('string');
    expect(await addDomain(origin, siblingSecret, 200)).toEqual(first);
    const rows = await h.db.kysely.selectFrom('domains').select('id').where('organization_id', '=', h.org.id).where('origin', '=', origin).execute();
    expect(rows).toHaveLength(1);
  });

  it('keeps environments and organisations apart: the same origin elsewhere is a new record', async () => {
    const origin = freshOrigin();
    const test = await addDomain(origin);
    const live = await addDomain(origin, h.org.keys.secret_live);
    const theirs = await addDomain(origin, other.keys.secret_test);
    expect(new Set([test.id, live.id, theirs.id]).size).toBe(3);
    expect(live.livemode).toBe(true);
  });

  it('refuses malformed origins with 400 invalid_origin, param origin, and stores nothing', async () => {
    const bad = [
      'https://app.acme.test/', // trailing slash
      'https://app.acme.test/path',
      'https://app.acme.test?x=1',
      'https://app.acme.test#frag',
      'https://user:pw@app.acme.test',
      'https://user@app.acme.test',
      'ftp://app.acme.test',
      'ws://app.acme.test',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,hi',
      'http://app.acme.test', // http is for localhost only
      'http://localhost.evil.test',
      'app.acme.test',
      '//app.acme.test',
      'https://',
      'https://app.acme.test:99999',
      'https://app.acme.test:', // an empty port (was stored as https://app.acme.test)
      'http://localhost:0', // no browser sends port 0
      'https://[::1]:',
      ' https://app.acme.test',
      'https://app .acme.test',
      'https://*.acme.test', // no wildcards
      'https://app.*.test',
      'https://a!b.acme.test',
      '',
      `https://${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.test`, // > 255 characters
    ];
    expect(bad[bad.length - 1].length).toBeGreaterThan(255);
    const before = await h.db.kysely.selectFrom('domains').select('id').execute();
    for (const origin of bad) expectError(await req('POST', '/v1/domains', { origin }), 400, 'invalid_origin', 'origin');
    const after = await h.db.kysely.selectFrom('domains').select('id').execute();
    expect(after).toHaveLength(before.length);
  });

  it('accepts an origin of exactly 255 characters', async () => {
    const prefix = 'https://';
    const suffix = '.test';
    const label = (n: number) => 'x'.repeat(n);
    // Four labels of at most 63 characters joined by dots: 255 characters in all.
    const host = [label(63), label(63), label(63), label(255 - prefix.length - suffix.length - 3 * 63 - 3)].join('.');
    const origin = prefix + host + suffix;
    expect(origin).toHaveLength(255);
    expect((await addDomain(origin)).origin).toBe(origin);
  });

  it('requires origin and a secret key', async () => {
    expectError(await req('POST', '/v1/domains', {}), 400, 'parameter_missing', 'origin');
    expectError(await req('POST', '/v1/domains', { origin: freshOrigin() }, h.org.keys.publishable_test), 401, 'invalid_api_key');
    const anonymous = await h.app.inject({ method: 'POST', url: '/v1/domains', payload: { origin: freshOrigin() } });
    expectError(anonymous, 401, 'invalid_api_key');
  });
});

describe('the allowlist\'s size', () => {
  // Was unbounded: every origin is sent to each embed page, and any number could be added.
  it('is at most 100 origins per environment, concurrent additions included; a deletion makes room', async () => {
    const org = await h.createOrg('Many Origins');
    const k = org.keys.secret_test;
    for (let i = 0; i < 96; i++) await addDomain(freshOrigin('many'), k);
    const racing = await Promise.all(Array.from({ length: 8 }, () => req('POST', '/v1/domains', { origin: freshOrigin('race') }, k)));
    expect(racing.filter((r) => r.statusCode === 201)).toHaveLength(4);
    for (const r of racing.filter((x) => x.statusCode !== 201)) expectError(r, 400, 'domain_limit', 'origin');
    expect(racing.find((r) => r.statusCode !== 201)!.json().error.message).toMatch(/100 origins/);
    const listed = await req('GET', '/v1/domains?limit=100', undefined, k);
    expect(listed.json().data).toHaveLength(100);
    // Already there: still the existing record, not refused.
    await addDomain(listed.json().data[0].origin, k, 200);
    // The other environment has its own 100.
    await addDomain(freshOrigin('live'), org.keys.secret_live);
    expect((await req('DELETE', `/v1/domains/${listed.json().data[0].id}`, undefined, k)).statusCode).toBe(200);
    await addDomain(freshOrigin('after'), k);
  });
});

describe('GET /v1/domains', () => {
  it("lists only this environment's and this organisation's domains, newest first, paginated", async () => {
    const org = await h.createOrg('Listing Co');
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.push((await addDomain(freshOrigin('list'), org.keys.secret_test)).id);
    await addDomain(freshOrigin('list-live'), org.keys.secret_live);
    await addDomain(freshOrigin('list-other'), other.keys.secret_test);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await req('GET', `/v1/domains?limit=2${cursor ? `&starting_after=${cursor}` : ''}`, undefined, org.keys.secret_test);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json();
      expect(page.object).toBe('list');
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const d of page.data) {
        expect(d).toMatchObject({ object: 'domain', livemode: false });
        seen.push(d.id);
      }
      expect(page.has_more).toBe(page.next_cursor !== null);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...mine].reverse());

    const live = (await req('GET', '/v1/domains', undefined, org.keys.secret_live)).json();
    expect(live.data).toHaveLength(1);
    expect(live.data[0].livemode).toBe(true);
  });

  it('refuses a limit above 100 and a forged cursor', async () => {
    expectError(await req('GET', '/v1/domains?limit=101'), 400, 'parameter_invalid', 'limit');
    expectError(await req('GET', '/v1/domains?starting_after=not-a-cursor'), 400, 'invalid_cursor', 'starting_after');
  });

  it('requires a secret key', async () => {
    expectError(await req('GET', '/v1/domains', undefined, h.org.keys.publishable_live), 401, 'invalid_api_key');
  });
});

describe('DELETE /v1/domains/{id}', () => {
  it('removes the domain (200 deleted) and a second delete is 404', async () => {
    const d = await addDomain(freshOrigin('del'));
    const res = await req('DELETE', `/v1/domains/${d.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ object: 'domain', id: d.id, deleted: true });
    expect(await h.db.kysely.selectFrom('domains').select('id').where('id', '=', d.id).executeTakeFirst()).toBeUndefined();
    expectError(await req('DELETE', `/v1/domains/${d.id}`), 404, 'resource_not_found');
    const listed = (await req('GET', '/v1/domains?limit=100')).json();
    expect(listed.data.map((x: any) => x.id)).not.toContain(d.id);
    // Added again, it is a new record (201).
    const again = await addDomain(d.origin);
    expect(again.id).not.toBe(d.id);
  });

  it("answers 404 for an unknown id, another organisation's domain and the other environment's", async () => {
    expectError(await req('DELETE', '/v1/domains/01890000-0000-7000-8000-000000000000'), 404, 'resource_not_found');
    const theirs = await addDomain(freshOrigin('theirs'), other.keys.secret_test);
    expectError(await req('DELETE', `/v1/domains/${theirs.id}`), 404, 'resource_not_found');
    const live = await addDomain(freshOrigin('live'), h.org.keys.secret_live);
    expectError(await req('DELETE', `/v1/domains/${live.id}`), 404, 'resource_not_found');
    // Neither was touched.
    const left = await h.db.kysely.selectFrom('domains').select('id').where('id', 'in', [theirs.id, live.id]).execute();
    expect(left).toHaveLength(2);
  });

  it('stops new sessions for the origin, while a session minted before keeps working until it expires', async () => {
    const origin = freshOrigin('embed');
    const domain = await addDomain(origin);

    const candidate = await req('POST', '/v1/candidates', { email: `dom.${++seq}@example.com`, name: 'Ada Lovelace' });
    expect(candidate.statusCode, candidate.body).toBe(201);
    const tests = (await req('GET', '/v1/coding-tests')).json();
    const assigned = await req('POST', '/v1/coding-sessions', { candidate_id: candidate.json().id, coding_test_id: tests.data[0].id });
    expect(assigned.statusCode, assigned.body).toBe(201);
    const codingSessionId = assigned.json().id;

    const minted = await req('POST', '/v1/sessions', { origin, coding_session_id: codingSessionId });
    expect(minted.statusCode, minted.body).toBe(201);
    const token = minted.json().session_token as string;

    expect((await req('DELETE', `/v1/domains/${domain.id}`)).statusCode).toBe(200);

    expectError(await req('POST', '/v1/sessions', { origin, coding_session_id: codingSessionId }), 403, 'origin_not_allowed');

    const context = (headers: Record<string, string>) => h.app.inject({ method: 'GET', url: '/v1/session', headers: bearer(token, headers) });
    // What a browser needs for it: the preflight (Authorization is not a simple header) and the answer, granted to the origin.
    // Was a bug: CORS followed the allowlist alone, so the removal ended the session at once in every browser.
    const preflight = () => h.app.inject({
      method: 'OPTIONS', url: '/v1/session', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect((await preflight()).headers['access-control-allow-origin']).toBe(origin);
    const still = await context({ origin });
    expect(still.statusCode, still.body).toBe(200);
    expect(still.headers['access-control-allow-origin']).toBe(origin);
    expect(still.json()).toMatchObject({ subject_kind: 'coding', subject_id: codingSessionId, origin });
    // Still bound to that origin and no other.
    expectError(await context({ origin: freshOrigin('elsewhere') }), 403, 'origin_not_allowed');

    h.clock.advance(14 * 60_000);
    expect((await context({ origin })).statusCode).toBe(200);
    expect((await preflight()).headers['access-control-allow-origin']).toBe(origin);
    h.clock.advance(61_000); // past the 15-minute lifetime
    expectError(await context({ origin }), 401, 'invalid_session_token');
    // With no session left for it, the origin is granted nothing any more (once this process's decisions are forgotten,
    // as any change to the allowlist does).
    const unrelated = await addDomain(freshOrigin('unrelated'));
    expect((await req('DELETE', `/v1/domains/${unrelated.id}`)).statusCode).toBe(200);
    expect((await preflight()).headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('GET /v1/embed-config', () => {
  let org: Org;
  const testOrigins: string[] = [];
  let liveOrigin: string;

  beforeAll(async () => {
    org = await h.createOrg('Embed Co');
    for (let i = 0; i < 2; i++) testOrigins.push((await addDomain(freshOrigin('embed-test'), org.keys.secret_test)).origin);
    testOrigins.push((await addDomain('http://localhost:5173', org.keys.secret_test)).origin);
    liveOrigin = (await addDomain(freshOrigin('embed-live'), org.keys.secret_live)).origin;
    await addDomain(freshOrigin('embed-other'), other.keys.secret_test);
    expect((await req('PATCH', '/v1/branding', { company_name: 'Embed Sandbox', primary_color: '#112233' }, org.keys.secret_test)).statusCode).toBe(200);
    expect((await req('PATCH', '/v1/branding', { company_name: 'Embed Live', primary_color: '#445566' }, org.keys.secret_live)).statusCode).toBe(200);
    await h.services.organizations.addMember(org.id, { email: 'staff.member@embed.example', name: 'Staff Member' });
  });

  const embed = (query: string) => h.app.inject({ method: 'GET', url: `/v1/embed-config${query}` });

  it("answers the test environment's allowlist and branding for a test publishable key", async () => {
    const res = await embed(`?pk=${org.keys.publishable_test}`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['allowed_origins', 'branding', 'livemode', 'object']);
    expect(body).toMatchObject({ object: 'embed_config', livemode: false });
    expect([...body.allowed_origins].sort()).toEqual([...testOrigins].sort());
    const branding = (await req('GET', '/v1/branding', undefined, org.keys.secret_test)).json();
    expect(body.branding).toEqual(branding);
    expect(body.branding).toMatchObject({ company_name: 'Embed Sandbox', primary_color: '#112233', livemode: false });
  });

  it("answers the live environment's allowlist and branding for a live publishable key", async () => {
    const res = await embed(`?pk=${org.keys.publishable_live}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      object: 'embed_config', livemode: true, allowed_origins: [liveOrigin],
      branding: { company_name: 'Embed Live', primary_color: '#445566', livemode: true },
    });
  });

  it('follows the allowlist: a deleted domain disappears from it', async () => {
    const added = await addDomain(freshOrigin('embed-gone'), org.keys.secret_test);
    expect((await embed(`?pk=${org.keys.publishable_test}`)).json().allowed_origins).toContain(added.origin);
    expect((await req('DELETE', `/v1/domains/${added.id}`, undefined, org.keys.secret_test)).statusCode).toBe(200);
    expect((await embed(`?pk=${org.keys.publishable_test}`)).json().allowed_origins).not.toContain(added.origin);
  });

  it('leaks nothing else of the organisation: no key ids, key hints, members or organisation id', async () => {
    const text = (await embed(`?pk=${org.keys.publishable_test}`)).body;
    const keys = await h.db.kysely.selectFrom('api_keys').select(['id', 'key_hint']).where('organization_id', '=', org.id).execute();
    expect(keys.length).toBeGreaterThanOrEqual(4);
    for (const k of keys) {
      expect(text).not.toContain(k.id);
      expect(text).not.toContain(k.key_hint);
    }
    for (const secret of Object.values(org.keys)) expect(text).not.toContain(secret);
    expect(text).not.toContain(org.id);
    expect(text).not.toContain('staff.member@embed.example');
    expect(text).not.toContain('Staff Member');
    const domainIds = await h.db.kysely.selectFrom('domains').select('id').where('organization_id', '=', org.id).execute();
    for (const d of domainIds) expect(text).not.toContain(d.id);
  });

  it('answers 401 without pk', async () => {
    expectError(await embed(''), 401, 'invalid_api_key', 'pk');
    expectError(await embed('?pk='), 401, 'invalid_api_key');
  });

  it('refuses a secret key passed as pk, and never echoes it back', async () => {
    for (const secret of [org.keys.secret_test, org.keys.secret_live]) {
      for (const query of [`?pk=${secret}`, `?pk=${encodeURIComponent(secret)}`]) {
        const res = await embed(query);
        expectError(res, 401, 'invalid_api_key');
        const random = secret.replace(/^svc_sk_(live|test)_/, '');
        const everything = res.body + JSON.stringify(res.headers);
        expect(everything).not.toContain(secret);
        expect(everything).not.toContain(random);
        expect(everything).not.toContain(random.slice(-8));
      }
    }
  });

  it('answers 401 revoked_api_key for a revoked publishable key', async () => {
    const fresh = await h.createOrg('Revoked Embed Co');
    const pkId = await keyIdOf(fresh.keys.publishable_test);
    const revoked = await req('DELETE', `/v1/api-keys/${pkId}`, undefined, fresh.keys.secret_test);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expectError(await embed(`?pk=${fresh.keys.publishable_test}`), 401, 'revoked_api_key');
    // The live publishable key of the same organisation is unaffected.
    expect((await embed(`?pk=${fresh.keys.publishable_live}`)).statusCode).toBe(200);
  });

  it('answers 401 invalid_api_key for garbage and for well-formed unknown keys', async () => {
    const garbage = ['garbage', 'svc_pk_test_short', `svc_pk_test_${'A'.repeat(43)}`, `svc_pk_live_${'z'.repeat(43)}`, `hiring_pk_test_${'A'.repeat(43)}`];
    for (const pk of garbage) expectError(await embed(`?pk=${encodeURIComponent(pk)}`), 401, 'invalid_api_key');
  });

  it('does not accept the publishable key as a bearer credential anywhere else', async () => {
    expectError(await req('GET', '/v1/domains', undefined, org.keys.publishable_test), 401, 'invalid_api_key');
    expectError(await req('GET', '/v1/branding', undefined, org.keys.publishable_test), 401, 'invalid_api_key');
  });
});
