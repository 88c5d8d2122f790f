import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addOrganizationInstrument } from '../../src/modules/psychometric/catalog.js';
import { newId } from '../../src/platform/ids.js';
import { ORIGIN, type Method, type TestClient } from '../helpers/client.js';
import type { Harness, Org } from '../helpers/harness.js';
import { interviewKit, type InterviewKit } from '../helpers/interviews.js';
import { startHarness } from '../helpers/harness.js';
import { promptKit } from '../helpers/prompt-engineering.js';
import { psychometricKit } from '../helpers/psychometric.js';
import { TEXT_RESUME } from '../helpers/sample-resume.js';

/**
 * The newest operations (interviews and their channel, resumes, prompt engineering, psychometrics, the question bank)
 * as an attacker holding another organisation's secret key, the other environment's key, a candidate token of another
 * subject, or a token revoked while the channel is open, sees them. Every id an attacker can name (in the path, the
 * body or the query) answers as an id that does not exist; nothing of the owner's changes; idempotency keys never
 * cross tenants or the candidate/customer line; an open channel does not outlive its token or its candidate.
 */

let h: Harness;
let kit: InterviewKit;
let client: TestClient;
let acme: Org;
let globex: Org;
const ANY_ID = '01900000-0000-7000-8000-000000000000';

const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
async function uploadResume(key: string, candidateId: string): Promise<string> {
  const created = await client.ok('POST', '/v1/resumes/upload-url', { key, body: { candidate_id: candidateId, filename: 'cv.txt' } });
  const put = await h.app.inject({ method: 'PUT', url: local(created.upload_url), payload: TEXT_RESUME, headers: { 'content-type': 'application/octet-stream' } });
  expect(put.statusCode).toBe(200);
  return created.key as string;
}

/** What Acme holds in test mode, that Globex (and Acme's own live key) go after. */
interface Victim {
  candidate: string;
  otherCandidate: string;
  interview: string;
  resume: string;
  /** An upload registered as `resume`, and one uploaded and never registered. */
  registeredKey: string;
  pendingKey: string;
  assessment: string;
  task: string;
  promptSession: string;
  psychometricSession: string;
  question: string;
  instrument: string;
  company: string;
  roundSlug: string;
}
let victim: Victim;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  kit = await interviewKit(h);
  client = kit.client;
  acme = await kit.organization('Acme');
  globex = await kit.organization('Globex');
  const key = acme.keys.secret_test;
  const candidate = await client.candidate(key);
  const otherCandidate = await client.candidate(key);
  const registeredKey = await uploadResume(key, candidate);
  const resume = await client.ok('POST', '/v1/resumes', { key, body: { candidate_id: candidate, key: registeredKey } });
  const pendingKey = await uploadResume(key, candidate);
  const now = h.clock.now();
  // Acme's own company, round type and bank question: nobody else's to name.
  const company = newId();
  await h.db.kysely.insertInto('companies').values({ id: company, organization_id: acme.id, slug: 'acme-private-co', name: 'Acme Private', industry: 'software', size: 'small', headquarters: null, created_at: now }).execute();
  await h.db.kysely.insertInto('round_types').values({ id: newId(), organization_id: acme.id, slug: 'acme-secret-round', name: 'Acme secret round', description: 'Acme only', duration_minutes: 30, created_at: now }).execute();
  // A generated search column (PostgreSQL) is left to the database.
  const { search: _search, ...shared } = await h.db.kysely.selectFrom('question_bank_questions').selectAll().where('organization_id', 'is', null)
    .where('category', '=', 'behavioral').executeTakeFirstOrThrow() as Record<string, any>;
  const question = newId();
  await h.db.kysely.insertInto('question_bank_questions').values({ ...(shared as any), id: question, organization_id: acme.id, slug: 'acme-own-question', title: 'Acme own question', title_key: 'acme own question' }).execute();
  const ipip = JSON.parse(readFileSync('catalog/psychometric/mini-ipip.json', 'utf8'));
  const file = join(mkdtempSync(join(tmpdir(), 'prep-attacks-')), 'acme.json');
  writeFileSync(file, JSON.stringify({ ...ipip, slug: 'acme-own-ipip', name: 'Acme own IPIP' }));
  const instrument = await addOrganizationInstrument(h.db.kysely, acme.id, file, now);
  const fixture = await promptKit(h).fixture(acme.id);
  victim = {
    candidate, otherCandidate, registeredKey, pendingKey, resume: resume.id, company, roundSlug: 'acme-secret-round', question, instrument,
    interview: (await kit.create(key, { resume_key: registeredKey }, candidate)).id,
    assessment: fixture.assessmentId, task: fixture.taskId,
    promptSession: (await client.assign(key, 'prompt_engineering', fixture.assessmentId)).id,
    psychometricSession: (await client.assign(key, 'psychometric', await psychometricKit(h).testId(key, 'mini-ipip'))).id,
  };
});
afterAll(() => h.close());

