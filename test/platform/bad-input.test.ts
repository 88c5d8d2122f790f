import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit, ORIGIN } from '../helpers/judging.js';

// Each input here once answered a 5xx or damaged data (found by fuzzing every operation on both engines; the fuzz
// itself is fuzz.test.ts). They stay pinned one by one.

let h: Harness;
let kit: ReturnType<typeof judgingKit>;
const key = () => h.org.keys.secret_test;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000', PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost' } });
  kit = judgingKit(h);
});
afterAll(() => h.close());

function expectInvalid(res: { status: number; body: any; raw: string }, param: string | null, code = 'parameter_invalid') {
  expect(res.status, res.raw).toBe(400);
  expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
}

describe('numbers that are not finite, and times past year 9999', () => {
  it('refuses limit=Infinity (and its kin) on every list operation with 400 naming limit', async () => {
    const doc = parse((await h.app.inject({ method: 'GET', url: '/v1/openapi.yaml' })).body);
    const lists = Object.entries<any>(doc.paths)
      .filter(([path, item]) => item.get?.parameters?.some((p: any) => p.name === 'limit') && !path.includes('{'))
      .map(([path]) => path);
    expect(lists.length).toBeGreaterThanOrEqual(10);
    for (const path of lists) {
      for (const value of ['Infinity', '-Infinity', '1e400', 'NaN']) {
        expectInvalid(await kit.call('GET', `${path}?limit=${value}`, { key: key() }), 'limit');
      }
    }
  });

  it('refuses since/until of 1e400 or past year 9999 on the activity analytics', async () => {
    for (const query of ['since=1e400', 'until=-1e400', 'since=99999999999999999999', 'since=253402300800']) {
      const res = await kit.call('GET', `/v1/analytics/activity?${query}`, { key: key() });
      expectInvalid(res, query.split('=')[0]!);
    }
    expect((await kit.call('GET', '/v1/analytics/activity?since=253402300799', { key: key() })).status).toBe(200);
  });

  it('refuses a rotation whose grace is not a whole finite number, and saves nothing', async () => {
    const other = await kit.call('POST', '/v1/api-keys', { key: key(), body: { type: 'secret', name: 'victim' } });
    const before = await h.db.kysely.selectFrom('api_keys').select(['id', 'revoked_at', 'replaced_by', 'expires_at']).where('organization_id', '=', h.org.id).execute();
    for (const payload of ['{"grace_seconds":"Infinity"}', '{"grace_seconds":1e400}', '{"grace_seconds":null}', '{"grace_seconds":"60"}', '{"grace_seconds":1.5}']) {
      const res = await h.app.inject({
        method: 'POST', url: `/v1/api-keys/${other.body.id}/rotate`, headers: bearer(key(), { 'content-type': 'application/json' }), payload,
      });
      expect(res.statusCode, `${payload}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'grace_seconds' });
    }
    const after = await h.db.kysely.selectFrom('api_keys').select(['id', 'revoked_at', 'replaced_by', 'expires_at']).where('organization_id', '=', h.org.id).execute();
    expect(after).toEqual(before);
    expect((await kit.call('GET', '/v1/api-keys?limit=100', { key: key() })).status).toBe(200);
  });
});

describe('body fields of the wrong type are refused, never coerced', () => {
  it('answers 400 naming the field for a number, boolean or null where a string or number is due', async () => {
    expectInvalid(await kit.call('POST', '/v1/candidates', { key: key(), body: { email: 'coerce@example.com', name: 123 } }), 'name');
    expectInvalid(await kit.call('POST', '/v1/candidates', { key: key(), body: { email: 'coerce@example.com', name: true } }), 'name');
    expectInvalid(await kit.call('POST', '/v1/api-keys', { key: key(), body: { type: 'secret', name: 42 } }), 'name');
    expectInvalid(await kit.call('POST', '/v1/webhook-endpoints', { key: key(), body: { url: 'https://localhost:9/x', description: 7 } }), 'description');
    expect(await h.db.kysely.selectFrom('candidates').select('id').where('email', '=', 'coerce@example.com').execute()).toEqual([]);
  });

  it('still reads query and path values, which arrive as text, as numbers where numbers are due', async () => {
    const res = await kit.call('GET', '/v1/candidates?limit=2', { key: key() });
    expect(res.status).toBe(200);
  });
});

describe('NUL characters', () => {
  const NUL = 'Ada\u0000Lovelace';

  it('are refused with 400 naming the field in every string a request stores (on PostgreSQL they once answered 500)', async () => {
    const candidate = await kit.call('POST', '/v1/candidates', { key: key(), body: { email: 'nul@example.com', name: 'Ada' } });
    const endpoint = await kit.call('POST', '/v1/webhook-endpoints', { key: key(), body: { url: 'https://localhost:9/x' } });
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/v1/api-keys', { type: 'secret', name: NUL }, 'name'],
      ['PATCH', '/v1/branding', { company_name: NUL }, 'company_name'],
      ['POST', '/v1/candidates', { email: 'nul2@example.com', name: NUL }, 'name'],
      ['PATCH', `/v1/candidates/${candidate.body.id}`, { name: NUL }, 'name'],
      ['POST', '/v1/webhook-endpoints', { url: 'https://localhost:9/x', description: NUL }, 'description'],
      ['PATCH', `/v1/webhook-endpoints/${endpoint.body.id}`, { description: NUL }, 'description'],
    ];
    for (const [method, url, body, param] of cases) {
      const res = await h.app.inject({ method: method as 'POST', url, headers: bearer(key()), payload: body as object });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param });
    }
    expect((await kit.call('GET', `/v1/candidates/${candidate.body.id}`, { key: key() })).body.name).toBe('Ada');
    // In a query value too.
    expectInvalid(await kit.call('GET', `/v1/candidates?email=${encodeURIComponent('a\u0000@b.co')}`, { key: key() }), 'email');
  });

  it('are refused in submitted source', async () => {
    const s = await kit.session(key(), 'foundations-practice-set');
    const res = await kit.call('POST', `/v1/coding-sessions/${s.id}/submissions`, { token: s.token, body: { problem_id: s.problems[0]!.id, language: 'python', source: 'print(1)\u0000' } });
    expectInvalid(res, 'source');
    expect(await h.db.kysely.selectFrom('coding_submissions').select('id').where('session_id', '=', s.id).execute()).toEqual([]);
  });
});

// Was a bug: "a\ud800b" (valid JSON, not Unicode) was acknowledged as sent and stored as "a\ufffdb".
describe('unpaired surrogates', () => {
  it('are refused with 400 naming the field, and nothing is stored', async () => {
    const raw = (method: 'POST' | 'PATCH', url: string, json: string) => h.app.inject({ method, url, headers: { ...bearer(key()), 'content-type': 'application/json' }, payload: json });
    const created = await raw('POST', '/v1/candidates', '{"email":"surrogate@example.com","name":"a\\ud800b"}');
    expect(created.statusCode, created.body).toBe(400);
    expect(created.json().error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
    expect((await kit.call('GET', '/v1/candidates?email=surrogate@example.com', { key: key() })).body.data).toEqual([]);
    const nested = await raw('POST', '/v1/webhook-endpoints', '{"url":"https://localhost:9/x","enabled_events":["\\udc00"]}');
    expect(nested.json().error).toMatchObject({ code: 'parameter_invalid', param: 'enabled_events[0]' });
    // A well-formed pair (an emoji) is text like any other.
    expect((await raw('POST', '/v1/candidates', '{"email":"emoji@example.com","name":"Ada \\ud83d\\ude00"}')).statusCode).toBe(201);
  });
});

// Was a bug: bytes that are not UTF-8 in a JSON body were decoded to U+FFFD and stored ("A\xff\xfe" saved as "A\ufffd\ufffd").
describe('JSON bodies that are not UTF-8', () => {
  it('are refused with 400 invalid_json, and nothing is stored', async () => {
    const body = Buffer.concat([Buffer.from('{"email":"bytes@example.com","name":"A'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const res = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: { ...bearer(key()), 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    expect((await kit.call('GET', '/v1/candidates?email=bytes@example.com', { key: key() })).body.data).toEqual([]);
    // UTF-8 beyond ASCII is text like any other.
    const ok = await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: { ...bearer(key()), 'content-type': 'application/json' }, payload: Buffer.from('{"email":"bytes@example.com","name":"Zoë 😀"}') });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().name).toBe('Zoë 😀');
  });
});

// Was a bug: an operation that declares no query parameters ignored any it was sent (`GET /v1/usage?foo=1` was 200,
// `POST /v1/candidates?dry_run=true` created the candidate); operations with query parameters refused unknown ones.
describe('query parameters on operations that take none', () => {
  it('are refused with 400 parameter_unknown naming the parameter, before the operation does any work', async () => {
    const candidate = await kit.call('POST', '/v1/candidates', { key: key(), body: { email: 'query@example.com', name: 'Ada' } });
    for (const [method, url] of [['GET', '/v1/usage?foo=1'], ['GET', `/v1/candidates/${candidate.body.id}?expand=all`], ['GET', '/v1/health?foo=1']] as const) {
      const res = await kit.call(method, url, { key: key() });
      expect(res.status, `${url}: ${res.raw}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'parameter_unknown', param: url.split('?')[1]!.split('=')[0] });
    }
    const created = await kit.call('POST', '/v1/candidates?dry_run=true', { key: key(), body: { email: 'dry@example.com', name: 'Ada' } });
    expect(created.body.error, created.raw).toMatchObject({ code: 'parameter_unknown', param: 'dry_run' });
    expect((await kit.call('GET', '/v1/candidates?email=dry@example.com', { key: key() })).body.data).toEqual([]);
    expect((await kit.call('GET', '/v1/usage', { key: key() })).status).toBe(200);
  });
  // Was a bug: `?=1` was refused as "Received unknown query parameter: null." (`param: null`).
  it('a parameter with no name is refused as one', async () => {
    for (const url of ['/v1/usage?=1', '/v1/candidates?=x']) {
      const res = await kit.call('GET', url, { key: key() });
      expect(res.status, res.raw).toBe(400);
      expect(res.body.error.code).toBe('parameter_unknown');
      expect(res.body.error.message).toBe('Received a query parameter with no name.');
    }
  });
});

