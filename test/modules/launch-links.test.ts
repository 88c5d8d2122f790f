import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';
import { startServe, type ServeProcess } from '../helpers/processes.js';

const PUBLIC_URL = 'http://localhost:8080';
const DAY = 86_400_000;
const HOUR = 3_600_000;

type Res = { statusCode: number; body: string; json(): any };

function expectError(res: Res, status: number, code: string, param?: string | null) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code, res.body).toBe(code);
  if (param !== undefined) expect(res.json().error.param).toBe(param);
}

/** The launch token inside a hosted URL (it travels in the fragment). */
function tokenOf(url: string): string {
  const m = /#token=([^&]+)$/.exec(url);
  expect(m, url).not.toBeNull();
  return m![1];
}

/** Calls against one harness, with an organisation that has credits for many assignments. */
function client(h: Harness, org: Org) {
  let seq = 0;
  const key = () => org.keys.secret_test;

  const req = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = bearer(key())) =>
    h.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

  let timedTest: { id: string; duration_minutes: number } | undefined;
  async function codingTest() {
    if (!timedTest) {
      const tests = (await req('GET', '/v1/coding-tests?limit=100')).json();
      timedTest = tests.data.find((t: any) => t.duration_minutes !== null);
      expect(timedTest).toBeDefined();
    }
    return timedTest!;
  }

  /** A fresh candidate assigned the timed test: a new `assigned` coding session, created now. */
  async function assign() {
    const candidate = await req('POST', '/v1/candidates', { email: `launch.${Date.now().toString(36)}.${++seq}@example.com`, name: 'Grace Hopper' });
    expect(candidate.statusCode, candidate.body).toBe(201);
    const res = await req('POST', '/v1/coding-sessions', { candidate_id: candidate.json().id, coding_test_id: (await codingTest()).id });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; created_at: number; assignment_expires_at: number; status: string };
  }

  const mintLink = (sessionId: string, body: Record<string, unknown> = {}) => req('POST', `/v1/coding-sessions/${sessionId}/launch-link`, body);

  async function link(sessionId: string, body: Record<string, unknown> = {}) {
    const res = await mintLink(sessionId, body);
    expect(res.statusCode, res.body).toBe(201);
    const json = res.json();
    return { ...json, token: tokenOf(json.url) } as { url: string; expires_at: number; redirect_url: string | null; token: string; subject_id: string };
  }

  const exchange = (token: string) => h.app.inject({ method: 'POST', url: '/v1/launch/exchange', payload: { token } });

  const linkRows = (sessionId: string) => h.db.kysely.selectFrom('launch_links').selectAll().where('subject_id', '=', sessionId).execute();
  const launchTokens = (sessionId: string) => h.db.kysely.selectFrom('session_tokens').selectAll()
    .where('subject_id', '=', sessionId).where('source', '=', 'launch').execute();

  return { req, key, codingTest, assign, mintLink, link, exchange, linkRows, launchTokens };
}

let h: Harness;
let org: Org;
let c: ReturnType<typeof client>;
beforeAll(async () => {
  h = await startHarness({ env: { PREP_PUBLIC_URL: PUBLIC_URL } });
  org = await h.createOrg('Launch Co', 100);
  c = client(h, org);
});
afterAll(() => h.close());

const seconds = (ms: number) => Math.floor(ms / 1000);

