import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';

let h: Harness;
let org: Org;
/** Candidate ids of `org`'s sandbox, oldest first. */
const candidateIds: string[] = [];
let seq = 0;

beforeAll(async () => {
  h = await startHarness();
  org = await h.createOrg('Paging Co');
  for (let i = 0; i < 45; i++) candidateIds.push(await createCandidate());
  // Records of another environment and another organisation, which no page of `org`'s sandbox may show.
  await createCandidate(org.keys.secret_live);
  await createCandidate(h.org.keys.secret_test);
});
afterAll(() => h.close());

async function createCandidate(key = org.keys.secret_test): Promise<string> {
  const res = await h.app.inject({
    method: 'POST', url: '/v1/candidates', headers: bearer(key), payload: { email: `p${++seq}@paging.example`, name: `P ${seq}` },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function list(url: string, key = org.keys.secret_test) {
  const res = await h.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { object: string; data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null };
}

const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

/** Follows next_cursor while has_more; returns every id seen, in order, and the page sizes. */
async function walk(url: string, limit: number, key = org.keys.secret_test) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 100; guard++) {
    const page = await list(withQuery(url, `limit=${limit}${cursor ? `&starting_after=${cursor}` : ''}`), key);
    expect(Object.keys(page).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
    ids.push(...page.data.map((r) => r.id));
    sizes.push(page.data.length);
    if (!page.has_more) {
      expect(page.next_cursor).toBeNull();
      return { ids, sizes };
    }
    expect(page.next_cursor).toBe(page.data[page.data.length - 1].id);
    cursor = page.next_cursor;
  }
  throw new Error('pagination did not end');
}

const newestFirst = (ids: string[]) => [...ids].reverse();

async function expectInvalid(url: string, code: string, param: string) {
  const res = await h.app.inject({ method: 'GET', url, headers: bearer(org.keys.secret_test) });
  expect(res.statusCode, url).toBe(400);
  expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code, param });
}

const LIST_ROUTES = ['/v1/candidates', '/v1/api-keys', '/v1/members', '/v1/round-types', '/v1/companies', '/v1/jobs'];

describe('list parameters (one helper for every list)', () => {
  it.each(LIST_ROUTES)('%s refuses limit 0, 101, abc, 1.5 and a malformed cursor', async (url) => {
    for (const limit of ['0', '101', 'abc', '-1', '1.5']) await expectInvalid(`${url}?limit=${limit}`, 'parameter_invalid', 'limit');
    for (const cursor of ['not-a-uuid', '', '1234', 'x'.repeat(65)]) await expectInvalid(`${url}?starting_after=${cursor}`, 'invalid_cursor', 'starting_after');
    await expectInvalid(`${url}?limit=5&sort=asc`, 'parameter_unknown', 'sort');
  });

  it.each(LIST_ROUTES)('%s answers exactly the list envelope and takes limit 1 and 100', async (url) => {
    const one = await list(`${url}?limit=1`);
    expect(Object.keys(one).sort()).toEqual(['data', 'has_more', 'next_cursor', 'object']);
    expect(one.object).toBe('list');
    expect(one.data.length).toBeLessThanOrEqual(1);
    expect((await list(`${url}?limit=100`)).data.length).toBeLessThanOrEqual(100);
  });
});

