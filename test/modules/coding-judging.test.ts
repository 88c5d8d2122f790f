import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECT, startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';
import { startWorkerProcess } from '../helpers/processes.js';
import { settleJobs } from '../helpers/settle.js';
import { judgingJobs } from '../../src/modules/coding/judging.js';

let h: Harness;
let kit: ReturnType<typeof judgingKit>;
let key: string;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000' } });
  kit = judgingKit(h);
  key = h.org.keys.secret_test;
});
afterAll(() => h.close());

const WRONG_PY = 'import sys\nprint(0)\n';
const url = (id: string, tail: string) => `/v1/coding-sessions/${id}/${tail}`;

describe('languages', () => {
  it('lists the sandbox languages to a secret key, and nothing without one', async () => {
    const res = await kit.call('GET', '/v1/coding-languages', { key });
    expect(res.status).toBe(200);
    const ids = res.body.data.map((l: any) => l.id);
    for (const id of ['python', 'javascript', 'typescript', 'c', 'cpp', 'java']) expect(ids).toContain(id);
    expect(res.body.data[0]).toMatchObject({ object: 'coding_language', id: expect.any(String), name: expect.any(String), version: expect.any(String), file_name: expect.any(String) });
    expect((await kit.call('GET', '/v1/coding-languages')).status).toBe(401);
  });
  // Was a bug: `limit` and `starting_after` were ignored (`?limit=1` answered every language, has_more false).
  it('pages like every list: limit, starting_after, has_more and next_cursor', async () => {
    const all = (await kit.call('GET', '/v1/coding-languages?limit=100', { key })).body.data.map((l: any) => l.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await kit.call('GET', `/v1/coding-languages?limit=2${cursor ? `&starting_after=${cursor}` : ''}`, { key });
      expect(res.status, res.raw).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data.map((l: any) => l.id));
      expect(res.body.has_more).toBe(seen.length < all.length);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(all.length).toBeGreaterThan(2);
    const unknown = await kit.call('GET', '/v1/coding-languages?starting_after=cobol', { key });
    expect([unknown.status, unknown.body.error.code]).toEqual([400, 'invalid_cursor']);
  });
});

describe('run', () => {
  it('refuses before start, then runs the examples without scoring or using an attempt, and moves the session to in_progress', async () => {
    const s = await kit.session(key, 'foundations-practice-set', { start: false });
    const problem = s.problems[0]!;
    const source = await kit.reference(problem.id);
    const early = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'python', source } });
    expect(early.status).toBe(400);
    expect(early.body.error.code).toBe('session_not_started');
    await kit.call('POST', url(s.id, 'start'), { token: s.token });

    const res = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'python', source } });
    expect(res.status, res.raw).toBe(200);
    expect(res.body.verdict).toBe('ACCEPTED');
    expect(res.body.results).toHaveLength(problem.examples.length);
    for (const [i, r] of res.body.results.entries()) {
      expect(r).toMatchObject({ name: `example-${i + 1}`, verdict: 'ACCEPTED', input: problem.examples[i]!.input, exit_code: 0 });
      expect(r.stdout.trim()).toBe(problem.examples[i]!.output.trim());
      expect(r.memory_kb).toBeGreaterThan(0);
    }
    const detail = await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key });
    expect(detail.body.status).toBe('in_progress');
    expect(detail.body.problems[0].attempts_used).toBe(0);

    const wrong = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'python', source: WRONG_PY } });
    expect(wrong.body.verdict).toBe('WRONG_ANSWER');
  });

  it('runs on custom stdin, reports compile errors, and rejects bad input in the error envelope', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const problem = s.problems[0]!;
    const custom = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'javascript', source: 'process.stdin.on("data", d => process.stdout.write(String(d).toUpperCase()))', stdin: 'shout\n' } });
    expect(custom.status, custom.raw).toBe(200);
    expect(custom.body).toMatchObject({ verdict: 'COMPLETED', results: [{ name: 'stdin', stdout: 'SHOUT\n', verdict: 'COMPLETED' }] });
    expect(custom.body.results[0].input).toBeUndefined();

    const broken = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'cpp', source: 'int main() { return missing; }' } });
    expect(broken.body).toMatchObject({ verdict: 'COMPILE_ERROR', compile: { ok: false }, results: [] });
    expect(broken.body.compile.output).toContain('missing');

    const language = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'cobol', source: 'x' } });
    expect(language.status).toBe(400);
    expect(language.body.error).toMatchObject({ code: 'parameter_invalid', param: 'language' });
    const other = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: '018f0000-0000-7000-8000-000000000000', language: 'python', source: 'x' } });
    expect(other.status).toBe(404);
    expect(other.body.error.param).toBe('problem_id');
    const empty = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'python', source: '' } });
    expect(empty.status).toBe(400);
    const huge = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'python', source: 'x'.repeat(70_000) } });
    expect(huge.status).toBe(400);
    const secretKey = await kit.call('POST', url(s.id, 'run'), { key, body: { problem_id: problem.id, language: 'python', source: 'print(1)' } });
    expect(secretKey.status).toBe(401);
  });
});