describe('POST /v1/coding-sessions/{id}/launch-link', () => {
  it('mints a single-use hosted link (201): PREP_PUBLIC_URL/launch#token=…, default ttl one day', async () => {
    const s = await c.assign();
    const res = await c.mintLink(s.id);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'object', 'redirect_url', 'subject_id', 'subject_kind', 'url']);
    expect(body).toMatchObject({ object: 'launch_link', subject_kind: 'coding', subject_id: s.id, redirect_url: null });
    expect(body.url).toMatch(/^http:\/\/localhost:8080\/launch#token=[0-9A-Za-z]{43,}$/);
    expect(body.expires_at).toBe(seconds(h.clock.now() + 86_400 * 1000));
    const [row] = await c.linkRows(s.id);
    expect(row.expires_at).toBe(h.clock.now() + 86_400 * 1000);
    expect(row.used_at).toBeNull();
  });

  it('stores the token only hashed: no column holds it', async () => {
    const s = await c.assign();
    const a = await c.link(s.id);
    const b = await c.link(s.id);
    expect(a.token).not.toBe(b.token);
    const rows = await c.linkRows(s.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.token_hash).not.toBe(a.token);
      expect(row.token_hash).not.toBe(b.token);
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      const columns = JSON.stringify(row);
      expect(columns).not.toContain(a.token);
      expect(columns).not.toContain(b.token);
    }
    // Nor does the response of any later read: the coding session does not show it.
    const detail = await c.req('GET', `/v1/coding-sessions/${s.id}`);
    expect(detail.body).not.toContain(a.token);
  });

  it('accepts ttl_seconds 300 and 604800 and refuses 299 and 604801 with param ttl_seconds', async () => {
    const s = await c.assign();
    const now = h.clock.now();
    expect((await c.link(s.id, { ttl_seconds: 300 })).expires_at).toBe(seconds(now + 300_000));
    expect((await c.link(s.id, { ttl_seconds: 604_800 })).expires_at).toBe(seconds(now + 604_800_000));
    for (const ttl_seconds of [299, 604_801, 0, -1, 3600.5]) {
      expectError(await c.mintLink(s.id, { ttl_seconds }), 400, 'parameter_invalid', 'ttl_seconds');
    }
    expect(await c.linkRows(s.id)).toHaveLength(2);
  });

  it('caps expires_at at the end of the assignment window while assigned', async () => {
    const s = await c.assign();
    expect(s.assignment_expires_at).toBe(s.created_at + 7 * 86_400);
    h.clock.advance(6 * DAY + 23 * HOUR);
    const longest = await c.link(s.id, { ttl_seconds: 604_800 });
    expect(longest.expires_at).toBe(s.assignment_expires_at);
    const byDefault = await c.link(s.id);
    expect(byDefault.expires_at).toBe(s.assignment_expires_at);
    const short = await c.link(s.id, { ttl_seconds: 300 });
    expect(short.expires_at).toBe(seconds(h.clock.now() + 300_000));
  });

  it('refuses a link past the 7-day window with 400 assignment_expired (from the very end of it)', async () => {
    const s = await c.assign();
    h.clock.advance(7 * DAY - 1_000);
    expect((await c.mintLink(s.id)).statusCode).toBe(201);
    h.clock.advance(1_000);
    expectError(await c.mintLink(s.id), 400, 'assignment_expired');
    h.clock.advance(DAY);
    expectError(await c.mintLink(s.id), 400, 'assignment_expired');
    expect(await c.linkRows(s.id)).toHaveLength(1);
  });

  it('refuses a link for a cancelled session with 400 session_cancelled', async () => {
    const s = await c.assign();
    expect((await c.req('POST', `/v1/coding-sessions/${s.id}/cancel`)).statusCode).toBe(200);
    expectError(await c.mintLink(s.id), 400, 'session_cancelled');
    expect(await c.linkRows(s.id)).toHaveLength(0);
  });

  it("answers 404 for an unknown session and another organisation's", async () => {
    expectError(await c.mintLink('01890000-0000-7000-8000-000000000000'), 404, 'resource_not_found');
    const theirs = await client(h, h.org).assign();
    expectError(await c.mintLink(theirs.id), 404, 'resource_not_found');
    // The other environment of the same organisation does not see it either.
    const live = await c.req('POST', `/v1/coding-sessions/${(await c.assign()).id}/launch-link`, {}, bearer(org.keys.secret_live));
    expectError(live, 404, 'resource_not_found');
  });

  it('echoes a redirect_url, which the exchange returns again; a value that is not a URL is 400', async () => {
    const s = await c.assign();
    const redirect_url = 'https://app.acme.test/after?step=done';
    const l = await c.link(s.id, { redirect_url });
    expect(l.redirect_url).toBe(redirect_url);
    const [row] = await c.linkRows(s.id);
    expect(row.redirect_url).toBe(redirect_url);
    const exchanged = await c.exchange(l.token);
    expect(exchanged.statusCode, exchanged.body).toBe(201);
    expect(exchanged.json().redirect_url).toBe(redirect_url);

    for (const bad of ['not a url', '/relative/path', 'javascript:alert(1)', 'ftp://files.acme.test/x', '', 'https://']) {
      expectError(await c.mintLink(s.id, { redirect_url: bad }), 400, 'parameter_invalid', 'redirect_url');
    }
    expectError(await c.mintLink(s.id, { redirect_url: `https://app.acme.test/${'p'.repeat(2048)}` }), 400, 'parameter_invalid', 'redirect_url');
  });

  it('needs a secret key: no key, a publishable key or a session token is refused', async () => {
    const s = await c.assign();
    const l = await c.link(s.id);
    const session = (await c.exchange(l.token)).json().session_token as string;
    const url = `/v1/coding-sessions/${s.id}/launch-link`;
    expectError(await c.req('POST', url, {}, {}), 401, 'invalid_api_key');
    expectError(await c.req('POST', url, {}, bearer(org.keys.publishable_test)), 401, 'invalid_api_key');
    expectError(await c.req('POST', url, {}, bearer(session, { origin: PUBLIC_URL })), 401, 'invalid_api_key');
    expect(await c.linkRows(s.id)).toHaveLength(1);
  });
});

