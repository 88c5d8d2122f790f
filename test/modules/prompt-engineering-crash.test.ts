import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startWorkerProcess, until as untilHolds } from '../helpers/processes.js';
import { fixtureReply, GOOD_PROMPT, promptKit } from '../helpers/prompt-engineering.js';

let model: FakeModel;
let h: Harness;
const children: ChildProcess[] = [];
let answered = 0;

beforeAll(async () => {
  // The first case is answered; from then on the model holds every request, so a worker dies mid-attempt.
  model = await startFakeModel((request) => {
    if (++answered === 1) model.holding = true;
    return fixtureReply(request);
  });
  h = await startHarness({ env: { ...model.env, PREP_MODEL_CONCURRENCY: '1', PREP_WEBHOOK_TIMEOUT_MS: '1000', PREP_JOB_LEASE_MS: '1500' } });
});
afterAll(async () => {
  children.forEach((c) => c.kill('SIGKILL'));
  await h.close();
  await model.close();
});

const until = (check: () => boolean | Promise<boolean>, ms = 20_000) => untilHolds(check, ms);

describe('a grader killed in the middle of an attempt', () => {
  it('loses nothing: the next worker asks only for the cases still missing, and the attempt is graded once', async () => {
    const kit = promptKit(h);
    const fixture = await kit.fixture(h.org.id);
    h.clock.set(Date.now()); // the worker processes run on the system clock
    const s = await kit.session(h.org.keys.secret_test, fixture.assessmentId);
    const attempt = await kit.submit(s, fixture.taskId, GOOD_PROMPT);

    const env = { ...h.env, ...model.env, PREP_MODEL_CONCURRENCY: '1', PREP_WEBHOOK_TIMEOUT_MS: '1000', PREP_JOB_LEASE_MS: '1500' };
    const first = await startWorkerProcess(env);
    children.push(first);
    const saved = () => h.db.kysely.selectFrom('prompt_attempt_outputs').select('case_name').where('attempt_id', '=', attempt.id).execute();
    await until(async () => model.requests.length === 2 && (await saved()).length === 1); // one case answered and saved, the second in flight
    first.kill('SIGKILL');
    expect((await saved()).map((o) => o.case_name)).toEqual(['sample-alpha']);
    model.holding = false;
    model.release();

    children.push(await startWorkerProcess(env));
    const graded = async () => (await h.db.kysely.selectFrom('prompt_attempts').selectAll().where('id', '=', attempt.id).executeTakeFirstOrThrow());
    await until(async () => (await graded()).status === 'graded');
    const row = await graded();
    expect(row).toMatchObject({ status: 'graded', execution: 'executed', score: 100, hidden_passed: 2 });

    // Each case went to the model once, except the one in flight when the first worker died.
    const asked = model.requests.filter((r) => !r.body.messages.some((m: any) => m.role === 'system')).map((r) => /<in>(.*?)<\/in>/.exec(r.body.messages.at(-1).content)![1]);
    expect(asked.filter((x) => x === 'alpha')).toHaveLength(1);
    expect(asked.filter((x) => x === 'beta')).toHaveLength(2);
    expect(asked.filter((x) => x === 'gamma')).toHaveLength(1);
    // The grade commits before its job is marked done (a statement later, in the worker): wait for that too.
    const job = () => h.db.kysely.selectFrom('background_jobs').select(['status', 'attempts']).where('kind', '=', 'prompt_engineering.grade')
      .where('payload', 'like', `%${attempt.id}%`).executeTakeFirstOrThrow();
    await until(async () => (await job()).status !== 'running');
    expect(await job()).toMatchObject({ status: 'succeeded', attempts: 2 });

    // The same job run again (a duplicate delivery) changes nothing.
    await h.modules.grader.grade(attempt.id, { retry: true, finalAttempt: false });
    expect(await graded()).toEqual(row);
  });
});
