import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ERROR_CODES } from '../../src/platform/errors.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit, ORIGIN } from '../helpers/judging.js';
import { bodyValue, deref, HOSTILE_STRINGS, textValue, type JsonSchema } from '../helpers/schema-arbitrary.js';

/**
 * Every operation of the OpenAPI document, driven by requests derived from its own schemas: valid values, values of
 * the wrong type, non-finite numbers, NUL and other control characters, huge and deeply nested values. Whatever
 * comes in, the service answers with a status the document lists for that operation, never a 5xx, every error in
 * the envelope with the status of its type, and every 2xx body in its documented schema.
 */

const RUNS = Number(process.env.PREP_FUZZ_RUNS ?? 100);

/** The contract's type table: the statuses each error type may answer with. */
const TYPE_STATUSES: Record<string, (status: number) => boolean> = {
  authentication_error: (s) => s === 401,
  permission_error: (s) => s === 403,
  invalid_request_error: (s) => s === 400,
  not_found_error: (s) => s === 404,
  rate_limit_error: (s) => s === 429,
  idempotency_error: (s) => s === 400 || s === 409,
  insufficient_credits: (s) => s === 402,
  capacity_error: (s) => s === 429,
  api_error: (s) => s >= 500 && s <= 599,
};
/** The one status the contract's endpoint tables set beside the type table (resume registration). */
const CONTRACT_EXCEPTIONS: Record<string, number> = { unprocessable_resume: 422 };
/** 5xx answers that are the documented condition of an operation, not a fault. */
const DOCUMENTED_5XX: Record<string, string[]> = {
  'POST /v1/coding-sessions/{id}/run': ['execution_unavailable'],
  'POST /v1/coding-sessions/{id}/submissions': ['execution_unavailable'],
  'GET /v1/health': ['service_unavailable'],
};

let h: Harness;
let doc: any;
let ids: Record<string, string>;
let token: string;
const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
addFormats.default(ajv);

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '10000000', PREP_SANDBOX_QUEUE_WAIT_MS: '100', PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost' } });
  doc = parse((await h.app.inject({ method: 'GET', url: '/v1/openapi.yaml' })).body);
  const kit = judgingKit(h);
  const key = h.org.keys.secret_test;
  const session = await kit.session(key, 'foundations-practice-set');
  token = session.token;
  const endpoint = await kit.call('POST', '/v1/webhook-endpoints', { key, body: { url: 'https://localhost:9/prep' } });
  expect(endpoint.status, endpoint.raw).toBe(201);
  const event = await kit.call('POST', `/v1/webhook-endpoints/${endpoint.body.id}/test`, { key, body: {} });
  const other = await kit.call('POST', '/v1/api-keys', { key, body: { type: 'secret', name: 'other' } });
  const domains = await kit.call('GET', '/v1/domains', { key });
  const candidates = await kit.call('GET', '/v1/candidates', { key });
  ids = {
    session: session.id, problem: session.problems[0]!.id, endpoint: endpoint.body.id, event: event.body.id,
    key: other.body.id, domain: domains.body.data[0].id, candidate: candidates.body.data[0].id,
  };
  expect(Object.values(ids).every((id) => typeof id === 'string'), JSON.stringify(ids)).toBe(true);
}, 120_000);
afterAll(() => h.close());

/** Percent-encodes every byte of the UTF-8 form (a lone surrogate is sent as U+FFFD, as a client would send it). */
const encode = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

interface Operation { key: string; method: string; path: string; op: any }

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) out.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op });
  }
  // Reads first, then writes, then deletions: a deleted fixture would only narrow what later operations reach.
  const rank = (m: string) => ({ GET: 0, POST: 1, PATCH: 1, DELETE: 2 } as Record<string, number>)[m] ?? 1;
  return out.sort((a, b) => rank(a.method) - rank(b.method));
}

function idPool(): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom(...Object.values(ids)), fc.uuid().map((u) => u.toLowerCase()));
}

function credentials(op: any): Record<string, string> {
  const schemes = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
  if (schemes.includes('sessionToken')) return { authorization: `Bearer ${token}`, origin: ORIGIN };
  if (schemes.includes('publishableKey')) return { authorization: `Bearer ${h.org.keys.publishable_test}`, origin: ORIGIN };
  if (schemes.includes('secretKey')) return bearer(h.org.keys.secret_test);
  return {};
}