describe('submissions and judging', () => {
  it('judges every case asynchronously, hides hidden cases, counts attempts, lists oldest first', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const problem = s.problems[0]!;
    const wrong = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'python', source: WRONG_PY } });
    expect(wrong.status, wrong.raw).toBe(202);
    expect(wrong.body).toMatchObject({ object: 'coding_submission', status: 'queued', verdict: 'PENDING', remaining: 9 });
    const pending = await kit.call('GET', url(s.id, `submissions/${wrong.body.id}`), { token: s.token });
    expect(pending.body).toMatchObject({ status: 'queued', verdict: 'PENDING', cases: [] });

    const right = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'cpp', source: await kit.reference(problem.id, 'cpp') } });
    expect(right.body.remaining).toBe(8);
    await kit.settle();

    const judgedWrong = await kit.call('GET', url(s.id, `submissions/${wrong.body.id}`), { token: s.token });
    expect(judgedWrong.body).toMatchObject({ status: 'judged', verdict: 'WRONG_ANSWER' });
    const judged = await kit.call('GET', url(s.id, `submissions/${right.body.id}`), { token: s.token });
    expect(judged.body).toMatchObject({ status: 'judged', verdict: 'ACCEPTED', compile: { ok: true } });
    expect(judged.body.cases_passed).toBe(judged.body.cases_total);
    const hidden = judged.body.cases.filter((c: any) => c.kind === 'hidden');
    expect(hidden.length).toBeGreaterThanOrEqual(10);
    for (const c of hidden) expect(Object.keys(c).sort()).toEqual(['kind', 'name', 'passed', 'verdict']);
    // nothing of a hidden case's input or expected output leaks
    const stored = await h.db.kysely.selectFrom('coding_problems').select('hidden_cases').where('id', '=', problem.id).executeTakeFirstOrThrow();
    for (const c of JSON.parse(stored.hidden_cases) as Array<{ input: string; output: string }>) {
      const needle = JSON.stringify(c.input.trim()).slice(1, -1);
      if (needle.length > 6) expect(judged.raw).not.toContain(needle);
    }

    const list = await kit.call('GET', url(s.id, `submissions?problem_id=${problem.id}`), { token: s.token });
    expect(list.body.total_count).toBe(2);
    expect(list.body.data.map((x: any) => x.id)).toEqual([wrong.body.id, right.body.id]);
    const page = await kit.call('GET', url(s.id, `submissions?problem_id=${problem.id}&limit=1`), { token: s.token });
    expect(page.body).toMatchObject({ has_more: true, next_cursor: wrong.body.id, total_count: 2 });
    const next = await kit.call('GET', url(s.id, `submissions?problem_id=${problem.id}&limit=1&starting_after=${page.body.next_cursor}`), { token: s.token });
    expect(next.body.data.map((x: any) => x.id)).toEqual([right.body.id]);
    expect((await kit.call('GET', url(s.id, 'submissions'), { token: s.token })).status).toBe(400);

    const detail = await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key });
    expect(detail.body.problems[0]).toMatchObject({ attempts_used: 2, attempts_remaining: 8, scored: true });
  }, 120_000);

  it('stops at the attempt budget of the test', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const test = await h.db.kysely.selectFrom('coding_sessions').select('test_id').where('id', '=', s.id).executeTakeFirstOrThrow();
    await h.db.kysely.updateTable('coding_tests').set({ attempts_per_problem: 2 }).where('id', '=', test.test_id).execute();
    try {
      const body = { problem_id: s.problems[0]!.id, language: 'python', source: WRONG_PY };
      expect((await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body })).body.remaining).toBe(1);
      expect((await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body })).body.remaining).toBe(0);
      const third = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body });
      expect(third.status).toBe(400);
      expect(third.body.error).toMatchObject({ code: 'attempts_exhausted', param: 'problem_id' });
    } finally {
      await h.db.kysely.updateTable('coding_tests').set({ attempts_per_problem: 10 }).where('id', '=', test.test_id).execute();
    }
  });
});

