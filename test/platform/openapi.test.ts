import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ALL_ERROR_CODES } from '../../src/platform/errors.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testClient } from '../helpers/client.js';

/** The operations this build serves: the contract's 113. */
const OPERATIONS = [
  'GET /v1/health', 'GET /v1/openapi.yaml', 'GET /v1/usage',
  'GET /v1/api-keys', 'POST /v1/api-keys', 'DELETE /v1/api-keys/{id}', 'POST /v1/api-keys/{id}/rotate',
  'GET /v1/branding', 'PATCH /v1/branding', 'GET /v1/members', 'GET /v1/analytics/activity',
  'GET /v1/round-types', 'GET /v1/companies', 'GET /v1/jobs',
  'GET /v1/candidates', 'POST /v1/candidates', 'GET /v1/candidates/{id}', 'PATCH /v1/candidates/{id}', 'DELETE /v1/candidates/{id}',
  'GET /v1/.well-known/jwks.json', 'POST /v1/sessions', 'POST /v1/sessions/refresh', 'DELETE /v1/sessions/{jti}', 'GET /v1/session',
  'POST /v1/launch/exchange', 'GET /v1/domains', 'POST /v1/domains', 'DELETE /v1/domains/{id}', 'GET /v1/embed-config',
  'GET /v1/coding-tests', 'GET /v1/coding-tests/{id}', 'GET /v1/coding-sessions', 'POST /v1/coding-sessions', 'GET /v1/coding-sessions/{id}',
  'POST /v1/coding-sessions/{id}/cancel', 'POST /v1/coding-sessions/{id}/launch-link', 'POST /v1/coding-sessions/{id}/start',
  'GET /v1/coding-sessions/{id}/timer', 'POST /v1/coding-sessions/{id}/events', 'GET /v1/coding-languages',
  'POST /v1/coding-sessions/{id}/run', 'POST /v1/coding-sessions/{id}/submissions', 'GET /v1/coding-sessions/{id}/submissions',
  'GET /v1/coding-sessions/{id}/submissions/{sid}', 'POST /v1/coding-sessions/{id}/finalize', 'GET /v1/coding-sessions/{id}/report',
  'POST /v1/webhook-endpoints', 'GET /v1/webhook-endpoints', 'GET /v1/webhook-endpoints/{id}', 'PATCH /v1/webhook-endpoints/{id}',
  'DELETE /v1/webhook-endpoints/{id}', 'POST /v1/webhook-endpoints/{id}/test', 'GET /v1/webhook-endpoints/{id}/deliveries',
  'POST /v1/webhook-endpoints/{id}/rotate-secret', 'GET /v1/events', 'GET /v1/events/{id}', 'POST /v1/events/{id}/redeliver',
  'GET /v1/psychometric-tests', 'GET /v1/psychometric-tests/{id}', 'GET /v1/psychometric-sessions', 'POST /v1/psychometric-sessions',
  'GET /v1/psychometric-sessions/{id}', 'POST /v1/psychometric-sessions/{id}/cancel', 'POST /v1/psychometric-sessions/{id}/launch-link',
  'POST /v1/psychometric-sessions/{id}/start', 'POST /v1/psychometric-sessions/{id}/progress', 'POST /v1/psychometric-sessions/{id}/submit',
  'GET /v1/psychometric-sessions/{id}/report',
  // Prompt engineering (issue 15)
  'GET /v1/prompt-engineering-assessments', 'GET /v1/prompt-engineering-assessments/{id}', 'GET /v1/prompt-engineering-sessions',
  'POST /v1/prompt-engineering-sessions', 'GET /v1/prompt-engineering-sessions/{id}', 'POST /v1/prompt-engineering-sessions/{id}/cancel',
  'POST /v1/prompt-engineering-sessions/{id}/launch-link', 'GET /v1/prompt-engineering-sessions/{id}/report',
  'POST /v1/prompt-engineering-sessions/{id}/start', 'GET /v1/prompt-engineering-sessions/{id}/timer',
  'GET /v1/prompt-engineering-sessions/{id}/attempts', 'POST /v1/prompt-engineering-sessions/{id}/attempts',
  'GET /v1/prompt-engineering-sessions/{id}/attempts/{aid}', 'POST /v1/prompt-engineering-sessions/{id}/events',
  'POST /v1/prompt-engineering-sessions/{id}/finalize',
  'GET /v1/question-bank/companies', 'GET /v1/question-bank/categories', 'GET /v1/question-bank/topics',
  'GET /v1/question-bank/questions', 'GET /v1/question-bank/questions/{id}',
  'POST /v1/resumes/upload-url', 'POST /v1/resumes', 'GET /v1/resumes', 'GET /v1/resumes/{id}', 'DELETE /v1/resumes/{id}',
  'GET /v1/resumes/{id}/file', 'POST /v1/resumes/{id}/score',
  // Interviews (issue 16)
  'GET /v1/interviews', 'POST /v1/interviews', 'GET /v1/interviews/slots', 'GET /v1/interviews/{id}', 'GET /v1/interviews/{id}/report',
  'GET /v1/interviews/{id}/transcript', 'GET /v1/interviews/{id}/recording-url', 'GET /v1/interviews/{id}/questions',
  'POST /v1/interviews/{id}/questions', 'POST /v1/interviews/{id}/cancel', 'POST /v1/interviews/{id}/launch-link',
  'POST /v1/interviews/{id}/join', 'POST /v1/interviews/{id}/end', 'GET /v1/interviews/{id}/timer', 'POST /v1/interviews/{id}/pause',
  'POST /v1/interviews/{id}/code', 'POST /v1/interviews/{id}/board-upload-url', 'POST /v1/interviews/{id}/events',
];