describe('candidates list', () => {
  it('defaults to 20, newest first, with a cursor to the next page', async () => {
    const page = await list('/v1/candidates');
    expect(page.data.map((c) => c.id)).toEqual(newestFirst(candidateIds).slice(0, 20));
    expect(page.has_more).toBe(true);
    expect(page.next_cursor).toBe(page.data[19].id);
  });

  it('takes up to 100 and reports the end exactly', async () => {
    const all = await list('/v1/candidates?limit=100');
    expect(all.data.map((c) => c.id)).toEqual(newestFirst(candidateIds));
    expect(all).toMatchObject({ has_more: false, next_cursor: null });
    const exact = await list('/v1/candidates?limit=45');
    expect(exact.data).toHaveLength(45);
    expect(exact).toMatchObject({ has_more: false, next_cursor: null });
    const oneShort = await list('/v1/candidates?limit=44');
    expect(oneShort).toMatchObject({ has_more: true, next_cursor: candidateIds[1] });
  });

  it('visits every record exactly once when following next_cursor', async () => {
    for (const limit of [1, 7, 20, 45]) {
      const { ids, sizes } = await walk('/v1/candidates', limit);
      expect(ids).toEqual(newestFirst(candidateIds));
      expect(new Set(ids).size).toBe(ids.length);
      expect(sizes.slice(0, -1).every((s) => s === limit)).toBe(true);
    }
  });

  it('accepts the cursor in upper case as the same position', async () => {
    const cursor = candidateIds[30];
    const lower = await list(`/v1/candidates?limit=5&starting_after=${cursor}`);
    const upper = await list(`/v1/candidates?limit=5&starting_after=${cursor.toUpperCase()}`);
    expect(upper.data.map((c) => c.id)).toEqual(lower.data.map((c) => c.id));
    expect(lower.data.map((c) => c.id)).toEqual(newestFirst(candidateIds.slice(25, 30)));
  });

  it('is stable under concurrent inserts: page 2 holds exactly the next older records', async () => {
    const paging = await h.createOrg('Concurrent Co');
    const key = paging.keys.secret_test;
    const older: string[] = [];
    for (let i = 0; i < 25; i++) older.push(await createCandidate(key));

    const first = await list('/v1/candidates?limit=10', key);
    expect(first.data.map((c) => c.id)).toEqual(newestFirst(older).slice(0, 10));

    const newer: string[] = [];
    for (let i = 0; i < 5; i++) newer.push(await createCandidate(key));

    const second = await list(`/v1/candidates?limit=10&starting_after=${first.next_cursor}`, key);
    expect(second.data.map((c) => c.id)).toEqual(newestFirst(older).slice(10, 20));
    const third = await list(`/v1/candidates?limit=10&starting_after=${second.next_cursor}`, key);
    expect(third.data.map((c) => c.id)).toEqual(newestFirst(older).slice(20));
    expect(third).toMatchObject({ has_more: false, next_cursor: null });

    const seen = [...first.data, ...second.data, ...third.data].map((c) => c.id);
    expect(new Set(seen).size).toBe(25);
    expect(seen.some((id) => newer.includes(id))).toBe(false);

    // A fresh walk starts at the newest record and still sees each one once.
    expect((await walk('/v1/candidates', 8, key)).ids).toEqual([...newestFirst(newer), ...newestFirst(older)]);
  });

  it('filters by email through the same helper', async () => {
    const page = await list(`/v1/candidates?email=p7@paging.example&limit=1`);
    expect(page.data.map((c) => c.id)).toEqual([candidateIds[6]]);
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
  });
});

describe('other lists behave the same', () => {
  it('api keys: newest first, default 20, walked once each, scoped to the environment', async () => {
    const pagingOrg = await h.createOrg('Keys Co');
    const key = pagingOrg.keys.secret_test;
    const before = (await list('/v1/api-keys?limit=100', key)).data.map((k) => k.id);
    expect(before).toHaveLength(2); // the test environment's secret and publishable keys
    const minted: string[] = [];
    for (let i = 0; i < 23; i++) {
      const res = await h.app.inject({ method: 'POST', url: '/v1/api-keys', headers: bearer(key), payload: { name: `k${i}` } });
      expect(res.statusCode, res.body).toBe(201);
      minted.push(res.json().id);
    }
    const expected = [...newestFirst(minted), ...before];

    const page = await list('/v1/api-keys', key);
    expect(page.data.map((k) => k.id)).toEqual(expected.slice(0, 20));
    expect(page).toMatchObject({ has_more: true, next_cursor: expected[19] });

    expect((await walk('/v1/api-keys', 6, key)).ids).toEqual(expected);
    const live = (await list('/v1/api-keys?limit=100', pagingOrg.keys.secret_live)).data.map((k) => k.id);
    expect(live).toHaveLength(2);
    expect(live.some((id) => expected.includes(id))).toBe(false);
  });

  it('members: newest first, default 20, walked once each, only this organisation\'s', async () => {
    const staffed = await h.createOrg('Staffed Co');
    const added: string[] = [];
    for (let i = 0; i < 22; i++) {
      added.push((await h.services.organizations.addMember(staffed.id, { email: `staff${i}@staffed.example`, name: `Staff ${i}` })).id);
    }
    await h.services.organizations.addMember(org.id, { email: 'someone@paging.example', name: 'Elsewhere' });

    const page = await list('/v1/members', staffed.keys.secret_live);
    expect(page.data.map((m) => m.id)).toEqual(newestFirst(added).slice(0, 20));
    expect(page).toMatchObject({ has_more: true, next_cursor: added[2] });
    expect((await walk('/v1/members', 5, staffed.keys.secret_test)).ids).toEqual(newestFirst(added));
  });

  it('catalogues walk every entry once, newest first', async () => {
    for (const url of ['/v1/companies', '/v1/jobs', '/v1/round-types']) {
      const all = (await list(`${url}?limit=100`)).data.map((r) => r.id);
      expect(all.length).toBeGreaterThan(0);
      expect(all).toEqual([...all].sort().reverse());
      expect((await walk(url, 3)).ids).toEqual(all);
    }
  });
});