/** The owner's things as they stood after setup: nothing an attacker sends may change them. */
async function expectVictimUntouched() {
  const key = acme.keys.secret_test;
  const interview = await client.ok('GET', `/v1/interviews/${victim.interview}`, { key });
  expect(interview).toMatchObject({ status: 'scheduled', invitation: null });
  const plan = await client.ok('GET', `/v1/interviews/${victim.interview}/questions`, { key });
  expect(plan.data.filter((q: any) => q.source === 'customer')).toEqual([]);
  expect((await client.ok('GET', `/v1/resumes/${victim.resume}`, { key })).score).toBeNull();
  expect((await client.ok('GET', `/v1/prompt-engineering-sessions/${victim.promptSession}`, { key })).status).toBe('assigned');
  expect((await h.db.kysely.selectFrom('psychometric_sessions').select('status').where('id', '=', victim.psychometricSession).executeTakeFirstOrThrow()).status).toBe('assigned');
  expect((await client.ok('GET', `/v1/resumes?candidate_id=${victim.candidate}`, { key })).data).toHaveLength(1);
}

describe('ids in the path, from another organisation or the other environment', () => {
  it('answer every secret-key operation exactly as an id that does not exist, and change nothing', async () => {
    const doc = parse((await client.call('GET', '/v1/openapi.yaml')).raw);
    // The organisation's own catalogue entries (assessments, bank questions) are the organisation's in both environments
    // (docs/architecture.md): only another organisation is refused them.
    const catalogue = /^\/v1\/(prompt-engineering-assessments|psychometric-tests|question-bank)\//;
    const idOf: Array<[RegExp, () => string]> = [
      [/^\/v1\/interviews\//, () => victim.interview],
      [/^\/v1\/resumes\//, () => victim.resume],
      [/^\/v1\/prompt-engineering-assessments\//, () => victim.assessment],
      [/^\/v1\/prompt-engineering-sessions\//, () => victim.promptSession],
      [/^\/v1\/psychometric-sessions\//, () => victim.psychometricSession],
      [/^\/v1\/psychometric-tests\//, () => victim.instrument],
      [/^\/v1\/question-bank\/questions\//, () => victim.question],
    ];
    // A body each operation accepts, so the refusal is the lookup's and not the schema's.
    const bodies: Record<string, unknown> = {
      '/v1/interviews/{id}/questions': { questions: [{ prompt: 'Tell me about a time you changed a team\'s mind.' }] },
      '/v1/resumes/{id}/score': { role: 'Backend Engineer' },
    };
    const operations: Array<{ method: Method; path: string; id: string }> = [];
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      const found = idOf.find(([re]) => re.test(path));
      if (!found || !path.includes('{id}')) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (!JSON.stringify(op.security ?? []).includes('secretKey')) continue;
        operations.push({ method: method.toUpperCase() as Method, path, id: found[1]() });
      }
    }
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    for (const op of operations) {
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : bodies[op.path] ?? {};
      const url = (id: string) => op.path.replace('{id}', id).replace(/\{[a-z]+\}/g, ANY_ID);
      const attackers = [['another organisation', globex.keys.secret_test], ['the live environment', acme.keys.secret_live]] as const;
      for (const [label, key] of catalogue.test(op.path) ? attackers.slice(0, 1) : attackers) {
        const unknown = await client.call(op.method, url(ANY_ID), { key, body });
        const theirs = await client.call(op.method, url(op.id), { key, body });
        const same = theirs.status === unknown.status && theirs.body?.error?.code === unknown.body?.error?.code;
        if (!same || theirs.status !== 404) {
          wrong.push(`${op.method} ${op.path} from ${label}: ${theirs.status} ${theirs.raw.slice(0, 120)} (unknown id: ${unknown.status} ${unknown.body?.error?.code})`);
        }
      }
    }
    expect(wrong).toEqual([]);
    await expectVictimUntouched();
  });
});

describe('ids smuggled in a body or a query', () => {
  const expectNotFound = (res: { status: number; raw: string; body: any }, param?: string) => {
    expect(res.status, res.raw).toBe(404);
    if (param) expect(res.body.error.param, res.raw).toBe(param);
  };

  it('a candidate, resume key, company or round type of another tenant creates no interview', async () => {
    const mine = await client.candidate(globex.keys.secret_test);
    const base = { round_type: 'behavioral', difficulty: 3, role: 'Backend Engineer' };
    for (const key of [globex.keys.secret_test, acme.keys.secret_live]) {
      expectNotFound(await client.call('POST', '/v1/interviews', { key, body: { ...base, candidate_id: victim.candidate } }), 'candidate_id');
    }
    for (const field of ['key', 'resume_key']) {
      expectNotFound(await client.call('POST', '/v1/interviews', { key: globex.keys.secret_test, body: { ...base, candidate_id: mine, [field]: victim.registeredKey } }), field);
      // Within the organisation too: a resume is its own candidate's.
      expectNotFound(await client.call('POST', '/v1/interviews', { key: acme.keys.secret_test, body: { ...base, candidate_id: victim.otherCandidate, [field]: victim.registeredKey } }), field);
    }
    expectNotFound(await client.call('POST', '/v1/interviews', { key: globex.keys.secret_test, body: { ...base, candidate_id: mine, company_id: victim.company } }), 'company_id');
    const round = await client.call('POST', '/v1/interviews', { key: globex.keys.secret_test, body: { ...base, candidate_id: mine, round_type: victim.roundSlug } });
    expect(round.status, round.raw).toBe(400);
    expect(round.body.error.code).toBe('invalid_round_type');
    expect(round.raw).not.toContain(victim.roundSlug + ',');
    const slots = await client.call('GET', `/v1/interviews/slots?round_type=${victim.roundSlug}`, { key: globex.keys.secret_test });
    expect(slots.body.error?.code, slots.raw).toBe('invalid_round_type');
    // Acme's own are Acme's to use.
    await kit.create(acme.keys.secret_test, { company_id: victim.company, round_type: victim.roundSlug });
    expect((await client.ok('GET', '/v1/interviews?limit=100', { key: globex.keys.secret_test })).data).toEqual([]);
  });

  it("another organisation's upload key registers nothing and signs nothing, registered or not", async () => {
    const mine = await client.candidate(globex.keys.secret_test);
    for (const key of [victim.registeredKey, victim.pendingKey]) {
      for (const as of [globex.keys.secret_test, acme.keys.secret_live]) {
        const res = await client.call('POST', '/v1/resumes', { key: as, body: { candidate_id: as === acme.keys.secret_live ? await client.candidate(as) : mine, key } });
        expect(res.status, res.raw).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'resume_not_found', param: 'key' });
        expect(res.raw).not.toContain(victim.resume);
      }
    }
    for (const [key, candidate] of [[globex.keys.secret_test, victim.candidate], [acme.keys.secret_live, victim.candidate]]) {
      expectNotFound(await client.call('POST', '/v1/resumes/upload-url', { key, body: { candidate_id: candidate, filename: 'cv.txt' } }));
    }
    // Still Acme's to register.
    expect((await client.ok('POST', '/v1/resumes', { key: acme.keys.secret_test, body: { candidate_id: victim.candidate, key: victim.pendingKey } })).candidate_id).toBe(victim.candidate);
    await client.ok('DELETE', `/v1/resumes/${(await client.ok('GET', `/v1/resumes?candidate_id=${victim.candidate}&limit=1`, { key: acme.keys.secret_test })).data[0].id}`, { key: acme.keys.secret_test }, 200);
  });

  it('list filters naming another tenant\'s candidate list nothing; sessions and assignments for its subjects are refused', async () => {
    for (const key of [globex.keys.secret_test, acme.keys.secret_live]) {
      for (const path of ['/v1/interviews', '/v1/resumes']) {
        expect((await client.ok('GET', `${path}?candidate_id=${victim.candidate}`, { key })).data, `${path}`).toEqual([]);
      }
      await client.allowOrigin(key);
      for (const field of ['interview_id', 'prompt_engineering_session_id', 'psychometric_session_id']) {
        const id = field === 'interview_id' ? victim.interview : field.startsWith('prompt') ? victim.promptSession : victim.psychometricSession;
        const res = await client.call('POST', '/v1/sessions', { key, body: { origin: ORIGIN, [field]: id } });
        expect(res.status, `${field}: ${res.raw}`).toBe(404);
      }
    }
    // The organisation's own assessment is its own in both environments, never another organisation's.
    const assign = await client.call('POST', '/v1/prompt-engineering-sessions', {
      key: globex.keys.secret_test, body: { candidate_id: await client.candidate(globex.keys.secret_test), prompt_engineering_assessment_id: victim.assessment },
    });
    expect(assign.status, assign.raw).toBe(404);
    const instrument = await client.call('POST', '/v1/psychometric-sessions', {
      key: globex.keys.secret_test, body: { candidate_id: await client.candidate(globex.keys.secret_test), psychometric_test_id: victim.instrument },
    });
    expect(instrument.status, instrument.raw).toBe(404);
    expect((await client.ok('GET', '/v1/psychometric-tests?limit=100', { key: globex.keys.secret_test })).data.map((t: any) => t.id)).not.toContain(victim.instrument);
    expect((await client.ok('GET', '/v1/prompt-engineering-assessments?limit=100', { key: globex.keys.secret_test })).data.map((t: any) => t.id)).not.toContain(victim.assessment);
    await expectVictimUntouched();
  });
});

describe('ids inside a candidate\'s own session', () => {
  it('another session\'s attempt, or another assessment\'s task, is not found through one\'s own session', async () => {
    const key = acme.keys.secret_test;
    const pk = promptKit(h);
    const a = await pk.session(key, victim.assessment);
    const b = await pk.session(key, victim.assessment);
    const attempt = await pk.submit(a, victim.task, 'Write {{input}} as JSON in the {{style}} style.');
    const theirs = await client.call('GET', `/v1/prompt-engineering-sessions/${b.id}/attempts/${attempt.id}`, { token: b.token });
    const unknown = await client.call('GET', `/v1/prompt-engineering-sessions/${b.id}/attempts/${ANY_ID}`, { token: b.token });
    expect(theirs.status, theirs.raw).toBe(404);
    expect(theirs.body.error.code).toBe(unknown.body.error.code);
    expect((await client.ok('GET', `/v1/prompt-engineering-sessions/${b.id}/attempts?task_id=${victim.task}`, { token: b.token })).data).toEqual([]);
    // A task of another assessment (the shared catalogue's) is no task of this session.
    const shared = await h.db.kysely.selectFrom('prompt_engineering_tasks').select('id').where('organization_id', 'is', null).executeTakeFirst();
    if (shared) {
      const res = await client.call('POST', `/v1/prompt-engineering-sessions/${b.id}/attempts`, { token: b.token, body: { task_id: shared.id, prompt: 'Say {{input}}.' } });
      expect(res.status, res.raw).toBe(404);
      expect(res.body.error.param).toBe('task_id');
    }
    // B's one attempt is B's own; A's budget is untouched by B's calls.
    expect((await pk.attempt(a, attempt.id)).id).toBe(attempt.id);
  });

  it('a psychometric answer naming an item of another instrument is refused and stores nothing', async () => {
    const key = acme.keys.secret_test;
    const ps = psychometricKit(h);
    const s = await ps.session(key, 'mini-ipip');
    const foreign = JSON.parse((await h.db.kysely.selectFrom('psychometric_tests').select('definition').where('slug', '=', 'ipip-neo-120').executeTakeFirstOrThrow()).definition)
      .items.map((i: any) => i.id as string).find((id: string) => !s.items.some((mine) => mine.id === id));
    expect(foreign).toBeDefined();
    const res = await client.call('POST', `/v1/psychometric-sessions/${s.id}/progress`, { token: s.token, body: { answers: [{ item_id: foreign, value: 3 }] } });
    expect(res.status, res.raw).toBe(400);
    const saved = await client.ok('GET', `/v1/psychometric-sessions/${s.id}`, { token: s.token });
    expect(JSON.stringify(saved)).not.toContain(foreign);
  });
});

describe('idempotency keys', () => {
  it('never replay one tenant\'s response to another, even for the very same request', async () => {
    const k = `same-key-${newId()}`;
    const body = { candidate_id: victim.otherCandidate, round_type: 'behavioral', difficulty: 2, role: 'Data Engineer' };
    const created = await client.call('POST', '/v1/interviews', { key: acme.keys.secret_test, body, headers: { 'idempotency-key': k } });
    expect(created.status).toBe(201);
    for (const key of [globex.keys.secret_test, acme.keys.secret_live]) {
      const res = await client.call('POST', '/v1/interviews', { key, body, headers: { 'idempotency-key': k } });
      expect(res.status, res.raw).toBe(404); // their own lookup of a candidate they do not have, not Acme's interview
      expect(res.headers['idempotent-replay']).toBeUndefined();
      expect(res.raw).not.toContain(created.body.id);
    }
    const again = await client.call('POST', '/v1/interviews', { key: acme.keys.secret_test, body, headers: { 'idempotency-key': k } });
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.body.id).toBe(created.body.id);
    await client.ok('POST', `/v1/interviews/${created.body.id}/cancel`, { key: acme.keys.secret_test }, 200);
  });

  it('a candidate\'s keys are their session\'s: no collision with the customer\'s, nor with another candidate\'s', async () => {
    const k = `shared-${newId()}`;
    const key = acme.keys.secret_test;
    // The customer uses the key first.
    await client.ok('POST', '/v1/interviews', { key, body: { candidate_id: victim.otherCandidate, round_type: 'behavioral', difficulty: 2, role: 'Engineer' }, headers: { 'idempotency-key': k } });
    const a = await kit.started(key);
    const b = await kit.started(key);
    const code = { language: 'python', source: 'print(1)' };
    const first = await client.call('POST', `/v1/interviews/${a.interview.id}/code`, { token: a.token, body: code, headers: { 'idempotency-key': k } });
    expect(first.status, first.raw).toBe(201);
    expect(first.headers['idempotent-replay']).toBeUndefined();
    const other = await client.call('POST', `/v1/interviews/${b.interview.id}/code`, { token: b.token, body: code, headers: { 'idempotency-key': k } });
    expect(other.status, other.raw).toBe(201);
    expect(other.headers['idempotent-replay']).toBeUndefined();
    expect(other.body.interview_id).toBe(b.interview.id);
    // Board uploads: a replay hands the same candidate the same key, never another interview's folder.
    const boardA = await client.call('POST', `/v1/interviews/${a.interview.id}/board-upload-url`, { token: a.token, headers: { 'idempotency-key': `${k}-board` } });
    const boardB = await client.call('POST', `/v1/interviews/${b.interview.id}/board-upload-url`, { token: b.token, headers: { 'idempotency-key': `${k}-board` } });
    expect(boardA.status).toBe(201);
    expect(boardB.status).toBe(201);
    expect(boardA.body.key).toContain(`/${a.interview.id}/`);
    expect(boardB.body.key).toContain(`/${b.interview.id}/`);
    await a.channel.close();
    await b.channel.close();
  });
});

describe('candidate tokens and secret keys stay on their side', () => {
  it('a candidate token reaches no customer operation of its own interview, and a secret key acts as no candidate', async () => {
    const key = acme.keys.secret_test;
    const { interview, token, channel } = await kit.started(key);
    const customer: Array<[Method, string, unknown?]> = [
      ['GET', `/v1/interviews/${interview.id}`], ['GET', `/v1/interviews/${interview.id}/questions`],
      ['POST', `/v1/interviews/${interview.id}/questions`, { questions: [{ prompt: 'Tell me about a time you disagreed with a peer.' }] }],
      ['POST', `/v1/interviews/${interview.id}/cancel`], ['POST', `/v1/interviews/${interview.id}/launch-link`, {}],
      ['GET', `/v1/interviews/${interview.id}/transcript`], ['GET', `/v1/interviews/${interview.id}/report`], ['GET', `/v1/interviews/${interview.id}/recording-url`],
      ['GET', '/v1/interviews'], ['GET', '/v1/interviews/slots'], ['GET', '/v1/resumes'], ['GET', `/v1/resumes/${victim.resume}/file`],
      ['POST', '/v1/sessions', { origin: 'https://app.acme.test', interview_id: interview.id }],
    ];
    for (const [method, url, body] of customer) {
      const res = await client.call(method, url, { token, body });
      expect(res.status, `${method} ${url}: ${res.raw}`).toBe(401);
      expect(res.body.error.code).toBe('invalid_api_key');
    }
    const candidateOnly: Array<[Method, string, unknown?]> = [
      ['POST', `/v1/interviews/${interview.id}/join`], ['POST', `/v1/interviews/${interview.id}/end`], ['GET', `/v1/interviews/${interview.id}/timer`],
      ['POST', `/v1/interviews/${interview.id}/pause`], ['POST', `/v1/interviews/${interview.id}/code`, { language: 'python', source: 'print(2)' }],
      ['POST', `/v1/interviews/${interview.id}/board-upload-url`], ['POST', `/v1/interviews/${interview.id}/events`, { events: [{ type: 'tab_hidden' }] }],
    ];
    for (const k of [key, acme.keys.publishable_test]) {
      for (const [method, url, body] of candidateOnly) {
        const res = await client.call(method, url, { key: k, body });
        expect(res.status, `${method} ${url}: ${res.raw}`).toBe(401);
        expect(res.body.error.code).toBe('invalid_session_token');
      }
    }
    // None of it did anything: still running, nothing shared, no signal.
    expect((await client.ok('GET', `/v1/interviews/${interview.id}/timer`, { token })).status).toBe('in_progress');
    expect(await h.db.kysely.selectFrom('interview_turns').select('seq').where('interview_id', '=', interview.id).where('kind', '!=', 'text').execute()).toEqual([]);
    expect(await h.db.kysely.selectFrom('proctoring_events').select('id').where('subject_id', '=', interview.id).execute()).toEqual([]);
    // And the channel takes no secret key for a token.
    const keyed = await kit.connect(key, interview.id);
    await keyed.until(() => keyed.closed, 'close');
    expect(keyed.closed!.code).toBe(4401);
    await channel.close();
  });
});

describe('the channel outlives neither its token nor its candidate', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const stored = async (id: string, clientId: string) => (await h.db.kysely.selectFrom('interview_turns').select('seq').where('interview_id', '=', id).where('client_id', '=', clientId).execute()).length;

  it('closes within one check once the token is revoked; a token of another interview does not refresh it', async () => {
    const key = acme.keys.secret_test;
    const { interview, token, channel } = await kit.started(key);
    const other = await kit.create(key);
    const otherToken = await kit.token(key, other.id);
    const before = channel.messages.length;
    channel.send({ type: 'auth.refresh', token: otherToken });
    const refused = await channel.next('error', before);
    expect(refused.code).toBe('session_scope_mismatch');
    expect(channel.closed).toBeNull();
    // Revoked by the customer: the next check closes the channel with 4401.
    const jti = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).jti as string;
    await client.ok('DELETE', `/v1/sessions/${jti}`, { key }, 200);
    h.clock.advance(31_000);
    await channel.until(() => channel.closed, 'the close', 15_000);
    expect(channel.closed!.code).toBe(4401);
    expect(channel.messages.at(-1)).toMatchObject({ type: 'error', code: 'invalid_session_token', fatal: true });
    // And it cannot come back with the revoked token.
    const again = await kit.connect(token, interview.id);
    await again.until(() => again.closed, 'close');
    expect(again.closed!.code).toBe(4401);
  });

  it('a refreshed token keeps the channel open past the old one\'s revocation', async () => {
    const key = acme.keys.secret_test;
    const { token, channel } = await kit.started(key);
    const fresh = await client.ok('POST', '/v1/sessions/refresh', { token });
    channel.send({ type: 'auth.refresh', token: fresh.session_token });
    await sleep(300);
    // Revoking the fresh one revokes its chain (the old one with it): the channel closes at the next check.
    await client.ok('DELETE', `/v1/sessions/${fresh.jti}`, { key }, 200);
    h.clock.advance(31_000);
    await channel.until(() => channel.closed, 'the close', 15_000);
    expect(channel.closed!.code).toBe(4401);
  });

  it('closes once the token expires unrefreshed, and stays open past it when the room refreshed in time', async () => {
    const key = acme.keys.secret_live; // a live interview: long enough to outlast a token (test mode caps it at five minutes)
    const lapsing = await kit.started(key, { duration_minutes: 60 });
    const refreshed = await kit.started(key, { duration_minutes: 60 });
    h.clock.advance(600_000);
    const fresh = await client.ok('POST', '/v1/sessions/refresh', { token: refreshed.token });
    refreshed.channel.send({ type: 'auth.refresh', token: fresh.session_token });
    // The channel says nothing when a refresh takes: it is given 1 s (a token check, a few ms here) before the clock
    // passes the old token's expiry; a check made before it took would close the channel.
    await sleep(1000);
    h.clock.advance(331_000); // past the first tokens' 15 minutes, and a check due
    await lapsing.channel.until(() => lapsing.channel.closed, 'the close', 15_000);
    expect(lapsing.channel.closed!.code).toBe(4401);
    await sleep(1500);
    expect(refreshed.channel.closed).toBeNull();
    const before = refreshed.channel.messages.length;
    refreshed.channel.send({ type: 'ping' });
    await refreshed.channel.next('pong', before);
    await refreshed.channel.close();
  });

  it('ends at once when the candidate is erased, and stores nothing sent after', async () => {
    const key = acme.keys.secret_test;
    const candidateId = await client.candidate(key);
    const interview = await kit.create(key, {}, candidateId);
    const token = await kit.token(key, interview.id);
    await kit.join(token, interview.id);
    const channel = await kit.connect(token, interview.id);
    await channel.next('ready');
    await channel.interviewerTurn(0);
    await client.ok('DELETE', `/v1/candidates/${candidateId}`, { key }, 200);
    await channel.until(() => channel.closed, 'the close', 8000);
    expect(channel.closed!.code).toBe(1000);
    expect(channel.messages.find((m) => m.type === 'ended')).toMatchObject({ status: 'ended', reason: 'abandoned' });
    channel.socket.readyState === channel.socket.OPEN && channel.send({ type: 'answer', id: 'after-erasure', text: 'My home address is 1 Main Street.' });
    await sleep(300);
    expect(await stored(interview.id, 'after-erasure')).toBe(0);
    const again = await kit.connect(token, interview.id);
    await again.until(() => again.closed, 'close');
    expect(again.closed!.code).toBe(4401);
  });
});