// Was a bug: an operation that takes no body ignored one (`POST /v1/sessions/refresh` with `null`, `123` or
// `{"extend":true}` minted a session; a cancel with `{"reason":…}` cancelled), while operations with a body refuse
// unknown fields.
describe('bodies sent to operations that take none', () => {
  it('are refused with 400 (parameter_unknown naming the field), and the operation does nothing; {} is still no body', async () => {
    const s = await kit.session(key(), 'foundations-practice-set', { start: false });
    const json = { ...bearer(key()), 'content-type': 'application/json' };
    for (const [payload, code, param] of [['{"reason":"typo"}', 'parameter_unknown', 'reason'], ['null', 'parameter_invalid', null], ['[1]', 'parameter_invalid', null], ['"x"', 'parameter_invalid', null]] as const) {
      const res = await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${s.id}/cancel`, headers: json, payload });
      expect(res.statusCode, `${payload}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code, param });
    }
    expect((await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key: key() })).body.status).toBe('assigned');
    const refresh = await kit.call('POST', '/v1/sessions/refresh', { token: s.token, body: { extend: true } });
    expect(refresh.body.error, refresh.raw).toMatchObject({ code: 'parameter_unknown', param: 'extend' });
    expect((await kit.call('POST', '/v1/sessions/refresh', { token: s.token, body: {} })).status).toBe(201);
    const cancelled = await h.app.inject({ method: 'POST', url: `/v1/coding-sessions/${s.id}/cancel`, headers: json, payload: '{}' });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
  });
});

