import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startHarness, type Harness, type Org } from '../helpers/harness.js';

let h: Harness;
let other: Org;
beforeAll(async () => {
  h = await startHarness();
  other = await h.createOrg('Other Co');
});
afterAll(() => h.close());

let seq = 0;
/** A fresh address per call, so tests never collide on the per-environment uniqueness. */
const freshEmail = (tag = 'c') => `${tag}.${Date.now().toString(36)}.${++seq}@example.com`;

const key = () => h.org.keys.secret_test;

function req(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, apiKey = key(), headers: Record<string, string> = {}) {
  return h.app.inject({ method, url, headers: bearer(apiKey, headers), ...(payload === undefined ? {} : { payload: payload as object }) });
}

async function create(email = freshEmail(), name = 'Ada Lovelace', apiKey = key()) {
  const res = await req('POST', '/v1/candidates', { email, name }, apiKey);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

function expectError(res: { statusCode: number; json(): any }, status: number, code: string, param?: string | null) {
  expect(res.statusCode).toBe(status);
  expect(res.json().error.code).toBe(code);
  if (param !== undefined) expect(res.json().error.param).toBe(param);
}

describe('POST /v1/candidates', () => {
  it('creates a candidate (201) with the contract fields and a UUIDv7 id', async () => {
    const email = freshEmail();
    const body = await create(email, 'Grace Hopper');
    expect(body).toMatchObject({ object: 'candidate', email, name: 'Grace Hopper', livemode: false });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.created_at).toBe(Math.floor(h.clock.now() / 1000));
    const row = await h.db.kysely.selectFrom('candidates').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ organization_id: h.org.id, email, name: 'Grace Hopper' });
    expect(Number(row.livemode)).toBe(0);
  });

  it('refuses a malformed email with param email', async () => {
    for (const email of ['not-an-email', 'a@', '@b.co', '']) {
      expectError(await req('POST', '/v1/candidates', { email, name: 'X' }), 400, 'parameter_invalid', 'email');
    }
  });

  it('accepts a 255-character name and refuses 256 characters with param name', async () => {
    const ok = await create(freshEmail(), 'n'.repeat(255));
    expect(ok.name).toHaveLength(255);
    expectError(await req('POST', '/v1/candidates', { email: freshEmail(), name: 'n'.repeat(256) }), 400, 'parameter_invalid', 'name');
  });

  it('refuses a blank name', async () => {
    for (const name of ['', '   ']) {
      expectError(await req('POST', '/v1/candidates', { email: freshEmail(), name }), 400, 'parameter_invalid', 'name');
    }
  });

  it('refuses a name of invisible characters only, or holding line breaks, control characters or bidi overrides', async () => {
    const c = await create();
    for (const name of ['\u200B', '\u2060\uFEFF', '\u202E', '\u3164', '\u2800 \u115F', '\u0301\u0301', 'Ada\nLovelace', 'Ada\r\nBcc: x', 'Ada\tLovelace', 'Ada\u0007', 'Ada\u0085',
      'Ada\u2028Lovelace', '\u202Eecalevol adA', 'Ada \u2066Lovelace\u2069']) {
      expectError(await req('POST', '/v1/candidates', { email: freshEmail(), name }), 400, 'parameter_invalid', 'name');
      expectError(await req('PATCH', `/v1/candidates/${c.id}`, { name }), 400, 'parameter_invalid', 'name');
    }
    expect((await req('GET', `/v1/candidates/${c.id}`)).json().name).toBe(c.name);
    // Joiners belong to the names of many scripts (Persian, Indic) and to emoji: they stay.
    for (const name of ['\u0645\u06CC\u200C\u0631\u0648\u062F', 'Zo\u00EB \u{1F469}\u200D\u{1F4BB}', '\u674E\u5C0F\u9F99', 'O\u2019Brien-Smith']) {
      expect((await create(freshEmail(), name)).name).toBe(name);
    }
  });

  it('refuses addresses outside ASCII (look-alike letters, fullwidth forms) rather than storing a confusable twin', async () => {
    const local = `twin.${Date.now().toString(36)}`;
    const real = await create(`${local}@example.com`);
    for (const email of [`${local}@ex\u0430mple.com`, `${local.replace('t', '\uFF54')}@example.com`, `${local}@example.com\u200B`, `\u202E${local}@example.com`,
      `${local}\u212A@example.com`, `${local}@example.com\n`]) {
      expectError(await req('POST', '/v1/candidates', { email, name: 'Twin' }), 400, 'parameter_invalid', 'email');
      expectError(await req('PATCH', `/v1/candidates/${real.id}`, { email }), 400, 'parameter_invalid', 'email');
    }
  });

  it('refuses missing and unknown fields', async () => {
    expectError(await req('POST', '/v1/candidates', { name: 'X' }), 400, 'parameter_missing', 'email');
    expectError(await req('POST', '/v1/candidates', { email: freshEmail(), name: 'X', role: 'admin' }), 400, 'parameter_unknown', 'role');
  });

  it('lower-cases the email, and ?email= is an exact, case-insensitive lookup', async () => {
    const local = `Mixed.Case.${Date.now().toString(36)}`;
    const created = await create(`${local}@Example.COM`, 'Mixed');
    expect(created.email).toBe(`${local.toLowerCase()}@example.com`);

    for (const query of [`${local.toUpperCase()}@EXAMPLE.COM`, `${local}@example.com`, `${local.toLowerCase()}@example.com`]) {
      const res = await req('GET', `/v1/candidates?email=${encodeURIComponent(query)}`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.map((c: any) => c.id)).toEqual([created.id]);
    }
    // Neither a prefix, a substring nor a longer address matches.
    for (const query of [local.toLowerCase(), `${local.toLowerCase()}@example`, local.toLowerCase().slice(6) + '@example.com', `x${local}@example.com`, `${local}@example.com.au`]) {
      const res = await req('GET', `/v1/candidates?email=${encodeURIComponent(query)}`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual([]);
    }
  });

  it('refuses the address of a member of any organisation (email_is_platform_account)', async () => {
    const staff = freshEmail('staff');
    await h.services.organizations.addMember(other.id, { email: staff, name: 'Staff Person' });
    expectError(await req('POST', '/v1/candidates', { email: staff, name: 'X' }), 400, 'email_is_platform_account', 'email');
    // Case does not help to get around it.
    expectError(await req('POST', '/v1/candidates', { email: staff.toUpperCase(), name: 'X' }), 400, 'email_is_platform_account', 'email');
    // Nor does the environment or being in the member's own organisation.
    expectError(await req('POST', '/v1/candidates', { email: staff, name: 'X' }, other.keys.secret_live), 400, 'email_is_platform_account', 'email');
    const rows = await h.db.kysely.selectFrom('candidates').select('id').where('email', '=', staff).execute();
    expect(rows).toEqual([]);
  });

  it('refuses a duplicate email in the same organisation and environment (candidate_email_taken)', async () => {
    const email = freshEmail('dup');
    const first = await create(email);
    const res = await req('POST', '/v1/candidates', { email: email.toUpperCase(), name: 'Again' });
    expectError(res, 400, 'candidate_email_taken', 'email');
    expect(res.json().error.message).toContain(first.id);
  });

  it('lets exactly one of several concurrent creates with one address win', async () => {
    const email = freshEmail('race');
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => req('POST', '/v1/candidates', { email, name: `Racer ${i}` })));
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 201)) expectError(r, 400, 'candidate_email_taken', 'email');
    const rows = await h.db.kysely.selectFrom('candidates').select('id').where('email', '=', email).execute();
    expect(rows).toHaveLength(1);
  });

  it('allows the same email in the other environment and in another organisation', async () => {
    const email = freshEmail('shared');
    const test = await create(email, 'T', h.org.keys.secret_test);
    const live = await create(email, 'L', h.org.keys.secret_live);
    const elsewhere = await create(email, 'O', other.keys.secret_test);
    expect(new Set([test.id, live.id, elsewhere.id]).size).toBe(3);
    expect(live.livemode).toBe(true);
  });
});