let h: Harness;
let doc: any;
let raw: string;
let contentType: string | undefined;

beforeAll(async () => {
  h = await startHarness();
  const res = await h.app.inject({ method: 'GET', url: '/v1/openapi.yaml' });
  expect(res.statusCode).toBe(200);
  raw = res.body;
  contentType = res.headers['content-type'] as string;
  doc = parse(raw);
});
afterAll(() => h.close());

function operations(): Array<{ key: string; op: any }> {
  const out: Array<{ key: string; op: any }> = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) out.push({ key: `${method.toUpperCase()} ${path}`, op });
  }
  return out;
}

describe('GET /v1/openapi.yaml', () => {
  it('serves OpenAPI 3.1 YAML, version 1.0.0, that a real validator accepts', async () => {
    expect(contentType).toMatch(/^application\/yaml/);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1.0.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists exactly the contract\'s 113 operations', () => {
    expect(OPERATIONS).toHaveLength(113);
    expect(operations().map((o) => o.key).sort()).toEqual([...OPERATIONS].sort());
  });

  it('gives every operation a unique operationId, a tag, its security and its error responses', () => {
    const ids = new Set<string>();
    for (const { key, op } of operations()) {
      expect(op.operationId, key).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId), key).toBe(false);
      ids.add(op.operationId);
      expect(op.tags?.length, key).toBe(1);
      expect(Array.isArray(op.security), key).toBe(true);
      const statuses = Object.keys(op.responses);
      expect(statuses.some((s) => s.startsWith('2')), key).toBe(true);
      expect(statuses, key).toContain('500');
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(JSON.stringify(op.responses[status]), `${key} ${status}`).toContain('#/components/schemas/Error');
      }
      if (op.security.length > 0) expect(statuses, key).toEqual(expect.arrayContaining(['401', '429']));
      if (op.requestBody) expect(statuses, key).toEqual(expect.arrayContaining(['400']));
    }
  });

  it('publishes the closed set of error codes as an enum', () => {
    const codes = doc.components.schemas.Error.properties.error.properties.code.enum;
    expect([...codes].sort()).toEqual([...ALL_ERROR_CODES].sort());
  });

  it('lists every reason the transcript guard gives in the interview report\'s quality.reason', () => {
    const resolve = (node: any): any => (node?.$ref ? resolve(node.$ref.replace(/^#\//, '').split('/').reduce((n: any, part: string) => n[part], doc)) : node);
    const report = resolve(doc.paths['/v1/interviews/{id}/report'].get.responses['200'].content['application/json'].schema);
    const reason = resolve(resolve(report.properties.quality).properties.reason);
    expect([...reason.enum].sort()).toEqual(['empty', 'garbled', 'repetitive', 'too_short', 'unsupported_language']);
  });

  it('bounds every string and array a request can carry', () => {
    const unbounded: string[] = [];
    const walk = (schema: any, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.$ref) return walk(resolve(schema.$ref), where);
      const types = ([] as string[]).concat(schema.type ?? []);
      if (types.includes('string') && schema.maxLength === undefined && !schema.enum && schema.const === undefined) unbounded.push(where);
      if (types.includes('array') && schema.maxItems === undefined) unbounded.push(where);
      for (const [name, sub] of Object.entries<any>(schema.properties ?? {})) walk(sub, `${where}.${name}`);
      if (schema.items) walk(schema.items, `${where}[]`);
      for (const sub of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(sub, where);
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${where}.*`);
    };
    const resolve = (ref: string) => ref.replace(/^#\//, '').split('/').reduce((node: any, part) => node[part], doc);
    for (const { key, op } of operations()) {
      for (const p of op.parameters ?? []) if (p.in !== 'header') walk(p.schema, `${key} ${p.in}:${p.name}`);
      for (const [type, media] of Object.entries<any>(op.requestBody?.content ?? {})) walk(media.schema, `${key} body(${type})`);
    }
    expect(unbounded).toEqual([]);
  });
  it('lists null among the values of every field that can be null', async () => {
    // `type: [string, "null"]` with `enum: [a, b]` admits no null: a client validating with the document refused
    // an interview's `end_reason: null`, a psychometric domain's `label: null`, a requirement's `match_type: null`.
    const refusing: string[] = [];
    const walk = (node: any, where: string) => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
      const types = ([] as unknown[]).concat(node.type ?? []);
      if (types.includes('null') && Array.isArray(node.enum) && !node.enum.includes(null)) refusing.push(where);
      for (const [k, v] of Object.entries<any>(node)) walk(v, `${where}.${k}`);
    };
    walk(doc.paths, 'paths');
    walk(doc.components, 'components');
    expect(refusing).toEqual([]);

    // And a real response validates against its published schema.
    const c = testClient(h);
    const key = h.org.keys.secret_test;
    const created = await c.ok('POST', '/v1/interviews', { key, body: { candidate_id: await c.candidate(key), round_type: 'behavioral', difficulty: 3, role: 'Engineer' } });
    expect(created.end_reason).toBeNull();
    const resolve = (node: any): any => {
      if (Array.isArray(node)) return node.map(resolve);
      if (!node || typeof node !== 'object') return node;
      if (node.$ref) return resolve(node.$ref.replace(/^#\//, '').split('/').reduce((n: any, part: string) => n[part], doc));
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolve(v)]));
    };
    const schema = resolve(doc.paths['/v1/interviews/{id}'].get.responses['200'].content['application/json'].schema);
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    const fetched = await c.ok('GET', `/v1/interviews/${created.id}`, { key });
    expect(validate(fetched) ? [] : validate.errors).toEqual([]);
  });
});
