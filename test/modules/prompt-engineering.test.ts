import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { fixtureReply, GOOD_PROMPT, promptKit } from '../helpers/prompt-engineering.js';
import { createLimiter } from '../../src/platform/limiter.js';
import { createPromptCatalog } from '../../src/modules/prompt-engineering/catalog.js';
import { createGrader, GRADE_JOB } from '../../src/modules/prompt-engineering/grading.js';
import { createPromptRepo } from '../../src/modules/prompt-engineering/repo.js';
import { promptEngineeringJobs } from '../../src/modules/prompt-engineering/service.js';
import { ModelError } from '../../src/ai/model.js';

let model: FakeModel;
let h: Harness;
let kit: ReturnType<typeof promptKit>;
let fixture: { assessmentId: string; taskId: string };
const key = () => h.org.keys.secret_test;

beforeAll(async () => {
  model = await startFakeModel(fixtureReply);
  h = await startHarness({ env: { ...model.env, PREP_RATE_LIMIT: '100000', PREP_RATE_LIMIT_MODEL: '100000' } });
  kit = promptKit(h);
  fixture = await kit.fixture(h.org.id);
});
afterAll(async () => {
  await h.close();
  await model.close();
});

const attemptsPath = (id: string) => `/v1/prompt-engineering-sessions/${id}/attempts`;
const candidateRequests = () => model.requests.filter((r) => !r.body.messages.some((m: any) => m.role === 'system'));

describe('the catalogue', () => {
  it('lists the shared assessments and the organisation\'s own; a detail shows only the public parts of its tasks', async () => {
    const list = await kit.call('GET', '/v1/prompt-engineering-assessments?limit=100', { key: key() });
    expect(list.status, list.raw).toBe(200);
    const shared = list.body.data.filter((a: any) => !a.custom);
    expect(shared.length).toBeGreaterThanOrEqual(8);
    expect(new Set(shared.flatMap((a: any) => a.skills)).size).toBe(8);
    expect(list.body.data.find((a: any) => a.id === fixture.assessmentId)).toMatchObject({ custom: true, task_count: 1 });

    for (const a of [...shared, { id: fixture.assessmentId }]) {
      const detail = await kit.call('GET', `/v1/prompt-engineering-assessments/${a.id}`, { key: key() });
      expect(detail.status).toBe(200);
      for (const forbidden of ['"hidden_cases"', '"assert"', '"reference_', '"failing_output"', '"checkers"', '"program"', 'count == 3']) expect(detail.raw).not.toContain(forbidden);
      for (const t of detail.body.tasks) {
        expect(t.sample_cases.length).toBeGreaterThan(0);
        const stored = await h.db.kysely.selectFrom('prompt_engineering_tasks').select('definition').where('id', '=', t.id).executeTakeFirstOrThrow();
        const definition = JSON.parse(stored.definition);
        const shown = new Set(definition.sample_cases.flatMap((c: any) => Object.values(c.vars))); // e.g. a schema every case shares
        for (const c of definition.hidden_cases) {
          for (const v of Object.values(c.vars) as string[]) if (v.length > 20 && !shown.has(v)) expect(detail.raw).not.toContain(JSON.stringify(v).slice(1, -1));
        }
      }
    }
    const mine = await kit.call('GET', `/v1/prompt-engineering-assessments/${fixture.assessmentId}`, { key: key() });
    expect(mine.body.tasks[0]).toMatchObject({ variables: ['input', 'style'], attempt_budget: 3, pass_threshold: 70, hidden_case_count: 2 });
    expect(mine.body.tasks[0].sample_cases).toEqual([{ name: 'sample-alpha', vars: { input: 'alpha', style: 'json' } }]);
  });

  it('another organisation cannot see an organisation\'s own assessment (404) nor assign it', async () => {
    const other = await h.createOrg('Other PE');
    const res = await kit.call('GET', `/v1/prompt-engineering-assessments/${fixture.assessmentId}`, { key: other.keys.secret_test });
    expect(res.status).toBe(404);
    const candidate = await kit.client.candidate(other.keys.secret_test);
    const assign = await kit.call('POST', '/v1/prompt-engineering-sessions', { key: other.keys.secret_test, body: { candidate_id: candidate, prompt_engineering_assessment_id: fixture.assessmentId } });
    expect(assign.status).toBe(404);
    expect(assign.body.error.param).toBe('prompt_engineering_assessment_id');
  });
});

