import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_ERROR_CODES, ApiError, ERROR_CODES, ERROR_TYPES } from '../../src/platform/errors.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { PREP_BODY_LIMIT_BYTES: '4096' } });
});
afterAll(() => h.close());

function expectEnvelope(body: any, code: string) {
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'doc_url', 'message', 'param', 'request_id', 'type']);
  expect(body.error.code).toBe(code);
  expect(body.error.type).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES].type);
  expect(body.error.request_id).toMatch(/^req_/);
  expect(body.error.doc_url).toContain(code);
}

describe('error envelope', () => {
  it('answers unknown routes and methods with route_not_found in the envelope', async () => {
    for (const [method, url] of [['GET', '/v1/nothing-here'], ['PUT', '/v1/candidates'], ['GET', '/']] as const) {
      const res = await h.app.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expectEnvelope(res.json(), 'route_not_found');
      expect(res.headers['request-id']).toBe(res.json().error.request_id);
      // A review's hardening: no answer is ever sniffed into something a browser would run.
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    expect((await h.app.inject({ method: 'GET', url: '/v1/health' })).headers['x-content-type-options']).toBe('nosniff');
  });

  it('names the offending field of a failed validation in param', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(h.org.keys.secret_test), payload: { email: 'not-an-email', name: 'A' } });
    expect(res.statusCode).toBe(400);
    expectEnvelope(res.json(), 'parameter_invalid');
    expect(res.json().error.param).toBe('email');

    const missing = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(h.org.keys.secret_test), payload: { email: 'a@b.co' } });
    expectEnvelope(missing.json(), 'parameter_missing');
    expect(missing.json().error.param).toBe('name');

    const unknown = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(h.org.keys.secret_test), payload: { email: 'a@b.co', name: 'A', admin: true } });
    expectEnvelope(unknown.json(), 'parameter_unknown');
    expect(unknown.json().error.param).toBe('admin');
  });

  it('refuses malformed JSON, other media types and oversized bodies in the envelope', async () => {
    const headers = bearer(h.org.keys.secret_test, { 'content-type': 'application/json' });
    const bad = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers, payload: '{"email": ' });
    expect(bad.statusCode).toBe(400);
    expectEnvelope(bad.json(), 'invalid_json');

    const text = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(h.org.keys.secret_test, { 'content-type': 'text/plain' }), payload: 'hello' });
    expect(text.statusCode).toBe(400);
    expectEnvelope(text.json(), 'unsupported_media_type');

    const huge = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers, payload: JSON.stringify({ email: 'a@b.co', name: 'x'.repeat(10_000) }) });
    expect(huge.statusCode).toBe(400);
    expectEnvelope(huge.json(), 'body_too_large');
  });

  it('takes an empty body sent as application/json as no body (many clients always send the header)', async () => {
    const headers = bearer(h.org.keys.secret_test, { 'content-type': 'application/json' });
    const candidate = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers, payload: JSON.stringify({ email: 'empty-body@example.com', name: 'E' }) });
    const interview = await h.app.inject({
      method: 'POST', url: '/v1/interviews', headers, payload: JSON.stringify({ candidate_id: candidate.json().id, round_type: 'behavioral', difficulty: 3, role: 'x' }),
    });
    expect(interview.statusCode, interview.body).toBe(201);
    const cancelled = await h.app.inject({ method: 'POST', url: `/v1/interviews/${interview.json().id}/cancel`, headers, payload: '' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const charset = bearer(h.org.keys.secret_test, { 'content-type': 'application/json; charset=utf-8' });
    expect((await h.app.inject({ method: 'POST', url: `/v1/interviews/${interview.json().id}/cancel`, headers: charset, payload: '' })).statusCode).toBe(200);
    // A body that must be there is still missing, not malformed.
    const missing = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers, payload: '' });
    expect(missing.statusCode).toBe(400);
    expectEnvelope(missing.json(), 'parameter_missing');
  });

  it('refuses prototype-poisoning bodies', async () => {
    const res = await h.app.inject({
      method: 'POST', url: '/v1/candidates', headers: bearer(h.org.keys.secret_test, { 'content-type': 'application/json' }),
      payload: '{"email":"p@b.co","name":"P","__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.type).toBe('invalid_request_error');
  });

  it('gives every response its own request id and never trusts an incoming one', async () => {
    const a = await h.app.inject({ method: 'GET', url: '/v1/health', headers: { 'request-id': 'req_attacker' } });
    const b = await h.app.inject({ method: 'GET', url: '/v1/health' });
    expect(a.headers['request-id']).toMatch(/^req_[0-9A-Za-z_-]{16}$/);
    expect(a.headers['request-id']).not.toBe('req_attacker');
    expect(a.headers['request-id']).not.toBe(b.headers['request-id']);
  });

  it('serves the error reference that doc_url points at', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/docs/errors' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    for (const code of ALL_ERROR_CODES) expect(res.body).toContain(`\`${code}\``);
  });

  it('keeps one status per code and a type from the contract table', () => {
    for (const code of ALL_ERROR_CODES) {
      const info = ERROR_CODES[code];
      expect(Object.keys(ERROR_TYPES)).toContain(info.type);
      expect(info.status).toBeGreaterThanOrEqual(400);
    }
    expect(ERROR_CODES.idempotency_key_reuse.status).toBe(409);
    expect(ERROR_CODES.insufficient_credits.status).toBe(402);
  });
});

describe('429 responses', () => {
  // The contract: a 429 carries Retry-After seconds. Resume registration with the parse queue full and a booking in a
  // full interview window answered 429 capacity_unavailable with no Retry-After at all.
  it('say when to come back, whoever throws them: a default of 1 second, or the thrower\'s own interval', () => {
    const throttled = ALL_ERROR_CODES.filter((code) => ERROR_CODES[code].status === 429);
    expect(throttled).toEqual(expect.arrayContaining(['capacity_unavailable', 'rate_limited']));
    for (const code of throttled) expect(new ApiError(code).headers, code).toEqual({ 'Retry-After': '1' });
    expect(new ApiError('capacity_unavailable', { headers: { 'Retry-After': '60' } }).headers).toEqual({ 'Retry-After': '60' });
    expect(new ApiError('parameter_invalid').headers).toEqual({});
  });
});
