import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { startServe, type ServeProcess } from '../helpers/processes.js';

let h: Harness;
let servers: ServeProcess[] = [];

beforeAll(async () => {
  h = await startHarness();
  servers = await Promise.all([startServe(h.env), startServe(h.env)]);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await h.close();
});

describe('coding assignment across server processes', () => {
  it('two processes assigning the same candidate and test at once make one session and one charge', async () => {
    const key = h.org.keys.secret_test;
    const candidate = (await h.app.inject({ method: 'POST', url: '/v1/candidates', headers: bearer(key), payload: { email: 'race@example.com', name: 'Race' } })).json();
    const test = (await h.app.inject({ method: 'GET', url: '/v1/coding-tests', headers: bearer(key) })).json().data[0];
    const before = (await h.app.inject({ method: 'GET', url: '/v1/usage', headers: bearer(key) })).json().credits.coding;

    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => fetch(`${servers[i % 2].url}/v1/coding-sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ candidate_id: candidate.id, coding_test_id: test.id }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))));

    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(11);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(responses.filter((r) => r.body.resumed === true)).toHaveLength(11);

    const rows = await h.db.kysely.selectFrom('coding_sessions').select('id').where('candidate_id', '=', candidate.id).execute();
    expect(rows).toHaveLength(1);
    const after = (await h.app.inject({ method: 'GET', url: '/v1/usage', headers: bearer(key) })).json().credits.coding;
    expect(before - after).toBe(1);
  });
});