describe('finalize and report', () => {
  async function events(sessionId: string) {
    const rows = await h.db.kysely.selectFrom('events').select(['type', 'payload']).where('type', '=', 'coding.completed').execute();
    return rows.filter((r) => JSON.parse(r.payload).data.object.id === sessionId);
  }

  it('finalize scores asynchronously; the report follows and coding.completed is sent once', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const [first, second] = s.problems;
    await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: first!.id, language: 'python', source: await kit.reference(first!.id) } });
    // a correct but quadratic answer: right on the small cases, out of time on the large ones
    const quadratic = readFileSync(new URL(`../../catalog/coding/problems/${second!.slug}/solutions/quadratic.py`, import.meta.url), 'utf8');
    await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: second!.id, language: 'python', source: quadratic } });
    await kit.call('POST', url(s.id, 'events'), { token: s.token, body: { events: [{ type: 'tab_hidden' }, { type: 'tab_hidden' }, { type: 'paste' }] } });

    const notReady = await kit.call('GET', url(s.id, 'report'), { key });
    expect(notReady.status).toBe(400);
    expect(notReady.body.error.code).toBe('report_not_ready');

    const fin = await kit.call('POST', url(s.id, 'finalize'), { token: s.token });
    expect(fin.status).toBe(202);
    expect(fin.body).toMatchObject({ object: 'coding_session', id: s.id, status: 'in_progress', report_status: 'pending' });
    const late = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: first!.id, language: 'python', source: WRONG_PY } });
    expect(late.body.error.code).toBe('session_already_finalized');

    await kit.settle();
    const report = await kit.call('GET', url(s.id, 'report'), { key });
    expect(report.status, report.raw).toBe(200);
    expect(report.body).toMatchObject({ object: 'coding_report', session_id: s.id, status: 'completed', outcome: 'completed', problems_total: s.problems.length, problems_solved: 1 });
    const p1 = report.body.problems.find((p: any) => p.problem_id === first!.id);
    expect(p1).toMatchObject({ solved: true, verdict: 'ACCEPTED', language: 'python', attempts: { used: 1, judged: 1 } });
    expect(p1.correctness.hidden_cases_passed).toBe(p1.correctness.hidden_cases_total);
    expect(['efficient', 'acceptable']).toContain(p1.efficiency.rating);
    expect(p1.efficiency.reference_language).toBe('python');
    const p2 = report.body.problems.find((p: any) => p.problem_id === second!.id);
    expect(p2).toMatchObject({ solved: false, verdict: 'TIME_LIMIT_EXCEEDED', efficiency: { rating: 'too_slow' } });
    expect(p2.efficiency.large_cases_timed_out).toBeGreaterThanOrEqual(2);
    expect(p2.correctness.hidden_cases_passed).toBeGreaterThan(0);
    expect(p2.score).toBeLessThan(p1.score);
    expect(report.body.summary).toContain('likely of a worse complexity');
    expect(report.body.proctoring).toMatchObject({ total: 3 });
    expect(report.body.proctoring.by_type).toEqual(expect.arrayContaining([{ type: 'tab_hidden', count: 2 }, { type: 'paste', count: 1 }]));
    expect(report.raw).not.toContain('import sys'); // never the submitted source

    const sent = await events(s.id);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.payload).data.object).toMatchObject({ id: s.id, status: 'completed', outcome: 'completed', overall_score: report.body.overall_score });

    const again = await kit.call('POST', url(s.id, 'finalize'), { token: s.token });
    expect(again.body).toMatchObject({ status: 'completed', report_status: 'ready' });
    await kit.settle();
    expect(await events(s.id)).toHaveLength(1);
  }, 120_000);

  it('a timed-out session is scored the same way, without a finalize call', async () => {
    const s = await kit.session(key, 'core-data-structures-screen');
    const problem = s.problems[0]!;
    await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'python', source: WRONG_PY } });
    const row = await h.db.kysely.selectFrom('coding_sessions').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow();
    h.clock.set(row.deadline_at! + 1000);
    await kit.settle();
    const report = await kit.call('GET', url(s.id, 'report'), { key });
    expect(report.status, report.raw).toBe(200);
    expect(report.body).toMatchObject({ status: 'timed_out', outcome: 'timed_out', problems_solved: 0 });
    expect(report.body.problems[0].attempts.judged).toBe(1);
    expect(await events(s.id)).toHaveLength(1);
    // the candidate's token has expired by now too; either way nothing more runs
    const late = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: { problem_id: problem.id, language: 'python', source: 'print(1)' } });
    expect(['session_already_finalized', 'invalid_session_token']).toContain(late.body.error.code);
  }, 120_000);

  it('an assignment that lapses unopened is abandoned: coding.completed once, and the report stays not ready', async () => {
    const s = await kit.session(key, 'foundations-practice-set', { start: false });
    h.clock.advance(7 * 86_400_000 + 1000);
    await h.modules.coding.expireDue();
    await kit.settle();
    await h.modules.coding.expireDue(); // a second sweep announces nothing more
    await kit.settle();
    const sent = await events(s.id);
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]!.payload).data.object).toMatchObject({ id: s.id, status: 'assigned', outcome: 'abandoned', overall_score: 0 });
    const report = await kit.call('GET', url(s.id, 'report'), { key });
    expect(report.body.error.code).toBe('report_not_ready');
  }, 60_000);

  it('another organisation sees none of it', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const other = await h.createOrg('Other');
    expect((await kit.call('GET', url(s.id, 'report'), { key: other.keys.secret_test })).status).toBe(404);
    const theirs = await kit.session(other.keys.secret_test, 'foundations-practice-set');
    const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: s.problems[0]!.id, language: 'python', source: WRONG_PY } });
    const cross = await kit.call('GET', url(theirs.id, `submissions/${sub.body.id}`), { token: theirs.token });
    expect(cross.status).toBe(404);
    const wrongToken = await kit.call('GET', url(s.id, `submissions/${sub.body.id}`), { token: theirs.token });
    expect([403, 404]).toContain(wrongToken.status);
  });
});

