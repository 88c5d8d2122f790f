import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogueRepo } from '../../src/modules/catalogues/repo.js';
import { testClient, type Method, type Reply, type TestClient } from '../helpers/client.js';
import { startHarness, type Harness, type Org } from '../helpers/harness.js';

let h: Harness;
let client: TestClient;
beforeAll(async () => {
  h = await startHarness();
  client = testClient(h);
});
afterAll(() => h.close());

const call = (method: Method, url: string, key: string, body?: object) => client.call(method, url, { key, body });
const ok = (method: Method, url: string, key: string, body?: object) => client.ok(method, url, { key, body });

async function expectError(res: Reply, status: number, code: string, param?: string) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  if (param !== undefined) expect(res.body.error.param).toBe(param);
}

const seconds = () => Math.floor(h.clock.now() / 1000);

describe('branding', () => {
  const DEFAULTS = { logo_url: null, primary_color: '#4F46E5', accent_color: '#0EA5E9', background_color: '#FFFFFF', text_color: '#111827' };
  let org: Org;
  beforeAll(async () => {
    org = await h.createOrg('Brandable Ltd');
  });

  it('starts from the defaults, with the organisation name', async () => {
    const fresh = await h.createOrg('Fresh Brand');
    for (const [key, livemode] of [[fresh.keys.secret_test, false], [fresh.keys.secret_live, true]] as const) {
      expect(await ok('GET', '/v1/branding', key)).toEqual({
        object: 'branding', livemode, company_name: 'Fresh Brand', ...DEFAULTS, updated_at: null,
      });
    }
  });

  it('stores a change, keeps the other fields, and reads it back', async () => {
    const key = org.keys.secret_test;
    const changed = await ok('PATCH', '/v1/branding', key, { primary_color: '#112233', logo_url: 'https://cdn.example.com/logo.png', company_name: 'Brandable' });
    expect(changed).toMatchObject({ object: 'branding', livemode: false, company_name: 'Brandable', logo_url: 'https://cdn.example.com/logo.png', primary_color: '#112233', accent_color: DEFAULTS.accent_color, updated_at: seconds() });

    h.clock.advance(3_000);
    const again = await ok('PATCH', '/v1/branding', key, { accent_color: '#abcdef' });
    expect(again).toMatchObject({ company_name: 'Brandable', primary_color: '#112233', accent_color: '#abcdef', logo_url: 'https://cdn.example.com/logo.png', updated_at: seconds() });
    expect(await ok('GET', '/v1/branding', key)).toEqual(again);
  });

  it('is per environment: a test-key change leaves live branding alone (and the reverse)', async () => {
    const live = await h.createOrg('Live Brand');
    await ok('PATCH', '/v1/branding', live.keys.secret_test, { primary_color: '#010101', company_name: 'Sandbox Name' });
    expect(await ok('GET', '/v1/branding', live.keys.secret_live)).toMatchObject({ livemode: true, company_name: 'Live Brand', primary_color: DEFAULTS.primary_color, updated_at: null });

    await ok('PATCH', '/v1/branding', live.keys.secret_live, { text_color: '#020202' });
    expect(await ok('GET', '/v1/branding', live.keys.secret_test)).toMatchObject({ primary_color: '#010101', text_color: DEFAULTS.text_color, company_name: 'Sandbox Name' });
    // Another organisation is untouched too.
    expect(await ok('GET', '/v1/branding', h.org.keys.secret_test)).toMatchObject({ company_name: 'Acme', primary_color: DEFAULTS.primary_color });
  });

  it('keeps both of two changes to different fields made at once (neither writes back what it read of the other)', async () => {
    const own = await h.createOrg('Two Editors');
    const key = own.keys.secret_test;
    await ok('PATCH', '/v1/branding', key, { company_name: 'Before' });
    const changes = [{ primary_color: '#111111' }, { accent_color: '#222222' }, { text_color: '#333333' }, { logo_url: 'https://cdn.example.com/l.png' }];
    const replies = await Promise.all(changes.map((body) => call('PATCH', '/v1/branding', key, body)));
    for (const res of replies) expect(res.status).toBe(200);
    expect(await ok('GET', '/v1/branding', key)).toMatchObject({ company_name: 'Before', ...Object.assign({}, ...changes) });
  });

  it('resets a field to its default when it is set to null', async () => {
    const reset = await h.createOrg('Reset Co');
    const key = reset.keys.secret_test;
    await ok('PATCH', '/v1/branding', key, { company_name: 'Custom', logo_url: 'https://x.example/l.svg', primary_color: '#123456', background_color: '#000000' });
    const back = await ok('PATCH', '/v1/branding', key, { company_name: null, logo_url: null, primary_color: null });
    expect(back).toMatchObject({ company_name: 'Reset Co', logo_url: null, primary_color: DEFAULTS.primary_color, background_color: '#000000' });
    expect(await ok('GET', '/v1/branding', key)).toEqual(back);
  });

  it('validates colours as #RRGGBB', async () => {
    for (const colour of ['red', '#FFF', '#GGGGGG', '#1234567', '123456', '#12345', ' #123456', 'rgb(1,2,3)']) {
      await expectError(await call('PATCH', '/v1/branding', org.keys.secret_test, { primary_color: colour }), 400, 'parameter_invalid', 'primary_color');
    }
    for (const field of ['accent_color', 'background_color', 'text_color']) {
      await expectError(await call('PATCH', '/v1/branding', org.keys.secret_test, { [field]: 'blue' }), 400, 'parameter_invalid', field);
    }
    expect((await ok('GET', '/v1/branding', org.keys.secret_test)).primary_color).toBe('#112233');
  });

  it('requires an https logo_url', async () => {
    for (const url of ['http://cdn.example.com/logo.png', 'javascript:alert(1)', 'ftp://x.example/l.png', 'not a url', '//cdn.example.com/l.png', `https://x.example/${'a'.repeat(2048)}`]) {
      await expectError(await call('PATCH', '/v1/branding', org.keys.secret_test, { logo_url: url }), 400, 'parameter_invalid', 'logo_url');
    }
    expect((await ok('GET', '/v1/branding', org.keys.secret_test)).logo_url).toBe('https://cdn.example.com/logo.png');
  });

  it('bounds company_name and refuses unknown fields', async () => {
    for (const name of ['', '   ', 'n'.repeat(101)]) {
      await expectError(await call('PATCH', '/v1/branding', org.keys.secret_test, { company_name: name }), 400, 'parameter_invalid', 'company_name');
    }
    expect((await ok('PATCH', '/v1/branding', org.keys.secret_test, { company_name: 'n'.repeat(100) })).company_name).toHaveLength(100);
    await expectError(await call('PATCH', '/v1/branding', org.keys.secret_test, { font: 'Comic Sans' }), 400, 'parameter_unknown', 'font');
  });
});

