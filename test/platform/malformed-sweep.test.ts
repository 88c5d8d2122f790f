import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ERROR_CODES } from '../../src/platform/errors.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { testClient, ORIGIN } from '../helpers/client.js';
import { deref, validValue, type JsonSchema } from '../helpers/schema-arbitrary.js';

/**
 * A deterministic sweep of hostile and malformed input over every operation of the service's own OpenAPI document
 * (fuzz.test.ts samples at random; this sends each kind of bad input to each operation): body fields of the wrong
 * JSON type, required fields left out, unknown fields, 1 MB strings, JSON nested 10,000 deep, lone surrogates and
 * bytes that are not UTF-8, bodies that are not JSON (text, form, multipart, XML), empty JSON bodies, path ids of the
 * wrong shape, of another organisation, 10 KB long or full of SQL LIKE metacharacters, and bad query values (limits
 * out of range, garbage cursors). Each operation is called with its own credential (secret key, a session token
 * bound to a subject of its kind, the publishable key) so the input, not the credential, is what is refused.
 *
 * Every answer must be a 4xx in the contract's envelope with a code of the closed set whose type and status agree,
 * a status the operation documents, within a time limit, never a 5xx or an HTML page; where the input is invalid by
 * the operation's own schema, the refusal is the validation code naming the field.
 */

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
interface Operation { key: string; method: Method; path: string; op: any; body?: JsonSchema; bodyRequired: string[] }
interface Sent { method: Method; url: string; headers: Record<string, string>; payload?: string | Buffer; label: string }
interface Expect {
  /** A 2xx is acceptable too (the input is odd but valid). */
  mayPass?: boolean;
  /** The refusal must be this code (and, when given, name this param). */
  code?: string | string[];
  param?: string | null;
  /** The refusal must have one of these statuses. */
  status?: number[];
}

const REQUEST_MS = 15_000;
const MB_STRING = 'a'.repeat(1_000_000);

let h: Harness;
let doc: any;
let ops: Operation[];
const ajv = new Ajv({ strict: false, coerceTypes: 'array', allErrors: false });
addFormats.default(ajv);
const bodyAjv = new Ajv({ strict: false, allErrors: false });
addFormats.default(bodyAjv);

/** Credentials and fixture ids of the organisation under test, and ids that belong to another organisation. */
const own: Record<string, string> = {};
const other: Record<string, string> = {};
const tokens: Record<string, string> = {};
let secret: string;
let publishable: string;