describe('GET /v1/candidates/{id}', () => {
  it('returns the candidate', async () => {
    const c = await create();
    const res = await req('GET', `/v1/candidates/${c.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(c);
  });

  it('answers 404 for another environment or another organisation, 400 for a non-uuid id', async () => {
    const c = await create();
    expectError(await req('GET', `/v1/candidates/${c.id}`, undefined, h.org.keys.secret_live), 404, 'resource_not_found');
    expectError(await req('GET', `/v1/candidates/${c.id}`, undefined, other.keys.secret_test), 404, 'resource_not_found');
    expectError(await req('GET', '/v1/candidates/not-a-uuid'), 400, 'parameter_invalid', 'id');
  });
});

describe('PATCH /v1/candidates/{id}', () => {
  it('corrects the name', async () => {
    const c = await create();
    h.clock.advance(5_000);
    const res = await req('PATCH', `/v1/candidates/${c.id}`, { name: '  Corrected Name ' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: c.id, email: c.email, name: 'Corrected Name', created_at: c.created_at });
    expect(res.json().updated_at).toBe(c.updated_at + 5);
    expect((await req('GET', `/v1/candidates/${c.id}`)).json().name).toBe('Corrected Name');
  });

  it('corrects the email (lower-cased) and the lookup follows it', async () => {
    const c = await create();
    const next = freshEmail('NEW').toUpperCase();
    const res = await req('PATCH', `/v1/candidates/${c.id}`, { email: next });
    expect(res.statusCode).toBe(200);
    expect(res.json().email).toBe(next.toLowerCase());
    const byNew = await req('GET', `/v1/candidates?email=${encodeURIComponent(next)}`);
    expect(byNew.json().data.map((x: any) => x.id)).toEqual([c.id]);
    const byOld = await req('GET', `/v1/candidates?email=${encodeURIComponent(c.email)}`);
    expect(byOld.json().data).toEqual([]);
  });

  it('keeps its own email when it is sent again', async () => {
    const c = await create();
    const res = await req('PATCH', `/v1/candidates/${c.id}`, { email: c.email.toUpperCase(), name: 'Same Email' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: c.email, name: 'Same Email' });
  });

  it('refuses a platform account address and another candidate\'s address', async () => {
    const c = await create();
    const staff = freshEmail('staff');
    await h.services.organizations.addMember(other.id, { email: staff, name: 'Staff' });
    expectError(await req('PATCH', `/v1/candidates/${c.id}`, { email: staff }), 400, 'email_is_platform_account', 'email');

    const taken = await create();
    expectError(await req('PATCH', `/v1/candidates/${c.id}`, { email: taken.email }), 400, 'candidate_email_taken', 'email');
    expect((await req('GET', `/v1/candidates/${c.id}`)).json().email).toBe(c.email);
  });

  it('refuses an empty body, an unknown field, invalid values and a non-uuid id', async () => {
    const c = await create();
    expectError(await req('PATCH', `/v1/candidates/${c.id}`, {}), 400, 'parameter_missing');
    expectError(await req('PATCH', `/v1/candidates/${c.id}`, { name: 'X', phone: '123' }), 400, 'parameter_unknown', 'phone');
    expectError(await req('PATCH', `/v1/candidates/${c.id}`, { name: 'n'.repeat(256) }), 400, 'parameter_invalid', 'name');
    expectError(await req('PATCH', `/v1/candidates/${c.id}`, { name: ' ' }), 400, 'parameter_invalid', 'name');
    expectError(await req('PATCH', `/v1/candidates/${c.id}`, { email: 'nope' }), 400, 'parameter_invalid', 'email');
    expectError(await req('PATCH', '/v1/candidates/123', { name: 'X' }), 400, 'parameter_invalid', 'id');
    expect((await req('GET', `/v1/candidates/${c.id}`)).json()).toEqual(c);
  });

  it('answers 404 for an unknown id or another organisation\'s candidate', async () => {
    const mine = await create();
    expectError(await req('PATCH', '/v1/candidates/0190a4e0-0000-7000-8000-000000000000', { name: 'X' }), 404, 'resource_not_found');
    expectError(await req('PATCH', `/v1/candidates/${mine.id}`, { name: 'Hijack' }, other.keys.secret_test), 404, 'resource_not_found');
    expect((await req('GET', `/v1/candidates/${mine.id}`)).json().name).toBe(mine.name);
  });
});

describe('DELETE /v1/candidates/{id}', () => {
  it('erases the row, so GET answers 404 and the address is free again', async () => {
    const c = await create();
    const res = await req('DELETE', `/v1/candidates/${c.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ object: 'candidate', id: c.id, deleted: true });

    const rows = await h.db.kysely.selectFrom('candidates').select('id').where('id', '=', c.id).execute();
    expect(rows).toEqual([]);
    expectError(await req('GET', `/v1/candidates/${c.id}`), 404, 'resource_not_found');
    expectError(await req('DELETE', `/v1/candidates/${c.id}`), 404, 'resource_not_found');
    const again = await create(c.email);
    expect(again.id).not.toBe(c.id);
  });

  it('forgets a remembered idempotent response that held the candidate', async () => {
    const idem = `erase-${Date.now()}`;
    const payload = { email: freshEmail('idem'), name: 'Remembered' };
    const first = await req('POST', '/v1/candidates', payload, key(), { 'idempotency-key': idem });
    expect(first.statusCode).toBe(201);
    const id = first.json().id as string;
    const replay = await req('POST', '/v1/candidates', payload, key(), { 'idempotency-key': idem });
    expect(replay.headers['idempotent-replay']).toBe('true');

    const holding = () => h.db.kysely.selectFrom('idempotency_keys').select('key').where('response_body', 'like', `%${id}%`).execute();
    expect(await holding()).toHaveLength(1);

    expect((await req('DELETE', `/v1/candidates/${id}`)).statusCode).toBe(200);
    expect(await holding()).toEqual([]);
    expect(await h.db.kysely.selectFrom('idempotency_keys').select('key').where('key', '=', idem).execute()).toEqual([]);
  });

  it('does not erase another organisation\'s or environment\'s candidate', async () => {
    const c = await create();
    expectError(await req('DELETE', `/v1/candidates/${c.id}`, undefined, other.keys.secret_test), 404, 'resource_not_found');
    expectError(await req('DELETE', `/v1/candidates/${c.id}`, undefined, h.org.keys.secret_live), 404, 'resource_not_found');
    expect((await req('GET', `/v1/candidates/${c.id}`)).statusCode).toBe(200);
  });

  it('answers 404 for an unknown id and 400 for a non-uuid id', async () => {
    expectError(await req('DELETE', '/v1/candidates/0190a4e0-0000-7000-8000-000000000000'), 404, 'resource_not_found');
    expectError(await req('DELETE', '/v1/candidates/not-a-uuid'), 400, 'parameter_invalid', 'id');
  });
});

describe('candidate races', () => {
  it('keeps both corrections when a name and an email PATCH race', async () => {
    for (let round = 0; round < 8; round++) {
      const c = await create();
      const next = freshEmail('both');
      const [byName, byEmail] = await Promise.all([
        req('PATCH', `/v1/candidates/${c.id}`, { name: `Renamed ${round}` }),
        req('PATCH', `/v1/candidates/${c.id}`, { email: next }),
      ]);
      expect(byName.statusCode).toBe(200);
      expect(byEmail.statusCode).toBe(200);
      const now = (await req('GET', `/v1/candidates/${c.id}`)).json();
      expect(now).toMatchObject({ name: `Renamed ${round}`, email: next });
    }
  });
});