describe('GET /v1/members', () => {
  it('lists the organisation\'s staff (the same in both environments) and nobody else\'s', async () => {
    const org = await h.createOrg('Staffed');
    const other = await h.createOrg('Elsewhere');
    expect(await ok('GET', '/v1/members', org.keys.secret_test)).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });

    const a = await h.services.organizations.addMember(org.id, { email: 'Alice@Staffed.example', name: 'Alice', role: 'admin' });
    h.clock.advance(1_000);
    const b = await h.services.organizations.addMember(org.id, { email: 'bob@staffed.example', name: 'Bob' });
    await h.services.organizations.addMember(other.id, { email: 'carol@elsewhere.example', name: 'Carol' });

    const list = await ok('GET', '/v1/members', org.keys.secret_live);
    expect(list).toEqual({
      object: 'list', has_more: false, next_cursor: null,
      data: [
        { object: 'member', id: b.id, email: 'bob@staffed.example', name: 'Bob', role: 'member', created_at: Math.floor(b.created_at / 1000) },
        { object: 'member', id: a.id, email: 'alice@staffed.example', name: 'Alice', role: 'admin', created_at: Math.floor(a.created_at / 1000) },
      ],
    });
    expect(await ok('GET', '/v1/members', org.keys.secret_test)).toEqual(list);

    const page = await ok('GET', '/v1/members?limit=1', org.keys.secret_test);
    expect(page).toMatchObject({ has_more: true, next_cursor: b.id });
    expect((await ok('GET', `/v1/members?limit=1&starting_after=${b.id}`, org.keys.secret_test)).data.map((m: any) => m.id)).toEqual([a.id]);
  });
});