describe('attempts', () => {
  it('refuses a prompt that leaves out a variable (naming it), one over 16 KiB, an unknown task, and work before start', async () => {
    const unstarted = await kit.session(key(), fixture.assessmentId, { start: false });
    const early = await kit.call('POST', attemptsPath(unstarted.id), { token: unstarted.token, body: { task_id: fixture.taskId, prompt: GOOD_PROMPT } });
    expect(early.body.error.code).toBe('session_not_started');

    const s = await kit.session(key(), fixture.assessmentId);
    const missing = await kit.call('POST', attemptsPath(s.id), { token: s.token, body: { task_id: fixture.taskId, prompt: 'Summarise <in>{{input}}</in>' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'parameter_invalid', param: 'prompt' });
    expect(missing.body.error.message).toContain('{{style}}');
    const huge = await kit.call('POST', attemptsPath(s.id), { token: s.token, body: { task_id: fixture.taskId, prompt: `{{input}} {{style}} ${'é'.repeat(8200)}` } });
    expect(huge.status).toBe(400);
    expect(huge.body.error.param).toBe('prompt');
    const unknown = await kit.call('POST', attemptsPath(s.id), { token: s.token, body: { task_id: '00000000-0000-7000-8000-000000000000', prompt: GOOD_PROMPT } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('task_id');
    const extra = await kit.call('POST', attemptsPath(s.id), { token: s.token, body: { task_id: fixture.taskId, prompt: GOOD_PROMPT, model: 'gpt-5' } });
    expect(extra.status).toBe(400);
    expect(await h.db.kysely.selectFrom('prompt_attempts').select('id').where('session_id', '=', s.id).execute()).toEqual([]);
  });

  it('grades a good prompt: samples show the rendered prompt, output and every assertion; hidden cases only pass/fail and points', async () => {
    const s = await kit.session(key(), fixture.assessmentId);
    const before = model.requests.length;
    const receipt = await kit.submit(s, fixture.taskId, GOOD_PROMPT);
    expect(receipt).toMatchObject({ object: 'prompt_attempt', task_id: fixture.taskId, status: 'queued', remaining: 2 });
    const queued = await kit.attempt(s, receipt.id);
    expect(queued).toMatchObject({ status: 'queued', execution: null, score: null, cases: [] });
    expect(queued.craft.score).toBeGreaterThan(0);

    await kit.settle();
    const a = await kit.attempt(s, receipt.id);
    expect(a).toMatchObject({
      status: 'graded', execution: 'executed', execution_reason: null, score: 100, passed: true, hidden_cases_passed: 2, hidden_cases_total: 2,
      model: 'reviewer-1', error: null,
    });
    expect(a.input_tokens).toBeGreaterThan(0);
    expect(a.output_tokens).toBeGreaterThan(0);
    expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    const [sample, ...hidden] = a.cases;
    // Was a bug: the attempt's tokens and time were summed over every case, so subtracting the sample cases' gave the
    // hidden ones', which follow their input (a prompt can make the reply's length spell out what the input holds).
    expect({ input: a.input_tokens, output: a.output_tokens, latency: a.latency_ms })
      .toEqual({ input: sample.input_tokens, output: sample.output_tokens, latency: sample.latency_ms });
    expect(sample).toMatchObject({ name: 'sample-alpha', kind: 'sample', passed: true, vars: { input: 'alpha', style: 'json' }, output: '{"name": "Alpha", "count": 3}' });
    expect(sample.rendered_prompt).toContain('<in>alpha</in> in json');
    expect(sample.assertions.map((x: any) => x.type)).toEqual([
      'is-json', 'json-schema', 'starts-with', 'length', 'not-contains', 'contains-all', 'sandbox', 'rubric', 'equals', 'contains', 'icontains', 'contains-any', 'regex',
    ]);
    expect(sample.assertions.every((x: any) => x.passed && x.reason.length > 0)).toBe(true);
    expect(sample.assertions.find((x: any) => x.type === 'sandbox').reason).toBe('count is 3');
    expect(sample.points).toBe(sample.points_possible);
    expect(hidden.map((c: any) => Object.keys(c).sort())).toEqual([['kind', 'name', 'passed', 'points', 'points_possible'], ['kind', 'name', 'passed', 'points', 'points_possible']]);
    expect(hidden.map((c: any) => c.name)).toEqual(['hidden-1', 'hidden-2']);
    const raw = JSON.stringify(a);
    expect(raw).not.toContain('beta');
    expect(raw).not.toContain('gamma');

    // Each case's prompt went to the model once, at temperature 0 and the task's token limit.
    const asked = candidateRequests().slice(-3);
    expect(model.requests.length - before).toBe(6); // 3 cases + 3 rubric verdicts
    for (const r of asked) expect(r.body).toMatchObject({ temperature: 0, max_tokens: 64 });
    expect(asked.map((r) => r.body.messages.at(-1).content).sort()).toEqual([
      GOOD_PROMPT.replace('{{input}}', 'alpha').replace('{{style}}', 'json'),
      GOOD_PROMPT.replace('{{input}}', 'beta').replace('{{style}}', 'json'),
      GOOD_PROMPT.replace('{{input}}', 'gamma').replace('{{style}}', 'json'),
    ]);
  });

  it('a weak prompt fails: each assertion type says why, sandbox and rubric included; a half-right one earns partial points', async () => {
    const s = await kit.session(key(), fixture.assessmentId);
    const bad = await kit.submit(s, fixture.taskId, 'Item <in>{{input}}</in> as {{style}}');
    const half = await kit.submit(s, fixture.taskId, 'HALF <in>{{input}}</in> as {{style}}');
    await kit.settle();
    const a = await kit.attempt(s, bad.id);
    expect(a).toMatchObject({ status: 'graded', execution: 'executed', passed: false, hidden_cases_passed: 0 });
    const verdict = Object.fromEntries(a.cases[0].assertions.map((x: any) => [x.type, x]));
    for (const failing of ['is-json', 'json-schema', 'starts-with', 'equals', 'contains', 'contains-any', 'regex', 'contains-all', 'sandbox', 'rubric']) {
      expect(verdict[failing].passed, failing).toBe(false);
    }
    expect(verdict['not-contains'].passed).toBe(true);
    expect(verdict.icontains.passed).toBe(true);
    expect(verdict.length.passed).toBe(true);
    expect(verdict.sandbox.reason).toMatch(/^not JSON/);
    expect(verdict.rubric.reason).toBe('No item is named.');
    expect(verdict['is-json'].reason).toMatch(/not JSON/);
    expect(a.score).toBeLessThan(40);

    const b = await kit.attempt(s, half.id);
    expect(b).toMatchObject({ hidden_cases_passed: 1, passed: false });
    expect(b.score).toBeGreaterThanOrEqual(50);
    expect(b.score).toBeLessThan(70);
    expect(b.cases.filter((c: any) => c.kind === 'hidden').map((c: any) => c.passed)).toEqual([true, false]);
  });

  it('the budget: remaining counts down and the next attempt is attempts_exhausted', async () => {
    const s = await kit.session(key(), fixture.assessmentId);
    expect((await kit.submit(s, fixture.taskId, GOOD_PROMPT)).remaining).toBe(2);
    expect((await kit.submit(s, fixture.taskId, GOOD_PROMPT)).remaining).toBe(1);
    expect((await kit.submit(s, fixture.taskId, GOOD_PROMPT)).remaining).toBe(0);
    const over = await kit.call('POST', attemptsPath(s.id), { token: s.token, body: { task_id: fixture.taskId, prompt: GOOD_PROMPT } });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('attempts_exhausted');
    const list = await kit.call('GET', `${attemptsPath(s.id)}?task_id=${fixture.taskId}&limit=2`, { token: s.token });
    expect(list.body).toMatchObject({ total_count: 3, has_more: true });
    const rest = await kit.call('GET', `${attemptsPath(s.id)}?task_id=${fixture.taskId}&limit=2&starting_after=${list.body.data[1].id}`, { token: s.token });
    const ids = [...list.body.data, ...rest.body.data].map((x: any) => x.id);
    expect(ids).toEqual([...ids].sort()); // oldest first
    expect(ids).toHaveLength(3);
  });

  it('a model that keeps failing: retried, then status error with the reason, and the attempt does not count against the budget', async () => {
    const s = await kit.session(key(), fixture.assessmentId);
    model.failing = true;
    try {
      const r = await kit.submit(s, fixture.taskId, GOOD_PROMPT);
      await kit.settle();
      const a = await kit.attempt(s, r.id);
      expect(a.status).toBe('error');
      expect(a.error).toMatch(/the model did not answer/);
      expect(a.score).toBeNull();
      const job = await h.db.kysely.selectFrom('background_jobs').select(['attempts']).where('kind', '=', 'prompt_engineering.grade').where('payload', 'like', `%${r.id}%`).executeTakeFirstOrThrow();
      expect(job.attempts).toBe(6);
    } finally {
      model.failing = false;
    }
    const next = await kit.submit(s, fixture.taskId, GOOD_PROMPT);
    expect(next.remaining).toBe(2);
  });

  // Was a bug: a request the model server refuses (400: a prompt too long for it) was retried for about 4 minutes,
  // refused each time, while the candidate waited for nothing.
  it('a request the model refuses (HTTP 400) is not retried: status error at once, not counted against the budget', async () => {
    const org = await h.createOrg('Refusing model', 5);
    const f = await kit.fixture(org.id);
    const s = await kit.session(org.keys.secret_test, f.assessmentId);
    model.failing = true;
    model.failStatus = 400;
    try {
      const r = await kit.submit(s, f.taskId, GOOD_PROMPT);
      await kit.settle();
      const a = await kit.attempt(s, r.id);
      expect(a).toMatchObject({ status: 'error', score: null });
      expect(a.error).toMatch(/the model did not answer: the model answered HTTP 400/);
      const job = await h.db.kysely.selectFrom('background_jobs').select(['attempts']).where('kind', '=', 'prompt_engineering.grade').where('payload', 'like', `%${r.id}%`).executeTakeFirstOrThrow();
      expect(job.attempts).toBe(1);
    } finally {
      model.failing = false;
      model.failStatus = 500;
    }
    expect((await kit.submit(s, f.taskId, GOOD_PROMPT)).remaining).toBe(2);
    await kit.settle();
  });

  it('another session\'s attempt is not found; the token of one session cannot read another\'s attempts', async () => {
    const a = await kit.session(key(), fixture.assessmentId);
    const b = await kit.session(key(), fixture.assessmentId);
    const mine = await kit.submit(a, fixture.taskId, GOOD_PROMPT);
    expect((await kit.call('GET', `${attemptsPath(b.id)}/${mine.id}`, { token: b.token })).status).toBe(404);
    expect((await kit.call('GET', `${attemptsPath(a.id)}/${mine.id}`, { token: b.token })).body.error.code).toBe('session_scope_mismatch');
    await kit.settle();
  });
});

describe('finishing and the report', () => {
  it('finalize → report with per-task best, hidden pass rate, craft, attempts and time; the event once', async () => {
    const s = await kit.session(key(), fixture.assessmentId);
    const notYet = await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: key() });
    expect(notYet.body.error.code).toBe('report_not_ready');
    h.clock.advance(60_000);
    await kit.submit(s, fixture.taskId, 'HALF <in>{{input}}</in> as {{style}}');
    h.clock.advance(30_000);
    const best = await kit.submit(s, fixture.taskId, GOOD_PROMPT);
    await kit.call('POST', `/v1/prompt-engineering-sessions/${s.id}/events`, { token: s.token, body: { events: [{ type: 'tab_hidden' }, { type: 'paste' }] } });
    const fin = await kit.call('POST', `/v1/prompt-engineering-sessions/${s.id}/finalize`, { token: s.token });
    expect(fin.status).toBe(202);
    expect(fin.body).toMatchObject({ status: 'in_progress', report_status: 'pending' });
    const late = await kit.call('POST', attemptsPath(s.id), { token: s.token, body: { task_id: fixture.taskId, prompt: GOOD_PROMPT } });
    expect(late.body.error.code).toBe('session_already_finalized');
    await kit.settle();

    const report = await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: key() });
    expect(report.status, report.raw).toBe(200);
    expect(report.body).toMatchObject({
      object: 'prompt_engineering_report', status: 'completed', outcome: 'completed', execution: 'executed', overall_score: 100,
      tasks_passed: 1, tasks_total: 1, model: 'reviewer-1', proctoring: { total: 2 },
    });
    expect(report.body.tasks[0]).toMatchObject({
      task_id: fixture.taskId, best_attempt_id: best.id, score: 100, hidden_cases_passed: 2, hidden_cases_total: 2, hidden_pass_rate: 100,
      attempts_used: 2, attempt_budget: 3, passed: true, time_seconds: 90,
    });
    expect(report.body.tasks[0].craft_found).toContain('role');
    expect(report.body.summary).toContain('Execution score 100');
    expect(report.body.tokens.input).toBeGreaterThan(0);
    const announced = async () => (await h.db.kysely.selectFrom('events').select('payload').where('type', '=', 'prompt_engineering.completed').execute())
      .filter((e) => e.payload.includes(s.id));
    expect(await announced()).toHaveLength(1);
    expect(JSON.parse((await announced())[0]!.payload)).toMatchObject({ data: { object: { id: s.id, outcome: 'completed', execution: 'executed', overall_score: 100 } } });
    await h.modules.promptEngineering.complete(s.id); // a second completion run changes nothing
    expect(await announced()).toHaveLength(1);
  });

  // Was a bug: with a model configured but failing, every attempt ended in error and the report said "no model was
  // configured", with craft 0 and no best attempt, though the candidate's prompts had been analysed at submission.
  it('a session whose every attempt the grader could not grade: the report says so, and grades the prompts\' craft', async () => {
    const org = await h.createOrg('Failing model', 5);
    const f = await kit.fixture(org.id);
    const s = await kit.session(org.keys.secret_test, f.assessmentId);
    model.failing = true;
    let attempt: { id: string };
    try {
      attempt = await kit.submit(s, f.taskId, GOOD_PROMPT);
      await kit.settle();
    } finally {
      model.failing = false;
    }
    const craft = (await kit.attempt(s, attempt.id)).craft.score;
    expect(craft).toBeGreaterThan(0);
    await kit.call('POST', `/v1/prompt-engineering-sessions/${s.id}/finalize`, { token: s.token });
    await kit.settle();
    const report = await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: org.keys.secret_test });
    expect(report.status, report.raw).toBe(200);
    expect(report.body).toMatchObject({ execution: 'unavailable', overall_score: null, craft_score: craft });
    expect(report.body.tasks[0]).toMatchObject({ best_attempt_id: attempt.id, craft_score: craft, score: null });
    expect(report.body.summary).not.toMatch(/no model was configured/);
    expect(report.body.summary).toMatch(/grading failed for every attempt/);
  });

  // Was a bug: finalize answered report_status "ready" for any timed-out session, while its report still waited for
  // the attempts being graded (GET …/report said report_not_ready).
  it('finalize on a timed-out session whose attempts are still being graded says the report is pending, then ready', async () => {
    const org = await h.createOrg('Finalize late', 5);
    const f = await kit.fixture(org.id);
    const s = await kit.session(org.keys.secret_test, f.assessmentId);
    await kit.submit(s, f.taskId, GOOD_PROMPT);
    h.clock.advance(20 * 60_000);
    const token = await kit.client.token(org.keys.secret_test, 'prompt_engineering', s.id); // still valid past the deadline
    h.clock.advance(11 * 60_000);
    const late = await kit.call('POST', `/v1/prompt-engineering-sessions/${s.id}/finalize`, { token });
    expect(late.status, late.raw).toBe(202);
    expect(late.body).toMatchObject({ status: 'timed_out', report_status: 'pending' });
    expect((await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: org.keys.secret_test })).body.error.code).toBe('report_not_ready');
    await kit.settle();
    const again = await kit.call('POST', `/v1/prompt-engineering-sessions/${s.id}/finalize`, { token });
    expect(again.body).toMatchObject({ status: 'timed_out', report_status: 'ready' });
    expect((await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: org.keys.secret_test })).status).toBe(200);
  });

  // Was a bug: a database error on the last try outside grading's own try (here reading the task, after the attempt was
  // claimed) failed the job for good and left the attempt `running` for ever, and its finalized session without a report.
  it('a last grading try that fails outside grading settles the attempt in error and completes the session', async () => {
    const org = await h.createOrg('Grading db error', 5);
    const f = await kit.fixture(org.id);
    const s = await kit.session(org.keys.secret_test, f.assessmentId);
    const attempt = await kit.submit(s, f.taskId, GOOD_PROMPT);
    expect((await kit.call('POST', `/v1/prompt-engineering-sessions/${s.id}/finalize`, { token: s.token })).status).toBe(202);
    const catalog = { ...createPromptCatalog(h.db), task: () => Promise.reject(new Error('database unavailable')) };
    const grader = createGrader({
      db: h.db.kysely, clock: h.clock, repo: createPromptRepo(h.db), catalog, model: h.services.model, sandbox: h.services.sandbox, limit: createLimiter(1),
    });
    const handler = promptEngineeringJobs(h.modules.promptEngineering, grader).find((j) => j.kind === GRADE_JOB)!;
    await expect(handler.run({ attempt_id: attempt.id }, { attempts: 6, max_attempts: 6 } as never)).rejects.toThrow('database unavailable');
    expect(await kit.attempt(s, attempt.id)).toMatchObject({ status: 'error' });
    const report = await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: org.keys.secret_test });
    expect(report.status, report.raw).toBe(200);
    expect(report.body).toMatchObject({ status: 'completed', outcome: 'completed' });
    await kit.settle();
  });

  // Was a bug: every case of an attempt was sent to a failing model, each waiting its turn for a model slot (a model that
  // never answers: 30 s a case), though the first failure already failed the try and the retry asks for every case
  // still missing: a down model was asked cases × tries times per attempt, every grading job holding the slots meanwhile.
  it('once a case fails, the cases still waiting for a model slot are not sent: the retry asks for them', async () => {
    const org = await h.createOrg('Failing model asked once a try', 5);
    const f = await kit.fixture(org.id);
    const s = await kit.session(org.keys.secret_test, f.assessmentId);
    const attempt = await kit.submit(s, f.taskId, GOOD_PROMPT);
    const grader = createGrader({
      db: h.db.kysely, clock: h.clock, repo: createPromptRepo(h.db), catalog: createPromptCatalog(h.db), model: h.services.model, sandbox: h.services.sandbox, limit: createLimiter(1),
    });
    const handler = promptEngineeringJobs(h.modules.promptEngineering, grader).find((j) => j.kind === GRADE_JOB)!;
    const before = candidateRequests().length;
    model.failing = true;
    try {
      await expect(handler.run({ attempt_id: attempt.id }, { attempts: 1, max_attempts: 6 } as never)).rejects.toThrow(/the model did not answer/);
    } finally {
      model.failing = false;
    }
    expect(candidateRequests().length - before).toBe(1);
    await kit.settle();
    expect(await kit.attempt(s, attempt.id)).toMatchObject({ status: 'graded' });
  });

  // Was a bug: a rubric call that failed failed the try at once, but the try's other rubric calls still waiting for a
  // model slot were each sent anyway, their verdicts thrown away, holding the slots the retry and other attempts wait for.
  it('once a rubric call fails, the rubric calls still waiting for a model slot are not sent', async () => {
    const org = await h.createOrg('Failing rubric asked once a try', 5);
    const f = await kit.fixture(org.id);
    const s = await kit.session(org.keys.secret_test, f.assessmentId);
    const attempt = await kit.submit(s, f.taskId, GOOD_PROMPT);
    const real = h.services.model!;
    let rubricCalls = 0;
    const failingRubrics: typeof real = {
      ...real,
      complete: (prompt, options) => {
        if (!prompt.system?.startsWith('You grade one output')) return real.complete(prompt, options);
        rubricCalls++;
        return Promise.reject(new ModelError('the model answered HTTP 503', true, 'the model answered HTTP 503', 503));
      },
    };
    const grader = createGrader({
      db: h.db.kysely, clock: h.clock, repo: createPromptRepo(h.db), catalog: createPromptCatalog(h.db), model: failingRubrics, sandbox: h.services.sandbox, limit: createLimiter(1),
    });
    const handler = promptEngineeringJobs(h.modules.promptEngineering, grader).find((j) => j.kind === GRADE_JOB)!;
    await expect(handler.run({ attempt_id: attempt.id }, { attempts: 1, max_attempts: 6 } as never)).rejects.toThrow(/did not answer a rubric/);
    await new Promise((r) => setTimeout(r, 200)); // any call still queued would be sent by now
    expect(rubricCalls).toBe(1);
    await kit.settle();
    expect(await kit.attempt(s, attempt.id)).toMatchObject({ status: 'graded' });
  });

  // Was a bug: the completion job had no way to give up: failed for good (its last try failing, or its worker dying on
  // every try), it left the finalized session in progress, its report not ready and no event sent, for ever.
  it('a completion job that fails for good still completes a session with every attempt graded', async () => {
    const org = await h.createOrg('Completion gives up', 5);
    const f = await kit.fixture(org.id);
    const finished = async () => {
      const s = await kit.session(org.keys.secret_test, f.assessmentId);
      await kit.submit(s, f.taskId, GOOD_PROMPT);
      await kit.settle(); // graded; not finished yet, so nothing completes
      expect((await kit.call('POST', `/v1/prompt-engineering-sessions/${s.id}/finalize`, { token: s.token })).status).toBe(202);
      return s;
    };
    const reportOf = (s: { id: string }) => kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: org.keys.secret_test });
    const failing = { ...h.modules.promptEngineering, complete: () => Promise.reject(new Error('database unavailable')) };
    const handler = promptEngineeringJobs(failing, h.modules.grader).find((j) => j.kind === 'prompt_engineering.complete')!;

    const lastTry = await finished();
    await expect(handler.run({ session_id: lastTry.id }, { attempts: 60, max_attempts: 60 } as never)).rejects.toThrow('database unavailable');
    expect((await reportOf(lastTry)).body).toMatchObject({ status: 'completed', outcome: 'completed', overall_score: 100 });

    const died = await finished();
    await handler.abandoned!({ session_id: died.id }, {} as never);
    expect((await reportOf(died)).body).toMatchObject({ status: 'completed', outcome: 'completed', overall_score: 100 });
    await kit.settle();
  });

  it('a timed-out session is reported, with its queued attempts graded first', async () => {
    const s = await kit.session(key(), fixture.assessmentId);
    await kit.submit(s, fixture.taskId, GOOD_PROMPT);
    h.clock.advance(31 * 60_000);
    const detail = await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}`, { key: key() });
    expect(detail.body).toMatchObject({ status: 'timed_out', tasks: [{ attempts_used: 1 }] });
    await kit.settle();
    const report = await kit.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: key() });
    expect(report.body).toMatchObject({ status: 'timed_out', outcome: 'timed_out', overall_score: 100 });
    expect(report.body.summary).toMatch(/^Time ran out/);
  });
});

describe('without a model', () => {
  let bare: Harness;
  beforeAll(async () => {
    bare = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  });
  afterAll(() => bare.close());

  it('accepts attempts, analyses craft, runs nothing, says execution unavailable, and the report grades craft only', async () => {
    const k = promptKit(bare);
    const f = await k.fixture(bare.org.id);
    const s = await k.session(bare.org.keys.secret_test, f.assessmentId);
    const r = await k.submit(s, f.taskId, GOOD_PROMPT);
    await k.settle();
    const a = await k.attempt(s, r.id);
    expect(a).toMatchObject({ status: 'graded', execution: 'unavailable', score: null, passed: null, cases: [], model: null, hidden_cases_passed: null });
    expect(a.execution_reason).toMatch(/No model is configured/);
    expect(a.craft.score).toBeGreaterThan(0);
    await k.call('POST', `/v1/prompt-engineering-sessions/${s.id}/finalize`, { token: s.token });
    await k.settle();
    const report = await k.call('GET', `/v1/prompt-engineering-sessions/${s.id}/report`, { key: bare.org.keys.secret_test });
    expect(report.body).toMatchObject({ execution: 'unavailable', overall_score: null, tasks_passed: null, model: null });
    expect(report.body.craft_score).toBe(a.craft.score);
    expect(report.body.tasks[0]).toMatchObject({ score: null, passed: null, hidden_pass_rate: null, craft_score: a.craft.score });
    expect(report.body.summary).toContain('No output was produced');
    expect(report.body.summary).toContain('craft only');
  });
});