describe('POST /v1/launch/exchange', () => {
  it("answers 201 with a Session bound to the subject and to the service's own origin, once", async () => {
    const s = await c.assign();
    const l = await c.link(s.id);
    const res = await c.exchange(l.token);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expires_at', 'jti', 'object', 'redirect_url', 'refresh_after', 'session_token', 'subject_id', 'subject_kind']);
    expect(body).toMatchObject({ object: 'session', subject_kind: 'coding', subject_id: s.id, redirect_url: null });
    expect(body.expires_at).toBe(seconds(h.clock.now()) + 15 * 60);
    expect(body.refresh_after).toBeLessThan(body.expires_at);

    const [row] = await c.linkRows(s.id);
    expect(row.used_at).toBe(h.clock.now());
    const [token] = await c.launchTokens(s.id);
    expect(token).toMatchObject({ jti: body.jti, origin: PUBLIC_URL, subject_kind: 'coding' });

    const context = (headers: Record<string, string>) =>
      h.app.inject({ method: 'GET', url: '/v1/session', headers: bearer(body.session_token, headers) });
    const ok = await context({ origin: PUBLIC_URL });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ subject_kind: 'coding', subject_id: s.id, origin: PUBLIC_URL, status: 'assigned' });
    // The hosted page calls without an Origin header on same-origin GETs.
    expect((await context({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(200);
    // Browsers without Fetch Metadata send neither header on a same-origin GET.
    expect((await context({})).statusCode).toBe(200);
    // A cross-site request (which always has one of them) is still refused.
    expect((await context({ 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    // Any other origin, even one the organisation allowlists, is refused.
    const allowlisted = await c.req('POST', '/v1/domains', { origin: 'https://app.acme.test' });
    expect([200, 201]).toContain(allowlisted.statusCode);
    expectError(await context({ origin: 'https://app.acme.test' }), 403, 'origin_not_allowed');
    expectError(await context({ origin: 'http://localhost:8081' }), 403, 'origin_not_allowed');
    expectError(await context({ origin: 'null' }), 403, 'origin_not_allowed');

    expectError(await c.exchange(l.token), 401, 'invalid_launch_token');
    expect(await c.launchTokens(s.id)).toHaveLength(1);
  });

  it('answers 401 invalid_launch_token for unknown tokens', async () => {
    for (const token of ['x', 'A'.repeat(43), 'not a token at all', `${'0'.repeat(43)}#`]) {
      expectError(await c.exchange(token), 401, 'invalid_launch_token');
    }
    // A link's token with one character changed is unknown too.
    const l = await c.link((await c.assign()).id);
    const forged = l.token.slice(0, -1) + (l.token.endsWith('A') ? 'B' : 'A');
    expectError(await c.exchange(forged), 401, 'invalid_launch_token');
    expect((await c.linkRows(l.subject_id))[0].used_at).toBeNull();
  });

  it('refuses a missing or oversized token as a bad request', async () => {
    expectError(await h.app.inject({ method: 'POST', url: '/v1/launch/exchange', payload: {} }), 400, 'parameter_missing', 'token');
    expectError(await c.exchange(''), 400, 'parameter_invalid', 'token');
  });

  it('answers 401 invalid_launch_token once the link has expired, and does not consume it', async () => {
    const s = await c.assign();
    const a = await c.link(s.id, { ttl_seconds: 300 });
    const b = await c.link(s.id, { ttl_seconds: 300 });
    h.clock.advance(299_000);
    expect((await c.exchange(a.token)).statusCode).toBe(201);
    h.clock.advance(1_000);
    expectError(await c.exchange(b.token), 401, 'invalid_launch_token');
    h.clock.advance(HOUR);
    expectError(await c.exchange(b.token), 401, 'invalid_launch_token');
    const rows = await c.linkRows(s.id);
    expect(rows.filter((r) => r.used_at === null)).toHaveLength(1);
    expect(await c.launchTokens(s.id)).toHaveLength(1);
  });

  it('answers 400 session_cancelled for a link whose session was cancelled afterwards', async () => {
    const s = await c.assign();
    const l = await c.link(s.id);
    expect((await c.req('POST', `/v1/coding-sessions/${s.id}/cancel`)).statusCode).toBe(200);
    expectError(await c.exchange(l.token), 400, 'session_cancelled');
    expect((await c.linkRows(s.id))[0].used_at).toBeNull();
    expect(await c.launchTokens(s.id)).toHaveLength(0);
  });

  it('answers 403 module_not_enabled while the module is off, and leaves the link usable once it is on again', async () => {
    // Was a bug: the exchange spent the single-use link on a session every route then refused (module_not_enabled),
    // and a minted session was issued the same way; the candidate's link was dead when the module came back.
    const s = await c.assign();
    const l = await c.link(s.id);
    const preview = () => h.app.inject({ method: 'POST', url: '/launch/preview', payload: { token: l.token } });
    await h.services.organizationRepo.setModule(org.id, 'coding', false, h.clock.now());
    try {
      expectError(await preview(), 403, 'module_not_enabled');
      expectError(await c.exchange(l.token), 403, 'module_not_enabled');
      expectError(await c.exchange(l.token), 403, 'module_not_enabled');
      expect((await c.linkRows(s.id))[0].used_at).toBeNull();
      expect(await c.launchTokens(s.id)).toHaveLength(0);
      await c.req('POST', '/v1/domains', { origin: 'https://app.acme.test' });
      expectError(await c.req('POST', '/v1/sessions', { origin: 'https://app.acme.test', coding_session_id: s.id }), 403, 'module_not_enabled');
    } finally {
      await h.services.organizationRepo.setModule(org.id, 'coding', true, h.clock.now());
    }
    expect((await preview()).statusCode).toBe(200);
    expect((await c.exchange(l.token)).statusCode).toBe(201);
  });

  it('ends with the secret key that minted it: the link answers 401 invalid_launch_token, a session from it 401', async () => {
    // Was a bug: the links a (leaked) key minted, and the sessions exchanged from them, outlived the key's revocation.
    const sibling = (await c.req('POST', '/v1/api-keys', { type: 'secret' })).json() as { id: string; secret: string };
    const mint = async () => {
      const s = await c.assign();
      const res = await c.req('POST', `/v1/coding-sessions/${s.id}/launch-link`, {}, bearer(sibling.secret));
      expect(res.statusCode, res.body).toBe(201);
      return { s, token: tokenOf(res.json().url) };
    };
    const unused = await mint();
    const used = await mint();
    const grant = (await c.exchange(used.token)).json();
    const context = () => h.app.inject({ method: 'GET', url: '/v1/session', headers: bearer(grant.session_token, { origin: PUBLIC_URL }) });
    expect((await context()).statusCode).toBe(200);
    const other = await c.link((await c.assign()).id);

    expect((await c.req('DELETE', `/v1/api-keys/${sibling.id}`)).statusCode).toBe(200);
    expectError(await h.app.inject({ method: 'POST', url: '/launch/preview', payload: { token: unused.token } }), 401, 'invalid_launch_token');
    expectError(await c.exchange(unused.token), 401, 'invalid_launch_token');
    expect((await c.linkRows(unused.s.id))[0].used_at).toBeNull();
    expectError(await context(), 401, 'invalid_session_token');
    expect((await c.exchange(other.token)).statusCode).toBe(201); // a link of another key is untouched
  });

  it('answers 400 assignment_expired for a link whose assignment lapsed unopened', async () => {
    const s = await c.assign();
    const early = await c.link(s.id, { ttl_seconds: 604_800 });
    expect(early.expires_at).toBe(s.assignment_expires_at);
    h.clock.advance(6 * DAY + 23 * HOUR);
    const late = await c.link(s.id);
    h.clock.advance(HOUR); // exactly the end of the window: the links end with it
    expectError(await c.exchange(early.token), 400, 'assignment_expired');
    h.clock.advance(2 * HOUR);
    expectError(await c.exchange(late.token), 400, 'assignment_expired');
    expect((await c.linkRows(s.id)).every((r) => r.used_at === null)).toBe(true);
    expect(await c.launchTokens(s.id)).toHaveLength(0);
  });

  it('refuses a finished (timed_out) session: no fresh link, and an earlier link answers 400 session_already_finalized', async () => {
    const s = await c.assign();
    const test = await c.codingTest();
    const first = await c.link(s.id);
    const spare = await c.link(s.id);
    const session = (await c.exchange(first.token)).json().session_token as string;
    const started = await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${s.id}/start`, headers: bearer(session, { origin: PUBLIC_URL }) });
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().status).toBe('started');

    h.clock.advance(test.duration_minutes * 60_000 + 1_000);
    expect(await h.modules.coding.expireDue()).toBeGreaterThanOrEqual(1);
    expect((await c.req('GET', `/v1/coding-sessions/${s.id}`)).json().status).toBe('timed_out');

    expectError(await c.mintLink(s.id), 400, 'session_already_finalized');
    expectError(await c.exchange(spare.token), 400, 'session_already_finalized');
    expect(await c.launchTokens(s.id)).toHaveLength(1);
    expect((await c.linkRows(s.id)).filter((r) => r.used_at === null)).toHaveLength(1);
  });

  it('lets exactly one of 10 concurrent exchanges of one token win', async () => {
    const s = await c.assign();
    const l = await c.link(s.id);
    const results = await Promise.all(Array.from({ length: 10 }, () => c.exchange(l.token)));
    const won = results.filter((r) => r.statusCode === 201);
    expect(won, results.map((r) => r.body).join('\n')).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) expectError(r, 401, 'invalid_launch_token');
    const tokens = await c.launchTokens(s.id);
    expect(tokens).toHaveLength(1);
    expect(tokens[0].jti).toBe(won[0].json().jti);
  });
});

describe('loading the hosted URL', () => {
  it('never consumes the token: no GET exchanges it', async () => {
    const s = await c.assign();
    const l = await c.link(s.id);
    const hosted = new URL(l.url);
    expect(hosted.origin).toBe(PUBLIC_URL);
    const gets = [
      hosted.pathname, // what a browser or link scanner requests: the fragment never leaves it
      `${hosted.pathname}#token=${l.token}`,
      `${hosted.pathname}?token=${l.token}`,
      `${hosted.pathname}/${l.token}`,
      `/v1/launch/exchange?token=${l.token}`,
      `/v1/launch/${l.token}`,
    ];
    for (const url of gets) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await h.app.inject({ method, url });
        expect(res.statusCode, `${method} ${url}`).not.toBe(201);
        expect(res.body).not.toContain('session_token');
      }
    }
    expect((await c.linkRows(s.id))[0].used_at).toBeNull();
    expect(await c.launchTokens(s.id)).toHaveLength(0);
    // The token is still good for the one exchange that counts.
    expect((await c.exchange(l.token)).statusCode).toBe(201);
  });
});

describe('exchanges across two server processes sharing the database', () => {
  // A harness of its own: the servers run on the real clock, which the tests above have moved away from.
  let hp: Harness;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    hp = await startHarness({ env: { PREP_PUBLIC_URL: PUBLIC_URL } });
    servers.push(...(await Promise.all([startServe(hp.env), startServe(hp.env)])));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await hp?.close();
  });

  it('lets exactly one exchange win when they are split across both processes', async () => {
    const cp = client(hp, hp.org);
    const s = await cp.assign();
    const l = await cp.link(s.id, { ttl_seconds: 3600 });

    const results = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      const res = await fetch(`${servers[i % 2].url}/v1/launch/exchange`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: l.token }),
      });
      return { status: res.status, body: (await res.json()) as any };
    }));
    const output = () => servers.map((p) => p.output()).join('\n');
    const won = results.filter((r) => r.status === 201);
    expect(won, JSON.stringify(results) + output()).toHaveLength(1);
    expect(won[0].body).toMatchObject({ object: 'session', subject_kind: 'coding', subject_id: s.id });
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status, JSON.stringify(r.body)).toBe(401);
      expect(r.body.error.code).toBe('invalid_launch_token');
    }
    const tokens = await cp.launchTokens(s.id);
    expect(tokens).toHaveLength(1);
    expect(tokens[0].jti).toBe(won[0].body.jti);

    // The winner's session works on either process, from the service's own origin.
    for (const server of servers) {
      const res = await fetch(`${server.url}/v1/session`, { headers: { authorization: `Bearer ${won[0].body.session_token}`, origin: PUBLIC_URL } });
      expect(res.status).toBe(200);
    }
  });
});