/** What one request may send: path values, query values and a body (as a value, or raw JSON text). */
function requestArbitrary(o: Operation) {
  const params: any[] = o.op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const bodySchema: JsonSchema | undefined = o.op.requestBody?.content?.['application/json']?.schema;
  const pool = idPool();
  const numericFields = Object.entries(bodySchema?.properties ?? {}).filter(([, s]) => s.type === 'integer' || s.type === 'number').map(([k]) => k);
  return fc.record({
    path: fc.tuple(...pathParams.map((p) => fc.oneof({ weight: 3, arbitrary: textValue(p.schema, pool) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) }))),
    query: fc.record(Object.fromEntries(queryParams.map((p) => [p.name, textValue(p.schema, pool)])), { requiredKeys: [] }),
    body: bodySchema
      ? fc.oneof(
          { weight: 5, arbitrary: bodyValue(bodySchema, pool).map((v) => JSON.stringify(v)) },
          // JSON numbers that parse to ±Infinity.
          { weight: 1, arbitrary: fc.constantFrom('1e400', ...numericFields.flatMap((f) => [`{"${f}": 1e400}`, `{"${f}": -1e400}`])) },
        )
      : fc.constant(undefined),
  });
}

function checkResponse(o: Operation, res: { statusCode: number; body: string; headers: Record<string, unknown> }, sent: string) {
  const where = `${o.key} ${sent} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  const status = res.statusCode;
  const documented = Object.keys(o.op.responses ?? {});
  expect(documented, `undocumented status: ${where}`).toContain(String(status));
  const json = String(res.headers['content-type'] ?? '').startsWith('application/json') ? JSON.parse(res.body) : null;
  if (status >= 400) {
    expect(json, `not JSON: ${where}`).not.toBeNull();
    expect(Object.keys(json), where).toEqual(['error']);
    expect(Object.keys(json.error).sort(), where).toEqual(['code', 'doc_url', 'message', 'param', 'request_id', 'type']);
    const info = ERROR_CODES[json.error.code as keyof typeof ERROR_CODES];
    expect(info, `unknown code: ${where}`).toBeDefined();
    expect(json.error.type, where).toBe(info.type);
    expect(status, where).toBe(info.status);
    expect(CONTRACT_EXCEPTIONS[json.error.code] === status || TYPE_STATUSES[info.type]!(status), `status disagrees with type: ${where}`).toBe(true);
    if (status >= 500) expect(DOCUMENTED_5XX[o.key] ?? [], `5xx: ${where}`).toContain(json.error.code);
    return;
  }
  const schema = o.op.responses[String(status)]?.content?.['application/json']?.schema;
  if (schema && json !== null) {
    const validate = ajv.compile(deref(doc, schema));
    expect(validate(json), `2xx body breaks its schema (${ajv.errorsText(validate.errors)}): ${where}`).toBe(true);
  }
}

describe('every operation of the OpenAPI document, fuzzed', () => {
  it('covers the whole document', () => {
    expect(operations().length).toBeGreaterThanOrEqual(68);
  });

  it('never answers 5xx, an error outside the envelope, a status at odds with its type or its document, or a 2xx off its schema', async () => {
    for (const o of operations()) {
      await fc.assert(fc.asyncProperty(requestArbitrary(o), async (req) => {
        let url = o.path;
        const pathNames = (o.op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        pathNames.forEach((name: string, i: number) => { url = url.replace(`{${name}}`, encode(req.path[i] as string)); });
        const qs = Object.entries(req.query).map(([k, v]) => `${encode(k)}=${encode(v as string)}`).join('&');
        if (qs) url += `?${qs}`;
        const headers: Record<string, string> = { ...credentials(o.op) };
        if (req.body !== undefined) headers['content-type'] = 'application/json';
        const res = await h.app.inject({ method: o.method as 'GET', url, headers, ...(req.body !== undefined ? { payload: req.body } : {}) });
        checkResponse(o, res as never, `${url} ${String(req.body ?? '').slice(0, 200)}`);
      }), { numRuns: RUNS, endOnFailure: true });
    }
  }, 600_000);
});
