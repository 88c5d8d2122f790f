import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';

// Findings of a security review, each pinned by a test.
let h: Harness;
const ORIGIN = 'https://app.acme.test';

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '1000' } });
});
afterAll(() => h.close());

const key = () => h.org.keys.secret_test;
const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: object) =>
  h.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });

let seq = 0;
async function codingSession(): Promise<string> {
  const candidate = (await inject('POST', '/v1/candidates', bearer(key()), { email: `hard${++seq}.${Date.now()}@example.com`, name: 'H' })).json();
  const test = (await inject('GET', '/v1/coding-tests', bearer(key()))).json().data.find((t: any) => t.duration_minutes !== null);
  const res = await inject('POST', '/v1/coding-sessions', bearer(key()), { candidate_id: candidate.id, coding_test_id: test.id });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function sessionToken(sessionId: string): Promise<string> {
  await inject('POST', '/v1/domains', bearer(key()), { origin: ORIGIN });
  const res = await inject('POST', '/v1/sessions', bearer(key()), { origin: ORIGIN, coding_session_id: sessionId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().session_token;
}

const refresh = (token: string) => inject('POST', '/v1/sessions/refresh', { authorization: `Bearer ${token}`, origin: ORIGIN });

describe('ids', () => {
  it('are lower-case only, so both engines treat an id alike (a key cannot revoke itself through an upper-case id)', async () => {
    const self = (await inject('GET', '/v1/api-keys', bearer(key()))).json().data.find((k: any) => key().endsWith(k.redacted_key.slice(-4)));
    const res = await inject('DELETE', `/v1/api-keys/${self.id.toUpperCase()}`, bearer(key()));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'id' });
    expect((await inject('GET', '/v1/usage', bearer(key()))).statusCode).toBe(200);
  });
});

describe('the URL itself', () => {
  it('answers a malformed URL and an overlong path parameter in the error envelope, with a request id', async () => {
    for (const url of ['/v1/candidates/%E0%A4%A', `/v1/candidates/${'a'.repeat(150)}`]) {
      const res = await inject('GET', url, bearer(key()));
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'parameter_invalid' });
      expect(res.headers['request-id']).toBe(res.json().error.request_id);
    }
  });
});

describe('proctoring meta', () => {
  it('refuses meta nested too deeply to serialise with a 400, not a 500', async () => {
    const id = await codingSession();
    const token = await sessionToken(id);
    const body = '{"events":[{"type":"blur","meta":{"a":' + '['.repeat(20_000) + ']'.repeat(20_000) + '}}]}';
    const res = await h.app.inject({
      method: 'POST', url: `/v1/coding-sessions/${id}/events`,
      headers: { authorization: `Bearer ${token}`, origin: ORIGIN, 'content-type': 'application/json' }, payload: body,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'events[0].meta' });
  });
});

describe('refreshing a session', () => {
  it('stops once the session is cancelled', async () => {
    const id = await codingSession();
    const token = await sessionToken(id);
    expect((await inject('POST', `/v1/coding-sessions/${id}/cancel`, bearer(key()))).statusCode).toBe(200);
    const res = await refresh(token);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('session_cancelled');
  });

  it('stops once the origin is no longer allowlisted', async () => {
    const id = await codingSession();
    const token = await sessionToken(id);
    const domain = (await inject('GET', '/v1/domains', bearer(key()))).json().data.find((d: any) => d.origin === ORIGIN);
    expect((await inject('DELETE', `/v1/domains/${domain.id}`, bearer(key()))).statusCode).toBe(200);
    const res = await refresh(token);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('origin_not_allowed');
  });

  it('has an absolute end: 8 hours after the first token', async () => {
    const id = await codingSession();
    let token = await sessionToken(id);
    for (let minutes = 14; minutes <= 8 * 60 + 14; minutes += 14) {
      h.clock.advance(14 * 60_000);
      const res = await refresh(token);
      if (res.statusCode !== 201) {
        expect(res.statusCode).toBe(401);
        expect(res.json().error.code).toBe('invalid_session_token');
        expect(minutes).toBeGreaterThanOrEqual(8 * 60);
        return;
      }
      token = res.json().session_token;
    }
    throw new Error('the session was refreshed past 8 hours');
  });

  it('is gated by the module of the subject', async () => {
    const id = await codingSession();
    const token = await sessionToken(id);
    await h.services.organizations.setModule(h.org.id, 'coding', false);
    try {
      for (const res of [await refresh(token), await inject('GET', '/v1/session', { authorization: `Bearer ${token}`, origin: ORIGIN })]) {
        expect(res.statusCode).toBe(403);
        expect(res.json().error.code).toBe('module_not_enabled');
      }
    } finally {
      await h.services.organizations.setModule(h.org.id, 'coding', true);
    }
  });
});

describe('launch exchange', () => {
  it('refuses an organisation whose API is off without using up the link', async () => {
    const id = await codingSession();
    const link = (await inject('POST', `/v1/coding-sessions/${id}/launch-link`, bearer(key()), {})).json();
    const token = new URL(link.url).hash.replace('#token=', '');
    await h.services.organizations.setApiEnabled(h.org.id, false);
    try {
      const res = await inject('POST', '/v1/launch/exchange', {}, { token });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('public_api_not_enabled');
    } finally {
      await h.services.organizations.setApiEnabled(h.org.id, true);
    }
    expect((await inject('POST', '/v1/launch/exchange', {}, { token })).statusCode).toBe(201);
  });
});

describe('rate limits without a credential', () => {
  it('count launch-token exchanges per client address', async () => {
    const limited = await startHarness({ env: { PREP_RATE_LIMIT: '3' } });
    try {
      const exchange = (ip: string) => limited.app.inject({ method: 'POST', url: '/v1/launch/exchange', remoteAddress: ip, payload: { token: 'x'.repeat(43) } });
      for (let i = 0; i < 3; i++) expect((await exchange('198.51.100.7')).statusCode).toBe(401);
      const res = await exchange('198.51.100.7');
      expect(res.statusCode).toBe(429);
      expect(res.json().error.code).toBe('rate_limited');
      expect((await exchange('198.51.100.8')).statusCode).toBe(401);
      expect((await limited.app.inject({ method: 'GET', url: '/v1/health', remoteAddress: '198.51.100.7' })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