describe('a service served over plain http on a host other than localhost', () => {
  // PREP_PUBLIC_URL may be http on any host (a staging box, a private network); the hosted room then calls from that
  // origin. Was a bug: the Origin header was read with the allowlist's rule (https except on localhost), so every
  // POST of a launch-link session (start, submit, refresh) answered 403 origin_not_allowed.
  const HTTP_URL = 'http://prep.internal:8080';
  let hh: Harness;
  beforeAll(async () => {
    hh = await startHarness({ env: { PREP_PUBLIC_URL: HTTP_URL } });
  });
  afterAll(() => hh?.close());

  it("accepts the service's own origin on a launch-link session, and still no other http origin", async () => {
    const ch = client(hh, hh.org);
    const s = await ch.assign();
    const l = await ch.link(s.id);
    const grant = (await ch.exchange(l.token)).json();
    const call = (method: 'GET' | 'POST', url: string, origin: string) =>
      hh.app.inject({ method, url, headers: bearer(grant.session_token, { origin }) });

    const started = await call('POST', `/v1/coding-sessions/${s.id}/start`, HTTP_URL);
    expect(started.statusCode, started.body).toBe(200);
    expect((await call('GET', '/v1/session', HTTP_URL)).statusCode).toBe(200);
    const refreshed = await call('POST', '/v1/sessions/refresh', HTTP_URL);
    expect(refreshed.statusCode, refreshed.body).toBe(201);

    expectError(await call('GET', '/v1/session', 'http://prep.internal:8081'), 403, 'origin_not_allowed');
    expectError(await call('GET', '/v1/session', 'http://prep.internal'), 403, 'origin_not_allowed');
    expectError(await call('GET', '/v1/session', 'https://prep.internal:8080'), 403, 'origin_not_allowed');
  });
});