beforeAll(async () => {
  h = await startHarness({
    env: { PREP_RATE_LIMIT: '10000000', PREP_RATE_LIMIT_MODEL: '10000000', PREP_AUTH_FAILURE_LIMIT: '10000000', PREP_WEBHOOK_ALLOW_LOOPBACK_HOSTS: 'localhost' },
  });
  doc = parse((await h.app.inject({ method: 'GET', url: '/v1/openapi.yaml' })).body);
  ops = operations();
  secret = h.org.keys.secret_test;
  publishable = h.org.keys.publishable_test;

  /** One of each subject, with a token bound to it, in an organisation. */
  async function fixtures(key: string, into: Record<string, string>, withTokens: boolean) {
    const client = testClient(h);
    const first = async (path: string) => {
      const res = await client.ok('GET', `${path}?limit=1`, { key });
      return res.data[0].id as string;
    };
    into.candidate = await client.candidate(key);
    into.coding_test = await first('/v1/coding-tests');
    into.psychometric_test = await first('/v1/psychometric-tests');
    into.prompt_assessment = await first('/v1/prompt-engineering-assessments');
    into.question = await first('/v1/question-bank/questions');
    const coding = await client.assign(key, 'coding', into.coding_test);
    into.coding_session = coding.id;
    into.problem = coding.problems[0].problem.id;
    into.psychometric_session = (await client.assign(key, 'psychometric', into.psychometric_test)).id;
    into.prompt_session = (await client.assign(key, 'prompt_engineering', into.prompt_assessment)).id;
    const assessment = await h.db.kysely.selectFrom('prompt_engineering_assessments').select('task_ids').where('id', '=', into.prompt_assessment).executeTakeFirstOrThrow();
    into.task = (JSON.parse(assessment.task_ids) as string[])[0]!;
    const interview = await client.ok('POST', '/v1/interviews', {
      key, body: { candidate_id: await client.candidate(key), round_type: 'behavioral', difficulty: 3, role: 'Backend Engineer' },
    });
    into.interview = interview.id;
    const endpoint = await client.ok('POST', '/v1/webhook-endpoints', { key, body: { url: 'https://localhost:9/prep' } });
    into.endpoint = endpoint.id;
    into.event = (await client.ok('POST', `/v1/webhook-endpoints/${endpoint.id}/test`, { key, body: {} }, 202)).id;
    into.api_key = (await client.ok('POST', '/v1/api-keys', { key, body: { type: 'secret', name: 'sweep' } })).id;
    await client.allowOrigin(key);
    into.domain = (await client.ok('GET', '/v1/domains', { key })).data[0].id;
    const session = await client.ok('POST', '/v1/sessions', { key, body: { origin: ORIGIN, interview_id: into.interview } });
    into.jti = JSON.parse(Buffer.from(String(session.session_token).split('.')[1]!, 'base64url').toString()).jti;
    const upload = await client.ok('POST', '/v1/resumes/upload-url', { key, body: { candidate_id: into.candidate, filename: 'cv.txt' } });
    into.upload_key = upload.key;
    if (!withTokens) return;
    tokens.interview = session.session_token;
    tokens.coding = await client.token(key, 'coding', into.coding_session);
    tokens.psychometric = await client.token(key, 'psychometric', into.psychometric_session);
    tokens.prompt = await client.token(key, 'prompt_engineering', into.prompt_session);
    await client.ok('POST', `/v1/coding-sessions/${into.coding_session}/start`, { token: tokens.coding }, 200);
    await client.ok('POST', `/v1/psychometric-sessions/${into.psychometric_session}/start`, { token: tokens.psychometric }, 200);
    await client.ok('POST', `/v1/prompt-engineering-sessions/${into.prompt_session}/start`, { token: tokens.prompt }, 200);
  }
  await fixtures(secret, own, true);
  await fixtures((await h.createOrg('Elsewhere')).keys.secret_test, other, false);
}, 120_000);
afterAll(() => h?.close());

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const raw = op.requestBody?.content?.['application/json']?.schema;
      const body = raw ? deref(doc, raw) as JsonSchema : undefined;
      out.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase() as Method, path, op, body, bodyRequired: body?.required ?? [] });
    }
  }
  return out;
}

/** The fixture of this organisation (or `ids`) that a path parameter names. */
function fixtureFor(path: string, name: string, ids: Record<string, string>): string {
  if (name === 'sid') return randomUUID();
  if (name === 'aid') return randomUUID();
  if (name === 'jti') return ids.jti!;
  if (name === 'problem_id') return ids.problem!;
  if (name === 'task_id') return ids.task!;
  const table: Array<[string, string]> = [
    ['/v1/api-keys/', 'api_key'], ['/v1/candidates/', 'candidate'], ['/v1/domains/', 'domain'],
    ['/v1/coding-sessions/', 'coding_session'], ['/v1/coding-tests/', 'coding_test'],
    ['/v1/psychometric-tests/', 'psychometric_test'], ['/v1/psychometric-sessions/', 'psychometric_session'],
    ['/v1/prompt-engineering-assessments/', 'prompt_assessment'], ['/v1/prompt-engineering-sessions/', 'prompt_session'],
    ['/v1/question-bank/questions/', 'question'], ['/v1/interviews/', 'interview'], ['/v1/webhook-endpoints/', 'endpoint'],
    ['/v1/events/', 'event'],
  ];
  const hit = table.find(([prefix]) => path.startsWith(prefix));
  return hit ? ids[hit[1]]! : randomUUID();
}

