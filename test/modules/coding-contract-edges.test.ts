import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';
import { settleJobs } from '../helpers/settle.js';

let h: Harness;
let kit: ReturnType<typeof judgingKit>;
let key: string;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  kit = judgingKit(h);
  key = h.org.keys.secret_test;
});
afterAll(() => h.close());

const url = (id: string, tail: string) => `/v1/coding-sessions/${id}/${tail}`;

describe('finalize after the time is up', () => {
  // Was a bug: a timed-out session answered report_status "ready" before its completion job had written the report,
  // while GET …/report still said report_not_ready.
  it('says report_status pending until the timed-out session is scored, then ready', async () => {
    const s = await kit.session(key, 'core-data-structures-screen');
    // The deadline a second away, so the candidate's token is still good when it passes.
    await h.db.kysely.updateTable('coding_sessions').set({ deadline_at: h.clock.now() + 1000 }).where('id', '=', s.id).execute();
    h.clock.advance(2000);
    const fin = await kit.call('POST', url(s.id, 'finalize'), { token: s.token });
    expect(fin.status, fin.raw).toBe(202);
    expect(fin.body.status).toBe('timed_out');
    const report = await kit.call('GET', url(s.id, 'report'), { key });
    expect(report.body.error?.code).toBe('report_not_ready');
    expect(fin.body.report_status).toBe('pending');

    await kit.settle();
    expect((await kit.call('GET', url(s.id, 'report'), { key })).status).toBe(200);
    const again = await kit.call('POST', url(s.id, 'finalize'), { token: s.token });
    expect(again.body).toMatchObject({ status: 'timed_out', report_status: 'ready' });
  }, 60_000);
});

describe('what a judged submission tells the candidate', () => {
  // Was a leak: max_time_ms and max_memory_kb were taken over the hidden cases too, so a program that spent memory
  // (or CPU time) as a function of a hidden input read it back from the submission: hidden cases show pass/fail only.
  it('its time and memory figures are the examples\' only, never a hidden case\'s', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const problem = s.problems[0]!;
    const examples = JSON.stringify(problem.examples.map((e) => e.input));
    // On any input but an example's, about 120 MB held and 0.3 s of CPU: what a hidden input could be encoded in.
    const source = [
      'import sys, json, time',
      'data = sys.stdin.read()',
      `if data not in json.loads(${JSON.stringify(examples)}):`,
      '    held = "x" * (120 * 1024 * 1024)',
      '    end = time.process_time() + 0.3',
      '    while time.process_time() < end: pass',
      'print(0)',
    ].join('\n');
    const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'python', source } });
    expect(sub.status, sub.raw).toBe(202);
    await kit.settle();
    const judged = await kit.call('GET', url(s.id, `submissions/${sub.body.id}`), { token: s.token });
    expect(judged.body.status).toBe('judged');
    const exampleTimes = judged.body.cases.filter((c: any) => c.kind === 'example').map((c: any) => c.time_ms as number);
    expect(judged.body.max_time_ms).toBe(Math.max(...exampleTimes));
    expect(judged.body.max_memory_kb).toBeLessThan(100 * 1024);
  }, 120_000);
});

describe('judging a program with large output', () => {
  // Was a gap: every case's whole stdout (up to 32 MiB) was kept until the last case was judged, though only its
  // verdict is used: a submission printing its cap on every case held over half a gigabyte in the judging process.
  it('keeps no case\'s output once it is compared', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const problem = s.problems[0]!;
    const sandbox = h.services.sandbox;
    const execute = sandbox.execute;
    let kept = -1;
    sandbox.execute = async (request) => {
      const execution = await execute(request);
      if (request.priority === 'batch' && request.cases.length > 5) kept = execution.cases.reduce((sum, c) => sum + c.stdout.length + c.stderr.length, 0);
      return execution;
    };
    try {
      const source = 'import sys\nsys.stdin.read()\nsys.stdout.write("a" * (4 << 20))\n';
      const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'python', source } });
      expect(sub.status, sub.raw).toBe(202);
      await kit.settle();
      expect((await kit.call('GET', url(s.id, `submissions/${sub.body.id}`), { token: s.token })).body).toMatchObject({ status: 'judged', verdict: 'WRONG_ANSWER' });
      expect(kept).toBe(0);
    } finally {
      sandbox.execute = execute;
    }
  }, 120_000);
});

describe('a judge that fails after the verdict is written', () => {
  // Was a gap: measuring the reference timing came after the verdict was saved; when it threw, the retried job found
  // the submission judged and returned at once, so a finalized session whose completion job had given up waiting
  // was never completed (no report, no coding.completed).
  it('still completes the finished session on its retry', async () => {
    await kit.settle();
    const own = (await h.createOrg('Reference faults', 5)).keys.secret_test;
    const s = await kit.session(own, 'foundations-practice-set');
    const problem = s.problems[0]!;
    await h.db.kysely.deleteFrom('coding_reference_timings').execute();
    const sandbox = h.services.sandbox;
    const execute = sandbox.execute;
    sandbox.execute = async (request) => {
      if (request.priority === 'batch' && request.budgetMs === undefined) throw new Error('sandbox launch failed: test');
      return execute(request);
    };
    try {
      const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'python', source: await kit.reference(problem.id) } });
      expect(sub.status, sub.raw).toBe(202);
      expect((await kit.call('POST', url(s.id, 'finalize'), { token: s.token })).status).toBe(202);
      await settleJobs(h, ['coding.complete'], 'the completion job', { only: true }); // gives up: judging has not run
      await kit.settle();
      const judged = await h.db.kysely.selectFrom('coding_submissions').select('status').where('id', '=', sub.body.id).executeTakeFirstOrThrow();
      expect(judged.status).toBe('judged'); // the token has expired by now (the completion job's retries took half an hour)
      expect((await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key: own })).body.status).toBe('completed');
    } finally {
      sandbox.execute = execute;
    }
  }, 120_000);
});
