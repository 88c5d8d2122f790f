import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SUBJECT_KINDS, type SubjectKind } from '../../src/platform/kinds.js';
import { ORIGIN, testClient, type Method, type TestClient } from '../helpers/client.js';
import { startHarness, type Harness, type Org } from '../helpers/harness.js';
import { promptKit } from '../helpers/prompt-engineering.js';
import { psychometricKit } from '../helpers/psychometric.js';

/**
 * Every candidate operation of one subject, read from the OpenAPI document (so a route added later is covered too),
 * refuses a token of any other binding with 403 session_scope_mismatch before it does anything: a token of another
 * kind (on its own id or on the route's kind's), of another subject of the same kind, of another organisation, or of the
 * other environment.
 */

let h: Harness;
let client: TestClient;
let acme: Org;
let globex: Org;

type Subjects = Record<SubjectKind, { id: string; token: string }>;
const PATH_OF_KIND: Record<string, SubjectKind> = {
  'coding-sessions': 'coding', 'prompt-engineering-sessions': 'prompt_engineering', 'psychometric-sessions': 'psychometric', interviews: 'interview',
};
const ANY_ID = '01900000-0000-7000-8000-000000000000';

/** One open subject of each kind in this organisation and environment, each with a session token bound to it. */
async function subjects(org: Org, key: string): Promise<Subjects> {
  const tests = await client.ok('GET', '/v1/coding-tests?limit=100', { key });
  const ids: Record<SubjectKind, string> = {
    coding: (await client.assign(key, 'coding', tests.data.find((t: any) => t.duration_minutes !== null).id)).id,
    prompt_engineering: (await client.assign(key, 'prompt_engineering', (await promptKit(h).fixture(org.id)).assessmentId)).id,
    psychometric: (await client.assign(key, 'psychometric', await psychometricKit(h).testId(key, 'mini-ipip'))).id,
    interview: (await client.ok('POST', '/v1/interviews', {
      key, body: { candidate_id: await client.candidate(key), round_type: 'behavioral', difficulty: 3, role: 'Backend Engineer' },
    })).id,
  };
  await client.allowOrigin(key);
  const out = {} as Subjects;
  for (const kind of Object.keys(ids) as SubjectKind[]) {
    const minted = await client.ok('POST', '/v1/sessions', { key, body: { origin: ORIGIN, [SUBJECT_KINDS[kind].sessionField]: ids[kind] } });
    out[kind] = { id: ids[kind], token: minted.session_token };
  }
  return out;
}

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  client = testClient(h);
  acme = await h.createOrg('Acme', 100);
  globex = await h.createOrg('Globex', 100);
  await h.db.kysely.updateTable('organizations').set({ max_concurrent_interviews: 1000 }).execute();
});
afterAll(() => h.close());

describe('a session token is good for its own subject only', () => {
  it('on every candidate operation of every kind, in every pairing', async () => {
    const doc = parse((await client.call('GET', '/v1/openapi.yaml')).raw);
    const operations: Array<{ method: Method; path: string; kind: SubjectKind }> = [];
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      const kind = PATH_OF_KIND[path.split('/')[2]];
      if (!kind || !path.includes('{id}')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (JSON.stringify(op.security ?? []).includes('sessionToken')) operations.push({ method: method.toUpperCase() as Method, path, kind });
      }
    }
    // Every kind has its candidate operations, and they are all found.
    for (const kind of Object.keys(SUBJECT_KINDS)) expect(operations.some((o) => o.kind === kind), kind).toBe(true);
    expect(operations.length).toBeGreaterThanOrEqual(25);

    const mine = await subjects(acme, acme.keys.secret_test);
    const siblings = await subjects(acme, acme.keys.secret_test);
    const theirs = await subjects(globex, globex.keys.secret_test);
    const live = await subjects(acme, acme.keys.secret_live);
    const wrong: string[] = [];
    for (const op of operations) {
      for (const [tokenKind, { token }] of Object.entries(mine)) {
        for (const [label, target] of [['own', mine], ['same organisation\'s other', siblings], ['another organisation\'s', theirs], ['live', live]] as const) {
          if (tokenKind === op.kind && label === 'own') continue; // the one pairing that is allowed
          const url = op.path.replace('{id}', target[op.kind].id).replace(/\{[a-z]+\}/g, ANY_ID);
          const res = await client.call(op.method, url, { token, ...(op.method === 'GET' ? {} : { body: {} }) });
          if (res.status !== 403 || res.body?.error?.code !== 'session_scope_mismatch') {
            wrong.push(`${tokenKind} token, ${op.method} ${op.path} on the ${label} ${op.kind}: ${res.status} ${res.raw.slice(0, 120)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);

    // Nothing was started, joined or spent by any of those calls.
    for (const set of [mine, siblings, theirs, live]) {
      expect((await client.ok('GET', '/v1/session', { token: set.coding.token })).status).toBe('assigned');
      expect((await client.ok('GET', '/v1/session', { token: set.interview.token })).status).toBe('scheduled');
    }
  });
});