describe('runs of one session', () => {
  // Was a gap: one candidate firing sleeping runs at once held every slot (2 running, 8 queued) from everyone else.
  it('are taken one at a time: another while one is under way is 429 rate_limited, and the next after it runs', async () => {
    const own = (await h.createOrg('Runs', 5)).keys.secret_test;
    const s = await kit.session(own, 'foundations-practice-set');
    const body = (source: string) => ({ problem_id: s.problems[0]!.id, language: 'python', source, stdin: '' });
    /** Resolves once the sandbox is asked for the next run: from then its session's run is under way (held). */
    const nextExecute = () => new Promise<void>((resolve) => {
      const sandbox = h.services.sandbox;
      const execute = sandbox.execute;
      sandbox.execute = (request) => {
        sandbox.execute = execute;
        const running = execute(request);
        resolve();
        return running;
      };
    });
    // The runs sleep 2 s (a floor): the requests sent while one is under way arrive well within it.
    let asked = nextExecute();
    const slow = kit.call('POST', url(s.id, 'run'), { token: s.token, body: body('import time\ntime.sleep(2)\n') });
    await asked;
    const second = await kit.call('POST', url(s.id, 'run'), { token: s.token, body: body('print(1)\n') });
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('rate_limited');
    expect(second.headers['retry-after']).toBe('1');
    expect((await slow).status).toBe(200);
    expect((await kit.call('POST', url(s.id, 'run'), { token: s.token, body: body('print(1)\n') })).body.verdict).toBe('COMPLETED');
    // Another session is not held up.
    const other = await kit.session(own, 'foundations-practice-set');
    asked = nextExecute();
    const mine = kit.call('POST', url(s.id, 'run'), { token: s.token, body: body('import time\ntime.sleep(2)\n') });
    await asked;
    expect((await kit.call('POST', url(other.id, 'run'), { token: other.token, body: { ...body('print(2)\n'), problem_id: other.problems[0]!.id } })).status).toBe(200);
    await mine;
  });
});