function pathNames(o: Operation): string[] {
  return [...o.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

function urlOf(o: Operation, values: Record<string, string>, query = ''): string {
  let url = o.path;
  for (const [name, value] of Object.entries(values)) url = url.replace(`{${name}}`, value);
  return query ? `${url}?${query}` : url;
}

/** The credential of an operation, as its document names it; a session token bound to a subject of its kind. */
function credentials(o: Operation): { headers: Record<string, string>; query: string } {
  const schemes = (o.op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s));
  if (schemes.includes('sessionToken')) {
    const kind = o.path.startsWith('/v1/interviews') ? 'interview' : o.path.startsWith('/v1/psychometric') ? 'psychometric'
      : o.path.startsWith('/v1/prompt-engineering') ? 'prompt' : o.path.startsWith('/v1/coding') ? 'coding' : 'interview';
    return { headers: { authorization: `Bearer ${tokens[kind]}`, origin: ORIGIN }, query: '' };
  }
  if (schemes.includes('publishableKey')) return { headers: { origin: ORIGIN }, query: `pk=${publishable}` };
  if (schemes.includes('secretKey')) return { headers: { authorization: `Bearer ${secret}` }, query: '' };
  return { headers: {}, query: '' };
}

/** A body the schema accepts (the same one every time), to take one field out of or add one to. */
function validBody(schema: JsonSchema): Record<string, unknown> {
  const [value] = fc.sample(validValue(schema, fc.constant(randomUUID())), { numRuns: 1, seed: 7 });
  const body = { ...(value as Record<string, unknown>) };
  // Only the required fields: optional ones are where cross-field rules live (`key` or `resume_key`, …).
  for (const k of Object.keys(body)) if (!(schema.required ?? []).includes(k)) delete body[k];
  return body;
}

/** Values of every JSON type, for a field that must refuse all but its own. */
const WRONG: unknown[] = [123, 1.5, true, null, 'text', [], [1], {}, { a: 1 }];

function send(s: Sent) {
  const res = h.app.inject({ method: s.method, url: s.url, headers: s.headers, ...(s.payload === undefined ? {} : { payload: s.payload }) });
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${REQUEST_MS} ms: ${s.label}`)), REQUEST_MS).unref());
  return Promise.race([res, timeout]);
}

/** Every failure found, so one run reports them all. */
const failures: string[] = [];
beforeEach(() => { failures.length = 0; });

async function check(o: Operation, s: Sent, expectation: Expect = {}) {
  const res = await send(s);
  const where = `${o.key} [${s.label}] -> ${res.statusCode} ${res.body.slice(0, 240)}`;
  const fail = (why: string) => { failures.push(`${why}: ${where}`); };
  const status = res.statusCode;
  const contentType = String(res.headers['content-type'] ?? '');
  if (status >= 500) return fail('5xx');
  if (status < 400) {
    if (!expectation.mayPass) fail('accepted');
    return;
  }
  if (!Object.keys(o.op.responses ?? {}).includes(String(status))) fail('status not documented for the operation');
  if (!contentType.startsWith('application/json')) return fail('not JSON');
  let json: any;
  try { json = JSON.parse(res.body); } catch { return fail('unparseable JSON'); }
  if (Object.keys(json).join() !== 'error') return fail('not the envelope');
  if (Object.keys(json.error).sort().join() !== 'code,doc_url,message,param,request_id,type') return fail('envelope fields');
  const info = (ERROR_CODES as Record<string, { type: string; status: number }>)[json.error.code];
  if (!info) return fail('code outside the closed set');
  if (info.type !== json.error.type || info.status !== status) fail('code, type and status disagree');
  if (typeof json.error.request_id !== 'string' || json.error.request_id !== res.headers['request-id']) fail('request_id');
  if (expectation.status && !expectation.status.includes(status)) fail(`expected status ${expectation.status.join(' or ')}`);
  if (expectation.code !== undefined) {
    const codes = [expectation.code].flat();
    if (!codes.includes(json.error.code)) fail(`expected ${codes.join(' or ')}`);
    else if (expectation.param !== undefined && !namesField(json.error.param, expectation.param)) fail(`expected param ${expectation.param}`);
  }
}

/** `param` names `field` itself or a part of it (`events[0]`, `questions[1].prompt`). */
function namesField(param: unknown, field: string | null): boolean {
  if (field === null || typeof param !== 'string') return param === field;
  return param === field || param.startsWith(`${field}[`) || param.startsWith(`${field}.`);
}

/** JSON text of objects nested `depth` deep around a number (built as text: JSON.stringify would exhaust the stack). */
const nestedObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

function bodyRequest(o: Operation, payload: string | Buffer | undefined, label: string, contentType: string | null = 'application/json', ids?: Record<string, string>): Sent {
  const cred = credentials(o);
  const values = Object.fromEntries(pathNames(o).map((n) => [n, ids?.[n] ?? fixtureFor(o.path, n, own)]));
  const headers = { ...cred.headers, ...(contentType === null ? {} : { 'content-type': contentType }) };
  return { method: o.method, url: urlOf(o, values, cred.query), headers, payload, label };
}

/** Path values that leave each operation harmless when it would succeed: random ids for deletions and state changes. */
function harmlessIds(o: Operation): Record<string, string> {
  return Object.fromEntries(pathNames(o).map((n) => [n, o.path.startsWith('/v1/events/') ? `whevt_${'0'.repeat(26)}` : randomUUID()]));
}

function stringFields(schema: JsonSchema): string[] {
  return Object.entries(schema.properties ?? {}).filter(([, s]) => s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))).map(([k]) => k);
}

describe('hostile and malformed input over every operation of the OpenAPI document', () => {
  it('the document lists the contract\'s 113 operations', () => {
    expect(ops.length).toBe(113);
  });

  it('refuses body fields of the wrong JSON type, missing required fields and unknown fields, naming the field', async () => {
    for (const o of ops.filter((x) => x.body)) {
      const base = validBody(o.body!);
      for (const [field, fieldSchema] of Object.entries(o.body!.properties ?? {})) {
        const validate = bodyAjv.compile(fieldSchema);
        for (const wrong of WRONG.filter((v) => !validate(structuredClone(v)))) {
          await check(o, bodyRequest(o, JSON.stringify({ ...base, [field]: wrong }), `${field}=${JSON.stringify(wrong)}`),
            { code: 'parameter_invalid', param: field });
        }
      }
      for (const field of o.bodyRequired) {
        const { [field]: _gone, ...rest } = base;
        await check(o, bodyRequest(o, JSON.stringify(rest), `without ${field}`), { code: 'parameter_missing', param: field });
      }
      await check(o, bodyRequest(o, JSON.stringify({ ...base, unknown_field: 'x' }), 'unknown field'), { code: 'parameter_unknown', param: 'unknown_field' });
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses 1 MB strings, JSON nested 10,000 deep, lone surrogates and bytes that are not UTF-8', async () => {
    const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    for (const o of ops.filter((x) => x.body)) {
      const base = validBody(o.body!);
      for (const field of stringFields(o.body!)) {
        await check(o, bodyRequest(o, JSON.stringify({ ...base, [field]: MB_STRING }), `${field}: 1 MB`), { code: 'parameter_invalid', param: field });
        const surrogate = JSON.stringify({ ...base, [field]: 'SURROGATE' }).replace('"SURROGATE"', '"a\\ud800b"');
        await check(o, bodyRequest(o, surrogate, `${field}: lone surrogate`), { code: 'parameter_invalid', param: field });
        const text = JSON.stringify({ ...base, [field]: 'BYTES' });
        const at = Buffer.from(text).indexOf('BYTES');
        const bytes = Buffer.concat([Buffer.from(text).subarray(0, at), Buffer.from([0x41, 0xff, 0xfe, 0xc3]), Buffer.from(text).subarray(at + 5)]);
        await check(o, bodyRequest(o, bytes, `${field}: not UTF-8`), { code: ['invalid_json', 'parameter_invalid'] });
      }
      const first = Object.keys(o.body!.properties ?? {})[0];
      if (first) {
        const text = JSON.stringify({ ...base, [first]: 'DEEP' }).replace('"DEEP"', nestedObject(10_000));
        await check(o, bodyRequest(o, text, `${first}: nested 10,000 deep`), { code: 'parameter_invalid', param: first });
      }
      await check(o, bodyRequest(o, deep(10_000), 'body nested 10,000 deep'));
      await check(o, bodyRequest(o, deep(100_000), 'body nested 100,000 deep'));
      await check(o, bodyRequest(o, JSON.stringify({ ...base, pad: 'p'.repeat(2_000_000) }), 'a 2 MB body'), { code: 'body_too_large' });
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses free-form fields nested 10,000 deep (proctoring meta)', async () => {
    for (const o of ops.filter((x) => x.path.endsWith('/events') && x.method === 'POST')) {
      for (const depth of [1_000, 10_000, 100_000]) {
        const payload = `{"events":[{"type":"blur","meta":${nestedObject(depth)}}]}`;
        // The interview's events keep no meta (the contract: stored only by the assessment endpoints).
        await check(o, bodyRequest(o, payload, `meta nested ${depth} deep`), { mayPass: depth <= 1_000 || o.path.startsWith('/v1/interviews/') });
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses bodies that are not JSON, JSON that is not an object, and empty JSON bodies without their required fields', async () => {
    for (const o of ops.filter((x) => x.method !== 'GET')) {
      const ids = o.body ? undefined : harmlessIds(o);
      // A token is checked against the path's subject before the body is read: a random id is refused for that first.
      const scope = ids && credentials(o).headers.origin && pathNames(o).length ? ['session_scope_mismatch'] : [];
      const base = o.body ? validBody(o.body) : { unknown_field: 'x' };
      const json = JSON.stringify(base);
      const form = new URLSearchParams(Object.entries(base).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString();
      const multipart = `--XyZ\r\nContent-Disposition: form-data; name="body"\r\n\r\n${json}\r\n--XyZ--\r\n`;
      const notJson: Array<[string | null, string]> = [
        ['text/plain', json], ['application/x-www-form-urlencoded', form], ['multipart/form-data; boundary=XyZ', multipart],
        ['application/xml', '<body/>'], ['text/html', '<html></html>'], ['application/octet-stream', json], [null, json],
      ];
      for (const [type, payload] of notJson) {
        await check(o, bodyRequest(o, payload, `Content-Type ${type}`, type, ids), { code: ['unsupported_media_type', ...scope] });
      }
      for (const payload of ['{"a":', '{"a":1}}', "{'a':1}", '{"a":1,}', 'nul', '\u00ef\u00bb\u00bf{}']) {
        await check(o, bodyRequest(o, payload, `malformed JSON ${payload}`, 'application/json', ids), { code: ['invalid_json', ...scope] });
      }
      for (const payload of ['null', '[]', '"text"', '123', 'true']) {
        await check(o, bodyRequest(o, payload, `JSON ${payload}`, 'application/json', ids), { code: ['parameter_invalid', ...scope] });
      }
      await check(o, bodyRequest(o, '{"__proto__":{"admin":true}}', '__proto__', 'application/json', ids));
      const required = o.bodyRequired;
      await check(o, bodyRequest(o, '', 'empty JSON body', 'application/json', ids),
        required.length ? { code: 'parameter_missing', param: required[0] } : { mayPass: true });
      if (!o.body) {
        // An operation that takes no body: one that has fields is refused, not ignored.
        await check(o, bodyRequest(o, json, 'a field on a body-less operation', 'application/json', ids), { code: ['parameter_unknown', ...scope] });
        await check(o, bodyRequest(o, '{}', '{} on a body-less operation', 'application/json', ids), { mayPass: true });
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses bad path ids: wrong shape or prefix, another organisation\'s, 10 KB long, SQL and LIKE metacharacters', async () => {
    const hostile = [
      'cand_123', 'whevt_', `whevt_${randomUUID()}`, 'x'.repeat(10_240), '%25', '_', '%5C', '%25_%5C', '%25%25', '*',
      "'%20OR%201%3D1%20--", '1%3B%20DROP%20TABLE%20candidates', '00000000-0000-0000-0000-00000000000%25',
      '%FF%FE', '%ED%A0%80', '%C0%AF', '%00', '..', '.%2E%2F', '-1', '0', '1e400', 'null', 'undefined',
      `${randomUUID()}%20`, `%20${randomUUID()}`, `${randomUUID()}x`, randomUUID().toUpperCase(),
    ];
    for (const o of ops.filter((x) => pathNames(x).length > 0)) {
      const cred = credentials(o);
      for (const name of pathNames(o)) {
        const fixed = Object.fromEntries(pathNames(o).map((n) => [n, fixtureFor(o.path, n, own)]));
        const values = [...hostile, fixtureFor(o.path, name, other)];
        for (const value of values) {
          const label = value === values.at(-1) ? `${name}: another organisation's` : `${name}=${value.slice(0, 40)}`;
          const s: Sent = { method: o.method, url: urlOf(o, { ...fixed, [name]: value }, cred.query), headers: { ...cred.headers }, label };
          if (o.body) { s.headers['content-type'] = 'application/json'; s.payload = JSON.stringify(validBody(o.body)); }
          // Catalogue entries (tests, assessments, bank questions) are shared: the other organisation's is ours too.
          const shared = value === values.at(-1) && value === fixed[name];
          // Another organisation's resource is 404, not 403 (contract, Authentication 6); a token's subject is its own.
          const foreign = value === values.at(-1) && !shared && !credentials(o).headers.origin;
          // A PATCH sent no field is refused for that (Give email, name, or both) before the id is looked up.
          const emptyPatch = o.body !== undefined && Object.keys(validBody(o.body)).length === 0 && o.method === 'PATCH';
          await check(o, s, value.length > 100 ? { code: 'parameter_invalid' } : foreign ? { status: emptyPatch ? [400, 404] : [404] } : { mayPass: shared });
        }
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses bad query values: limits out of range, garbage cursors, unknown and repeated parameters', async () => {
    const hostile = [
      '-1', '0', '101', '1e10', '99999999999999999999', '1.5', 'abc', '', '%25', '_', '%5C', '%25_%5C', "'%20OR%20'1'%3D'1",
      'x'.repeat(10_240), '%FF', '%ED%A0%80', '%00', 'null', 'true', '[]',
    ];
    const cursors = ['garbage', 'eyJpZCI6IjEifQ', 'eyJvZmZzZXQiOi0xfQ.AAAA', '%25', randomUUID().slice(0, 35), `${'A'.repeat(150)}`, '..', '0'];
    for (const o of ops) {
      const cred = credentials(o);
      const values = Object.fromEntries(pathNames(o).map((n) => [n, fixtureFor(o.path, n, own)]));
      const q = (extra: string) => [cred.query, extra].filter(Boolean).join('&');
      const get = (query: string, label: string): Sent => ({ method: o.method, url: urlOf(o, values, q(query)), headers: { ...cred.headers }, label });
      const required = (o.op.parameters ?? []).filter((p: any) => p.in === 'query' && p.required).map((p: any) => `${p.name}=${fixtureFor('', p.name, own)}`);
      // A token is checked against the path's subject first: random ids (for writes) are refused for that.
      const scope = credentials(o).headers.origin && pathNames(o).length ? ['session_scope_mismatch'] : [];
      // Writes are sent to random ids, so that one whose query is wrongly accepted does no work on a fixture.
      if (o.method !== 'GET') {
        const s: Sent = { method: o.method, url: urlOf(o, harmlessIds(o), q('unknown_param=1')), headers: { ...cred.headers }, label: 'unknown query parameter' };
        if (o.body) { s.headers['content-type'] = 'application/json'; s.payload = JSON.stringify(validBody(o.body)); }
        await check(o, s, { code: ['parameter_unknown', ...scope], param: scope.length ? undefined : 'unknown_param' });
        continue;
      }
      await check(o, get([...required, 'unknown_param=1'].join('&'), 'unknown query parameter'), { code: 'parameter_unknown', param: 'unknown_param' });
      for (const p of (o.op.parameters ?? []).filter((x: any) => x.in === 'query')) {
        const validate = ajv.compile({ type: 'object', properties: { v: p.schema } });
        // A string cursor is opaque: garbage is malformed whatever its schema says (a slot cursor is a time).
        const opaque = p.name === 'starting_after' && p.schema.type === 'string';
        const others = required.filter((r: string) => !r.startsWith(`${p.name}=`));
        for (const value of opaque ? [...hostile, ...cursors] : hostile) {
          // What the server reads: a value that does not percent-decode is taken as it stands.
          const decoded = safeDecode(value) ?? value;
          const valid = !opaque && !decoded.includes('\u0000') && decoded.isWellFormed() && validate({ v: decoded });
          // NUL is refused by the text check, which names the field as parameter_invalid, before any cursor is read.
          const expectation: Expect = valid ? { mayPass: true }
            : p.name === 'starting_after' ? { code: ['invalid_cursor', 'parameter_invalid'], param: 'starting_after' }
              : { code: 'parameter_invalid', param: p.name };
          await check(o, get([...others, `${p.name}=${value}`].join('&'), `${p.name}=${value.slice(0, 40)}`), expectation);
        }
        await check(o, get([...others, `${p.name}=1`, `${p.name}=2`].join('&'), `${p.name} twice`),
          { code: ['parameter_invalid', 'invalid_cursor'], param: p.name });
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('refuses a malformed Idempotency-Key on every operation that takes one, before any work', async () => {
    const takers = ops.filter((o) => (o.op.parameters ?? []).some((p: any) => p.in === 'header' && p.name === 'idempotency-key'));
    expect(takers.length).toBeGreaterThanOrEqual(20);
    for (const o of takers) {
      for (const idem of ['', ' ', 'k'.repeat(256), 'clé', 'a\tb', 'a\u0001b']) {
        const s = bodyRequest(o, o.body ? JSON.stringify(validBody(o.body)) : undefined, `Idempotency-Key ${JSON.stringify(idem).slice(0, 20)}`, o.body ? 'application/json' : null);
        s.headers['idempotency-key'] = idem;
        await check(o, s, { code: 'idempotency_key_invalid', param: 'Idempotency-Key' });
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  it('does not read LIKE metacharacters in an exact lookup or a filter as wildcards', async () => {
    const client = testClient(h);
    for (const email of ['%', '%@example.com', '_%', '\\%']) {
      const res = await client.call('GET', `/v1/candidates?email=${encodeURIComponent(email)}`, { key: secret });
      expect(res.status, res.raw).toBe(200);
      expect(res.body.data, email).toEqual([]);
    }
    for (const param of ['company', 'category', 'topic']) {
      for (const value of ['%', '_', '%%', '\\']) {
        const res = await client.call('GET', `/v1/question-bank/questions?${param}=${encodeURIComponent(value)}`, { key: secret });
        expect(res.status < 500, res.raw).toBe(true);
        if (res.status === 200) expect(res.body.data, `${param}=${value}`).toEqual([]);
      }
    }
  });
});

function safeDecode(value: string): string | null {
  try { return decodeURIComponent(value); } catch { return null; }
}