describe('requests refused before they reach the API', () => {
  let port: number;
  beforeAll(async () => {
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as net.AddressInfo).port;
  });

  /** Sends raw bytes and reads the whole answer (the server closes the connection after a refusal). */
  const raw = (bytes: string) => new Promise<string>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => { out += d; });
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
    socket.write(bytes);
    setTimeout(() => socket.end(), 1000);
  });

  function envelopeOf(answer: string) {
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/\r\ncontent-type: application\/json/i);
    const json = JSON.parse(body!);
    expect(Object.keys(json.error).sort()).toEqual(['code', 'doc_url', 'message', 'param', 'request_id', 'type']);
    expect(head.toLowerCase()).toContain(`request-id: ${json.error.request_id.toLowerCase()}`);
    return json.error;
  }

  it('answers a malformed request line, a malformed header, a bad Content-Length and oversized headers in the envelope', async () => {
    for (const bytes of [
      'HELLO WORLD\r\n\r\n',
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
      'POST /v1/candidates HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      `GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    ]) {
      expect(envelopeOf(await raw(bytes))).toMatchObject({ type: 'invalid_request_error', code: 'malformed_request' });
    }
  });

  it('answers an HTTP/1.1 request without Host in the envelope', async () => {
    expect(envelopeOf(await raw('GET /v1/health HTTP/1.1\r\n\r\n'))).toMatchObject({ code: 'malformed_request', param: 'Host' });
  });
});

// Was a bug: the static file routes' client errors (a path they will not serve, a Range past the end) answered 500.
describe('static files (the room\'s scripts), asked for oddly', () => {
  it.each([
    ['//etc/passwd under /room', '/room//etc/passwd', {}, 404, 'route_not_found'],
    ['a 3,000-character path under /room', `/room/${'a'.repeat(3000)}`, {}, 404, 'route_not_found'],
    ['a range past the end of launch.js', '/room/launch.js', { range: 'bytes=999999999-' }, 416, 'range_not_satisfiable'],
    ['an empty suffix range of /embed.js', '/embed.js', { range: 'bytes=-0' }, 416, 'range_not_satisfiable'],
  ] as const)('%s: a 4xx in the envelope, not 500', async (_label, url, headers, status, code) => {
    const res = await h.app.inject({ method: 'GET', url, headers });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code).toBe(code);
  });
});

describe('session tokens and origins', () => {
  it('a session route still answers with a valid token (the guard is not over-eager)', async () => {
    const s = await kit.session(key(), 'foundations-practice-set');
    const res = await h.app.inject({ method: 'GET', url: `/v1/coding-sessions/${s.id}/timer`, headers: { authorization: `Bearer ${s.token}`, origin: ORIGIN } });
    expect(res.statusCode, res.body).toBe(200);
  });
});