describe('a judge that dies on every attempt', () => {
  it('leaves the submission in error, and the finalized session completes', async () => {
    await kit.settle(); // no other test's judging left queued: the claims below take this submission's
    const own = (await h.createOrg('Dying judges', 5)).keys.secret_test;
    const s = await kit.session(own, 'foundations-practice-set');
    const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: s.problems[0]!.id, language: 'python', source: WRONG_PY } });
    expect((await kit.call('POST', url(s.id, 'finalize'), { token: s.token })).status).toBe(202);
    for (let i = 0; i < 21; i++) { // twenty attempts and a final one, each claimed by a worker that dies
      expect((await h.services.queue.claim(`dying-${i}`, ['coding.judge'], 1, 10_000)).map((j) => JSON.parse(j.payload).submission_id)).toEqual([sub.body.id]);
      h.clock.advance(10_000);
    }
    await kit.settle();
    expect((await kit.call('GET', url(s.id, `submissions/${sub.body.id}`), { token: s.token })).body.status).toBe('error');
    expect((await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key: own })).body.status).toBe('completed');
  }, 60_000);
});

describe('a judge stopped between its writes', () => {
  /** Runs `body` while the database refuses to mark a session's problem scored, as a worker killed just before would. */
  async function refuseMarks(body: () => Promise<void>): Promise<void> {
    if (DIALECT === 'postgres') {
      await sql`create function refuse_mark() returns trigger language plpgsql as $$ begin raise exception 'worker killed'; end $$`.execute(h.db.kysely);
      await sql`create trigger refuse_mark before update on coding_session_problems for each row execute function refuse_mark()`.execute(h.db.kysely);
    } else {
      await sql`create trigger refuse_mark before update on coding_session_problems begin select raise(abort, 'worker killed'); end`.execute(h.db.kysely);
    }
    try {
      await body();
    } finally {
      await sql`drop trigger refuse_mark${sql.raw(DIALECT === 'postgres' ? ' on coding_session_problems' : '')}`.execute(h.db.kysely);
      if (DIALECT === 'postgres') await sql`drop function refuse_mark()`.execute(h.db.kysely);
    }
  }

  // Was a bug: the verdict was committed on its own, then the problem marked scored; a judge stopped between the two
  // left its job to run again, which found the submission judged and never marked the problem: `scored` read false
  // for good beside an accepted submission.
  it('a problem whose submission is judged reads scored, whatever point the judge was stopped at', async () => {
    const s = await kit.session(key, 'foundations-practice-set');
    const p = s.problems[0]!;
    const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: p.id, language: 'python', source: await kit.reference(p.id) } });
    expect(sub.status).toBe(202);
    await refuseMarks(async () => {
      await expect(h.modules.judging.judge(sub.body.id, false)).rejects.toThrow(/worker killed/);
    });
    await kit.settle(); // the job again, once its lease ran out
    expect((await kit.call('GET', url(s.id, `submissions/${sub.body.id}`), { token: s.token })).body).toMatchObject({ status: 'judged', verdict: 'ACCEPTED' });
    expect((await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key })).body.problems[0]).toMatchObject({ attempts_used: 1, scored: true });
  }, 60_000);

  // Was a bug: a database error on the last attempt outside the sandbox's try (here writing the verdict) failed the job
  // for good and left the submission `running` for ever, and its finalized session without a report.
  it('a last attempt that cannot write its verdict leaves the submission in error, and the finalized session completes', async () => {
    const own = (await h.createOrg('Verdict refused', 5)).keys.secret_test;
    const s = await kit.session(own, 'foundations-practice-set');
    const p = s.problems[0]!;
    const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: p.id, language: 'python', source: await kit.reference(p.id) } });
    expect((await kit.call('POST', url(s.id, 'finalize'), { token: s.token })).status).toBe(202);
    const handler = judgingJobs(h.modules.judging).find((j) => j.kind === 'coding.judge')!;
    await refuseMarks(async () => {
      await expect(handler.run({ submission_id: sub.body.id }, { attempts: 20, max_attempts: 20 } as never)).rejects.toThrow(/worker killed/);
    });
    expect((await kit.call('GET', url(s.id, `submissions/${sub.body.id}`), { token: s.token })).body).toMatchObject({ status: 'error' });
    expect((await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key: own })).body.status).toBe('completed');
    await kit.settle();
  }, 60_000);
});