describe('GET /v1/analytics/activity', () => {
  const activity = async (key: string, query = '') => ok('GET', `/v1/analytics/activity${query}`, key);
  const candidates = (body: any) => body.data.find((d: any) => d.type === 'candidates');
  const addCandidate = (key: string, email: string) => client.candidate(key, { email, name: 'Counted' });

  it('counts from the real tables, per organisation and environment', async () => {
    const org = await h.createOrg('Counting');
    const empty = await activity(org.keys.secret_test);
    expect(empty).toMatchObject({ object: 'activity', livemode: false, since: null, until: null });
    expect(candidates(empty)).toEqual({ type: 'candidates', total: 0, stages: { created: 0 } });

    for (const n of [1, 2, 3]) await addCandidate(org.keys.secret_test, `count${n}@counting.example`);
    const live = await addCandidate(org.keys.secret_live, 'live@counting.example');
    const elsewhere = await h.createOrg('Not Counted');
    await addCandidate(elsewhere.keys.secret_test, 'other@counting.example');

    expect(candidates(await activity(org.keys.secret_test))).toEqual({ type: 'candidates', total: 3, stages: { created: 3 } });
    const liveBody = await activity(org.keys.secret_live);
    expect(liveBody.livemode).toBe(true);
    expect(candidates(liveBody).total).toBe(1);
    expect(candidates(await activity(elsewhere.keys.secret_test)).total).toBe(1);

    // Erasing a candidate removes them from the counts: nothing is cached.
    expect((await call('DELETE', `/v1/candidates/${live}`, org.keys.secret_live)).status).toBe(200);
    expect(candidates(await activity(org.keys.secret_live)).total).toBe(0);
  });

  it('filters by since (inclusive) and until (exclusive), in Unix seconds', async () => {
    const org = await h.createOrg('Timeline');
    const key = org.keys.secret_test;
    await addCandidate(key, 't0@timeline.example');
    // t1 and t2 land on whole seconds, so the bounds are tested exactly.
    h.clock.set((Math.floor(h.clock.now() / 1000) + 10) * 1000);
    const t1 = seconds();
    await addCandidate(key, 't1@timeline.example');
    h.clock.advance(10_000);
    const t2 = seconds();
    await addCandidate(key, 't2@timeline.example');

    const count = async (query: string) => candidates(await activity(key, query)).total;
    expect(await count('')).toBe(3);
    expect(await count(`?since=${t1}`)).toBe(2);
    expect(await count(`?until=${t1}`)).toBe(1);
    expect(await count(`?since=${t1}&until=${t2}`)).toBe(1);
    expect(await count(`?since=${t2 + 1}`)).toBe(0);
    const echoed = await activity(key, `?since=${t1}&until=${t2}`);
    expect(echoed).toMatchObject({ since: t1, until: t2 });
  });

  it('counts every assessment type the service runs (interviews, resumes, prompt engineering, psychometric), by stage', async () => {
    const org = await h.createOrg('Every Kind', 20);
    const key = org.keys.secret_test;
    const byType = (body: any) => Object.fromEntries(body.data.map((d: any) => [d.type, d]));
    const before = byType(await activity(key));
    expect(before.interview).toEqual({ type: 'interview', total: 0, stages: expect.objectContaining({ scheduled: 0, completed: 0, cancelled: 0 }) });
    expect(before.resume).toEqual({ type: 'resume', total: 0, stages: { parsed: 0, scored: 0 } });
    for (const kind of ['prompt_engineering', 'psychometric']) {
      expect(before[kind], kind).toEqual({ type: kind, total: 0, stages: { assigned: 0, started: 0, in_progress: 0, completed: 0, timed_out: 0, cancelled: 0 } });
    }

    const candidate = await addCandidate(key, 'kinds@every.example');
    await ok('POST', '/v1/interviews', key, { candidate_id: candidate, round_type: 'behavioral', difficulty: 3, role: 'Engineer' });
    const psychometric = (await ok('GET', '/v1/psychometric-tests', key)).data[0].id;
    await ok('POST', '/v1/psychometric-sessions', key, { candidate_id: candidate, psychometric_test_id: psychometric });
    const prompt = (await ok('GET', '/v1/prompt-engineering-assessments', key)).data[0].id;
    const assigned = await ok('POST', '/v1/prompt-engineering-sessions', key, { candidate_id: candidate, prompt_engineering_assessment_id: prompt });
    expect((await call('POST', `/v1/prompt-engineering-sessions/${assigned.id}/cancel`, key)).status).toBe(200);
    const now = h.clock.now();
    await h.db.kysely.insertInto('resumes').values({
      id: '01900000-0000-7000-8000-0000000000aa', organization_id: org.id, livemode: 0, candidate_id: candidate, upload_key: 'u', file_key: 'f',
      content_type: 'text/plain', size: 1, pages: 1, sha256: 'x', parsed: '{}', sections: '[]', score_id: null, created_at: now,
    }).execute();

    const after = byType(await activity(key));
    expect(after.interview).toMatchObject({ total: 1, stages: { scheduled: 1 } });
    expect(after.psychometric).toMatchObject({ total: 1, stages: { assigned: 1 } });
    expect(after.prompt_engineering).toMatchObject({ total: 1, stages: { assigned: 0, cancelled: 1 } });
    expect(after.resume).toEqual({ type: 'resume', total: 1, stages: { parsed: 1, scored: 0 } });
    expect(byType(await activity(org.keys.secret_live)).interview.total).toBe(0);
  });

  it('counts an interview as a read of it shows it: past its join-by expired, overdue ended, before the jobs write it', async () => {
    const org = await h.createOrg('Overdue Interviews', 20);
    const key = org.keys.secret_test;
    const interviews = async () => (await activity(key)).data.find((d: any) => d.type === 'interview').stages;
    const candidate = await addCandidate(key, 'overdue@interviews.example');
    const create = async () => (await ok('POST', '/v1/interviews', key, { candidate_id: candidate, round_type: 'behavioral', difficulty: 3, role: 'Engineer' })).id as string;
    const [unjoined, timed, paused] = [await create(), await create(), await create()];
    const row = (id: string) => h.db.kysely.selectFrom('interviews').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const now = h.clock.now();
    // Joined (written here: joining takes the room's channel), one running to a deadline a minute off, one paused.
    await h.db.kysely.updateTable('interviews').set({ status: 'in_progress', joined_at: now, running_since: now, deadline_at: now + 60_000 }).where('id', '=', timed).execute();
    await h.db.kysely.updateTable('interviews').set({ status: 'paused', joined_at: now, paused_at: now, deadline_at: null }).where('id', '=', paused).execute();
    expect(await interviews()).toMatchObject({ scheduled: 1, in_progress: 1, paused: 1, ended: 0, expired: 0 });

    h.clock.set(now + 60_000);
    expect(await interviews()).toMatchObject({ scheduled: 1, in_progress: 0, paused: 1, ended: 1, expired: 0 });
    h.clock.set(Math.max((await row(unjoined)).join_by, now + 30 * 60_000));
    expect(await interviews()).toMatchObject({ scheduled: 0, in_progress: 0, paused: 0, ended: 2, expired: 1 });
    expect((await row(timed)).status).toBe('in_progress'); // nothing written: the counts are of what a read shows
    const shown = await Promise.all([unjoined, timed, paused].map(async (id) => (await ok('GET', `/v1/interviews/${id}`, key)).status));
    expect(shown).toEqual(['expired', 'ended', 'ended']);
    expect(await interviews()).toMatchObject({ scheduled: 0, in_progress: 0, paused: 0, ended: 2, expired: 1 });
  });

  it('refuses malformed filters', async () => {
    for (const query of ['?since=abc', '?since=-5', '?since=1.5']) {
      await expectError(await call('GET', `/v1/analytics/activity${query}`, h.org.keys.secret_test), 400, 'parameter_invalid', 'since');
    }
    await expectError(await call('GET', '/v1/analytics/activity?until=soon', h.org.keys.secret_test), 400, 'parameter_invalid', 'until');
    await expectError(await call('GET', '/v1/analytics/activity?type=coding', h.org.keys.secret_test), 400, 'parameter_unknown', 'type');
  });

  it('refuses a range that ends where or before it starts (it would count nothing, silently)', async () => {
    const key = h.org.keys.secret_test;
    for (const query of ['?since=2000&until=1000', '?since=1000&until=1000']) {
      await expectError(await call('GET', `/v1/analytics/activity${query}`, key), 400, 'parameter_invalid', 'until');
    }
    expect(await ok('GET', '/v1/analytics/activity?since=1000&until=1001', key)).toMatchObject({ since: 1000, until: 1001 });
  });
});

