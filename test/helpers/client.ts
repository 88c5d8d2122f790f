import type { Harness } from './harness.js';

// Plain TypeScript with nothing but erasable types and no imports at run time: the benches (plain Node, which strips
// the types) use this same client.

/** The origin the tests allow and send with session tokens. */
export const ORIGIN = 'https://room.acme.test';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'PUT' | 'HEAD';

export interface CallOptions {
  /** A secret or publishable key, sent as the bearer. */
  key?: string;
  /** A session token, sent as the bearer with `origin` (ORIGIN unless given). */
  token?: string;
  /** The Origin header; `null` sends none, even with a token. */
  origin?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export interface Reply {
  status: number;
  /** The parsed JSON body (undefined when the body is not JSON). */
  body: any;
  raw: string;
  headers: Record<string, string | string[] | number | undefined>;
}

/** The assessment kinds the tests assign: where each is assigned, the field naming its test, the one binding a token. */
const ASSIGN = {
  coding: { path: '/v1/coding-sessions', testField: 'coding_test_id', sessionField: 'coding_session_id' },
  psychometric: { path: '/v1/psychometric-sessions', testField: 'psychometric_test_id', sessionField: 'psychometric_session_id' },
  prompt_engineering: { path: '/v1/prompt-engineering-sessions', testField: 'prompt_engineering_assessment_id', sessionField: 'prompt_engineering_session_id' },
} as const;

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
export type AssignableKind = keyof typeof ASSIGN;

export interface ClientOptions {
  /** Call a listening server over real HTTP at this base URL (e.g. from `app.listen`) instead of in-process; `remoteAddress` is then ignored. */
  baseUrl?: string;
}

function parse(raw: string): unknown {
  try {
    return raw === '' ? undefined : JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/**
 * The one test client: calls through the app in-process (or over HTTP, given a `baseUrl`), and the fixtures every
 * suite needs (a candidate, an allowed origin, an assignment of any kind, a session token bound to it).
 */
export function testClient(h: Pick<Harness, 'app'>, options: ClientOptions = {}) {
  let seq = 0;
  const client = {
    async call(method: Method, url: string, opts: CallOptions = {}): Promise<Reply> {
      const headers: Record<string, string> = { ...(opts.key ? bearer(opts.key) : {}) };
      if (opts.token) Object.assign(headers, bearer(opts.token), opts.origin === null ? {} : { origin: opts.origin ?? ORIGIN });
      else if (opts.origin) headers.origin = opts.origin;
      Object.assign(headers, opts.headers);
      if (options.baseUrl !== undefined) {
        if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
        const res = await fetch(options.baseUrl + url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
        const raw = await res.text();
        return { status: res.status, body: parse(raw), raw, headers: Object.fromEntries(res.headers) };
      }
      const res = await h.app.inject({
        method, url, headers, ...(opts.remoteAddress ? { remoteAddress: opts.remoteAddress } : {}),
        ...(opts.body === undefined ? {} : { payload: opts.body as object }),
      });
      return { status: res.statusCode, body: parse(res.body), raw: res.body, headers: res.headers };
    },

    /** Like `call`, and expects `status`: the body of a call that must succeed. */
    async ok(method: Method, url: string, opts: CallOptions = {}, status = method === 'POST' ? 201 : 200): Promise<any> {
      const res = await client.call(method, url, opts);
      if (res.status !== status) throw new Error(`${method} ${url}: expected ${status}, got ${res.status}: ${res.raw}`);
      return res.body;
    },

    async candidate(key: string, fields: { email?: string; name?: string } = {}): Promise<string> {
      const body = await client.ok('POST', '/v1/candidates', {
        key, body: { email: fields.email ?? `candidate.${Date.now().toString(36)}.${++seq}@example.com`, name: fields.name ?? 'Ada Lovelace' },
      });
      return body.id as string;
    },

    async allowOrigin(key: string, origin = ORIGIN): Promise<void> {
      const res = await client.call('POST', '/v1/domains', { key, body: { origin } });
      if (res.status >= 300 && res.status !== 409) throw new Error(`POST /v1/domains: ${res.status}: ${res.raw}`); // already allowed is fine
    },

    /** Assigns a test of `kind` to a candidate (a new one unless given): the assignment's body. */
    async assign(key: string, kind: AssignableKind, testId: string, candidateId?: string, extra: Record<string, unknown> = {}): Promise<any> {
      const { path, testField } = ASSIGN[kind];
      return client.ok('POST', path, { key, body: { candidate_id: candidateId ?? (await client.candidate(key)), [testField]: testId, ...extra } });
    },

    /** A session token bound to one assessment session (its origin allowed first). */
    async token(key: string, kind: AssignableKind, sessionId: string, origin = ORIGIN): Promise<string> {
      await client.allowOrigin(key, origin);
      const body = await client.ok('POST', '/v1/sessions', { key, body: { origin, [ASSIGN[kind].sessionField]: sessionId } });
      return body.session_token as string;
    },
  };
  return client;
}

export type TestClient = ReturnType<typeof testClient>;