describe('completion behind a judging backlog', () => {
  // Was a bug: the completion job retries for about 28 minutes; judging behind a backlog may take longer, and once the
  // job had given up nothing queued it again: the session stayed in progress, with no report and no event, for good.
  it('a session whose judging outlasts the completion job\'s retries is completed once its last submission is judged', async () => {
    const own = (await h.createOrg('Backlog', 5)).keys.secret_test;
    const s = await kit.session(own, 'foundations-practice-set');
    const p = s.problems[0]!;
    const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: p.id, language: 'python', source: await kit.reference(p.id) } });
    expect(sub.status).toBe(202);
    expect((await kit.call('POST', url(s.id, 'finalize'), { token: s.token })).status).toBe(202);
    // Only the completion job runs (every judge is busy elsewhere) until it gives up.
    await settleJobs(h, ['coding.complete'], 'the completion job', { only: true });
    const gaveUp = await h.db.kysely.selectFrom('background_jobs').select('status').where('kind', '=', 'coding.complete').execute();
    expect(gaveUp.map((j) => j.status)).toContain('failed');
    await kit.settle(); // the judge runs at last
    expect((await kit.call('GET', `/v1/coding-sessions/${s.id}`, { key: own })).body.status).toBe('completed');
    expect((await kit.call('GET', url(s.id, 'report'), { key: own })).status).toBe(200);
  }, 120_000);
});

describe('executors in other processes', () => {
  it('a prep worker process judges from the shared queue; one killed mid-judge loses nothing', async () => {
    h.clock.set(Date.now()); // the worker process runs on the real clock: queue the job by it
    const s = await kit.session(key, 'foundations-practice-set');
    const problem = s.problems[0]!;
    // Slow enough to be caught mid-judge (the judge lasts about a second at the least, the status is read every 50 ms):
    // each case sleeps a little before answering correctly. Not much more: the judge must end within its budget.
    const source = `import time\ntime.sleep(0.05)\n${await kit.reference(problem.id)}`;
    const sub = await kit.call('POST', url(s.id, 'submissions'), { token: s.token, body: { problem_id: problem.id, language: 'python', source } });
    expect(sub.status).toBe(202);
    // A short lease (so the second worker takes over soon) still leaves a judging budget of 8 s, over 3 times what the
    // judge of the problem's 15 or 16 cases takes with other tests running (2.5 s; with 0.15 s sleeps, 3.8 s of 6 s).
    const env = { ...h.env, PREP_WEBHOOK_TIMEOUT_MS: '500', PREP_JOB_LEASE_MS: '16000', PREP_SANDBOX_DIR: h.config.sandbox.dir };
    const status = async () => (await h.db.kysely.selectFrom('coding_submissions').select(['status', 'verdict']).where('id', '=', sub.body.id).executeTakeFirstOrThrow());
    const first = await startWorkerProcess(env);
    try {
      for (let i = 0; i < 200 && (await status()).status !== 'running'; i++) await new Promise((r) => setTimeout(r, 50));
      expect((await status()).status).toBe('running');
    } finally {
      first.kill('SIGKILL');
    }
    const second = await startWorkerProcess(env);
    try {
      for (let i = 0; i < 600 && (await status()).status !== 'judged'; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await status()).toEqual({ status: 'judged', verdict: 'ACCEPTED' });
    } finally {
      second.kill('SIGKILL');
    }
  }, 120_000);
});