describe('catalogues', () => {
  const repo = () => createCatalogueRepo(h.db);
  const all = async (url: string, key: string) => {
    const out: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok('GET', `${url}${url.includes('?') ? '&' : '?'}limit=100${cursor ? `&starting_after=${cursor}` : ''}`, key);
      out.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return out;
  };

  it('serves the seeded shared catalogue, paginated', async () => {
    const key = h.org.keys.secret_test;
    const expected = { '/v1/round-types': 'round_type', '/v1/companies': 'company', '/v1/jobs': 'job' } as const;
    for (const [url, object] of Object.entries(expected)) {
      const entries = await all(url, key);
      expect(entries.length, url).toBeGreaterThan(0);
      for (const e of entries) expect(e).toMatchObject({ object, custom: false, slug: expect.any(String), id: expect.any(String) });
      const first = await ok('GET', `${url}?limit=2`, key);
      expect(first.data).toHaveLength(Math.min(2, entries.length));
      expect(first.has_more).toBe(entries.length > 2);
      // The same shared catalogue in live mode.
      expect((await all(url, h.org.keys.secret_live)).map((e) => e.id)).toEqual(entries.map((e) => e.id));
    }
    const companies = await ok('GET', '/v1/companies', key);
    expect(companies.data).toHaveLength(20);
    expect(companies.has_more).toBe(true);
    const job = (await all('/v1/jobs', key))[0];
    expect(Array.isArray(job.skills)).toBe(true);
    expect(typeof job.description).toBe('string');
    const roundType = (await all('/v1/round-types', key))[0];
    expect(Number.isInteger(roundType.duration_minutes)).toBe(true);
  });

  it('shows an organisation\'s own entries, marked custom, to that organisation only', async () => {
    const owner = await h.createOrg('Catalogue Owner');
    const outsider = await h.createOrg('Catalogue Outsider');
    const now = h.clock.now();
    const company = await repo().addCompany(owner.id, { slug: 'owner-co', name: 'Owner Co', industry: 'software', size: '11-50', headquarters: null }, now);
    const job = await repo().addJob(owner.id, {
      slug: 'owner-engineer', title: 'Owner Engineer', company_id: company.id, level: 'senior', location: null,
      employment_type: 'full_time', description: 'Builds things.', skills: ['typescript', 'sql'],
    }, now);
    const round = await repo().addRoundType(owner.id, { slug: 'owner-round', name: 'Owner round', description: 'Ours', duration_minutes: 45 }, now);

    for (const [url, id] of [['/v1/jobs', job.id], ['/v1/companies', company.id], ['/v1/round-types', round.id]] as const) {
      const mine = await all(url, owner.keys.secret_test);
      expect(mine.find((e) => e.id === id), url).toMatchObject({ id, custom: true });
      expect(mine.filter((e) => e.custom)).toHaveLength(1);
      expect((await all(url, outsider.keys.secret_test)).some((e) => e.id === id || e.custom), url).toBe(false);
      expect((await all(url, h.org.keys.secret_live)).some((e) => e.id === id), url).toBe(false);
    }
    const shown = (await all('/v1/jobs', owner.keys.secret_live)).find((e) => e.id === job.id);
    expect(shown).toEqual({
      object: 'job', id: job.id, slug: 'owner-engineer', custom: true, created_at: Math.floor(now / 1000), title: 'Owner Engineer',
      company_id: company.id, level: 'senior', location: null, employment_type: 'full_time', description: 'Builds things.', skills: ['typescript', 'sql'],
    });
  });

  it('filters jobs by company_id', async () => {
    const owner = await h.createOrg('Filter Owner');
    const shared = await all('/v1/jobs', owner.keys.secret_test);
    const companyId = shared.find((j) => j.company_id !== null)!.company_id as string;
    const expected = shared.filter((j) => j.company_id === companyId).map((j) => j.id);
    expect(expected.length).toBeLessThan(shared.length);

    const filtered = await all(`/v1/jobs?company_id=${companyId}`, owner.keys.secret_test);
    expect(filtered.map((j) => j.id)).toEqual(expected);

    // The organisation's own job at that company joins the filtered list, for that organisation only.
    const own = await repo().addJob(owner.id, {
      slug: 'filter-own', title: 'Own role', company_id: companyId, level: 'junior', location: 'Remote',
      employment_type: 'contract', description: 'Ours.', skills: [],
    }, h.clock.now());
    expect((await all(`/v1/jobs?company_id=${companyId}`, owner.keys.secret_test)).map((j) => j.id)).toEqual([own.id, ...expected]);
    expect((await all(`/v1/jobs?company_id=${companyId}`, h.org.keys.secret_test)).map((j) => j.id)).toEqual(expected);

    expect((await ok('GET', '/v1/jobs?company_id=0190a4e0-0000-7000-8000-000000000000', owner.keys.secret_test)).data).toEqual([]);
    await expectError(await call('GET', '/v1/jobs?company_id=nope', owner.keys.secret_test), 400, 'parameter_invalid', 'company_id');
  });

  it('round types follow the interviews module switch', async () => {
    const org = await h.createOrg('No Interviews');
    await h.services.organizations.setModule(org.id, 'interviews', false);
    await expectError(await call('GET', '/v1/round-types', org.keys.secret_test), 403, 'module_not_enabled');
    expect((await call('GET', '/v1/companies', org.keys.secret_test)).status).toBe(200);
  });
});
