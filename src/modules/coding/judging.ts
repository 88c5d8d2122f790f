import { starterTemplate } from '../../sandbox/starters.js';
import type { Kysely } from 'kysely';
import type { CodingProblemsTable, CodingSessionsTable, CodingSubmissionsTable, Database } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobHandler } from '../../jobs/worker.js';
import type { Clock } from '../../platform/clock.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { checkSandboxLanguage, sandboxError } from '../../sandbox/api-errors.js';
import { SandboxUnavailableError, type CaseOutcome, type Sandbox } from '../../sandbox/sandbox.js';
import type { HiddenCase } from './catalog-seed.js';
import type { CodingCatalogRepo } from './catalog-repo.js';
import type { JudgingRepo } from './judging-repo.js';
import { bestSubmission, buildReport, REFERENCE_LANGUAGES, referenceLanguageFor, type SubmissionResults } from './report.js';
import { reviewCode } from '../../ai/code-review.js';
import { ModelError, type TextModel } from '../../ai/model.js';
import { COMPLETE_JOB, type CodingService } from './service.js';
import type { Emit } from '../webhooks/service.js';
import { completionJob } from '../assessments/lifecycle.js';
import { withoutCode, withoutReviews, type CodingSessionRepo } from './sessions-repo.js';

export const JUDGE_JOB = 'coding.judge';
const STDOUT_SHOWN = 64 * 1024;
const STDERR_SHOWN = 16 * 1024;
/** A run's output is cut at 1 MiB (the response shows the first 64 KiB); judging allows 32 MiB. */
const RUN_STDOUT_BYTES = 1_048_576;

export interface RunInput { problem_id: string; language: string; source: string; stdin?: string }
export interface SubmitInput { problem_id: string; language: string; source: string }

/** Public examples of a problem as judge cases. */
function exampleCases(problem: Pick<CodingProblemsTable, 'examples'>) {
  return (JSON.parse(problem.examples) as Array<{ input: string; output: string }>)
    .map((e, i) => ({ name: `example-${i + 1}`, input: e.input, expected: e.output }));
}

/**
 * Wall-clock time one program's cases may take together once a slot is held, and the longest a judge waits for a
 * slot: half the job lease each, so the two together stay under it.
 */
export const judgeBudgetMs = (config: { jobLeaseMs: number }) => Math.floor(config.jobLeaseMs / 2);

/** Every case a submission is judged on: the public examples, then the hidden cases. */
export function judgeCases(problem: Pick<CodingProblemsTable, 'examples' | 'hidden_cases'>) {
  const hidden = JSON.parse(problem.hidden_cases) as HiddenCase[];
  return [...exampleCases(problem), ...hidden.map((c) => ({ name: c.name, input: c.input, expected: c.output }))];
}

function shown(buffer: Buffer, max: number): { text: string; truncated: boolean } {
  return buffer.length > max ? { text: buffer.subarray(0, max).toString('utf8'), truncated: true } : { text: buffer.toString('utf8'), truncated: false };
}

/**
 * Runs, submissions, judging and scoring of coding sessions. Candidate code never runs inside a database
 * transaction: a run holds a sandbox slot only, and judging happens in background jobs.
 */
export function createJudgingService(deps: {
  db: Kysely<Database>; clock: Clock; sandbox: Sandbox; queue: JobQueue; repo: JudgingRepo; sessions: CodingSessionRepo;
  catalog: CodingCatalogRepo; coding: CodingService; model: TextModel | null;
  /** See judgeBudgetMs(). */
  judgeBudgetMs: number;
  emit: Emit;
}) {
  const { db, clock, sandbox, queue, repo, sessions, catalog, coding, model, judgeBudgetMs, emit } = deps;

  /**
   * Stores a submission's outcome under its session's lock: when the candidate has been erased (before, or while it was
   * judged), without their code or the compiler's output quoting it, as the erasure leaves judged submissions.
   */
  async function settleSubmission(submission: Pick<CodingSubmissionsTable, 'id' | 'session_id'>, changes: Partial<CodingSubmissionsTable>, also?: (tx: Kysely<Database>) => Promise<unknown>) {
    await db.transaction().execute(async (tx) => {
      const erased = await sessions.erasedLocked(tx, submission.session_id);
      await repo.update(submission.id, erased ? withoutCode(changes) : changes, tx);
      await also?.(tx);
    });
  }

  /**
   * The model's review of each problem's best submission; a review the model failed to give is null (every one when
   * the model is not to be asked: `ask` false). Once a call finds the model down (timed out, unreachable, 5xx after
   * its retry) the remaining problems are not asked either: each would wait out the time limit again for nothing.
   */
  async function reviews(sessionId: string, ask = true) {
    if (!model) return null;
    const problems = await sessions.problems(db, sessionId);
    const content = await catalog.problems(db, problems.map((p) => p.problem_id));
    const submissions = await repo.forSession(db, sessionId);
    const out = [];
    let asking = ask;
    for (const p of problems) {
      const best = bestSubmission(submissions.filter((s) => s.problem_id === p.problem_id));
      if (!best) continue;
      const problem = content.get(p.problem_id);
      const review = !asking ? null : await reviewCode(model, { title: problem?.title ?? '', statement: problem?.statement ?? '', language: best.language, source: best.source })
        .catch((error: unknown) => {
          if (error instanceof ModelError && error.unavailable) asking = false;
          return null;
        });
      out.push({ problem_id: p.problem_id, submission_id: best.id, review });
    }
    return { model: model.id, problems: out };
  }

  /** A started, unfinished session that still takes work (runs, submissions). */
  async function working(tenant: Tenant, id: string): Promise<CodingSessionsTable> {
    const row = await coding.settled(tenant, id);
    coding.assertStarted(row);
    if (row.finalize_requested_at) throw new ApiError('session_already_finalized');
    return row;
  }

  /** The session's problem, or a 404 naming problem_id. */
  async function sessionProblem(tx: Kysely<Database>, sessionId: string, problemId: string) {
    const entry = (await sessions.problems(tx, sessionId)).find((p) => p.problem_id === problemId);
    if (!entry) throw new ApiError('resource_not_found', { param: 'problem_id', message: `No such problem in this session: '${problemId}'.` });
    return entry;
  }

  const checkLanguage = (language: string) => checkSandboxLanguage(sandbox, language);


  /** The first run or submission moves a started session to in_progress. */
  const markInProgress = coding.markInProgress;

  function presentCase(c: CaseOutcome, example?: { input: string; expected: string }) {
    const stdout = shown(c.stdout, STDOUT_SHOWN);
    const stderr = shown(c.stderr, STDERR_SHOWN);
    return {
      name: c.name, verdict: c.verdict,
      ...(example ? { input: example.input, expected_output: example.expected } : {}),
      stdout: stdout.text, stdout_truncated: stdout.truncated, stderr: stderr.text, stderr_truncated: stderr.truncated,
      exit_code: c.exitCode, signal: c.signal === 0 ? null : c.signal, time_ms: c.timeMs, wall_time_ms: c.wallMs, memory_kb: c.memoryKb,
    };
  }

  /**
   * The completion job: waits (by retrying) until every submission is judged, then writes the report,
   * completes the session and emits coding.completed in one transaction, once.
   */
  async function complete(sessionId: string, options: { review?: boolean } = {}): Promise<void> {
    const pending = await repo.unjudged(db, sessionId);
    if (pending > 0) throw new Error(`${pending} submission(s) still being judged`);
    if (await sessions.hasReport(sessionId)) return;
    // The model is asked before the transaction: no network call holds a database lock.
    const codeReview = await reviews(sessionId, options.review !== false);
    // Reference timings are read before the transaction (SQLite has one writer connection).
    const timings = new Map<string, { language: string; largeTimeMs: number } | null>();
    const measured = await repo.referenceTimings((await sessions.problems(db, sessionId)).map((p) => p.problem_id));
    for (const t of measured) {
      if ((REFERENCE_LANGUAGES as readonly string[]).includes(t.language)) timings.set(`${t.problem_id}:${t.language}`, { language: t.language, largeTimeMs: t.large_time_ms });
    }
    await coding.completeOnce(sessionId, emit, async (tx, row, outcome, endedAt) => {
      const problems = await sessions.problems(tx, sessionId);
      const content = await catalog.problems(tx, problems.map((p) => p.problem_id));
      const submissions = await repo.viewsForSession(tx, sessionId);
      const allowed = (await catalog.getTest(tx, row.organization_id, row.test_id))?.attempts_per_problem ?? 0;
      const report = buildReport({
        // The reviews were asked before this transaction: a candidate erased meanwhile leaves none of them.
        outcome, startedAt: row.started_at, endedAt, codeReview: row.candidate_id === null ? withoutReviews(codeReview) : codeReview,
        proctoring: await sessions.proctoringSummary(tx, sessionId),
        problems: problems.map((p) => ({
          position: p.position, slotTitle: p.slot_title, problemId: p.problem_id, title: content.get(p.problem_id)?.title ?? '',
          attemptsUsed: p.attempts_used, attemptsAllowed: allowed,
          submissions: submissions.filter((s) => s.problem_id === p.problem_id),
          reference: (language) => timings.get(`${p.problem_id}:${referenceLanguageFor(language)}`) ?? null,
        })),
      });
      return {
        report,
        event: { overall_score: report.overall_score, problems_solved: report.problems_solved, problems_total: report.problems_total, summary: report.summary },
      };
    });
  }

  /** A finished session whose last submission was just judged completes now (see lifecycle.completeWhenSettled). */
  const completeWhenJudged = (sessionId: string) => coding.completeWhenSettled(sessionId, () => repo.unjudged(db, sessionId), complete);

  /** Measures the reference solution on the large cases once per problem and reference language. */
  async function ensureReferenceTiming(problem: CodingProblemsTable, language: string): Promise<void> {
    const refLanguage = referenceLanguageFor(language);
    if (await repo.referenceTiming(problem.id, refLanguage)) return;
    const solutions = problem.reference_solutions ? (JSON.parse(problem.reference_solutions) as Record<string, string>) : {};
    const source = solutions[refLanguage];
    const large = (JSON.parse(problem.hidden_cases) as HiddenCase[]).filter((c) => c.large);
    if (!source || large.length === 0 || !(await sandbox.languages()).some((l) => l.id === refLanguage)) return;
    const execution = await sandbox.execute({
      language: refLanguage, source, comparator: problem.comparator, priority: 'batch', keepOutput: false,
      limits: { timeLimitMs: problem.time_limit_ms, memoryLimitMb: problem.memory_limit_mb },
      cases: large.map((c) => ({ name: c.name, input: c.input, expected: c.output })),
    });
    if (execution.cases.length !== large.length || execution.cases.some((c) => c.verdict !== 'ACCEPTED')) return; // not a fair yardstick
    await repo.saveReferenceTiming(problem.id, refLanguage, execution.cases.reduce((sum, c) => sum + c.timeMs, 0), clock.now());
  }

  return {
    async languages() {
      return (await sandbox.languages()).map((l) => ({ id: l.id, name: l.name, version: l.version, file_name: l.fileName, starter_template: starterTemplate(l.id) }));
    },

    /** Runs code on the problem's examples or on the given stdin: nothing is scored and no attempt is used. */
    async run(tenant: Tenant, sessionId: string, input: RunInput) {
      const row = await working(tenant, sessionId);
      const entry = await sessionProblem(db, sessionId, input.problem_id);
      await checkLanguage(input.language);
      const problem = (await repo.problem(entry.problem_id))!;
      await markInProgress(db, row);
      const examples = exampleCases(problem);
      const cases = input.stdin !== undefined ? [{ name: 'stdin', input: input.stdin }] : examples;
      const execution = await sandbox.execute({
        language: input.language, source: input.source, comparator: problem.comparator, priority: 'interactive', stdoutBytes: RUN_STDOUT_BYTES, subject: sessionId,
        limits: { timeLimitMs: problem.time_limit_ms, memoryLimitMb: problem.memory_limit_mb }, cases,
      }).catch(sandboxError);
      const results = execution.cases.map((c) => presentCase(c, input.stdin === undefined ? examples.find((e) => e.name === c.name) : undefined));
      const failed = execution.compile && !execution.compile.ok ? 'COMPILE_ERROR' : execution.cases.find((c) => c.verdict !== 'ACCEPTED' && c.verdict !== 'COMPLETED')?.verdict;
      return {
        object: 'coding_run' as const, problem_id: problem.id, language: input.language,
        verdict: failed ?? (input.stdin !== undefined ? 'COMPLETED' : 'ACCEPTED'),
        compile: execution.compile ? { ok: execution.compile.ok, output: execution.compile.output, time_ms: execution.compile.timeMs } : null,
        results,
      };
    },

    /** One attempt: recorded, counted and queued for judging in one transaction. */
    async submit(tenant: Tenant, sessionId: string, input: SubmitInput) {
      await working(tenant, sessionId);
      await checkLanguage(input.language);
      return db.transaction().execute(async (tx) => {
        await sessions.lock(tx, sessionId);
        const row = await coding.mustGet(tx, tenant, sessionId);
        if ((row.status !== 'started' && row.status !== 'in_progress') || row.finalize_requested_at) throw new ApiError('session_already_finalized');
        const entry = await sessionProblem(tx, sessionId, input.problem_id);
        const allowed = (await catalog.getTest(tx, tenant.organizationId, row.test_id))!.attempts_per_problem;
        const remaining = await sessions.useAttempt(tx, sessionId, entry.problem_id, allowed);
        if (remaining === null) throw new ApiError('attempts_exhausted', { param: 'problem_id', message: `All ${allowed} attempts at this problem are used.` });
        await markInProgress(tx, row);
        const now = clock.now();
        const submission: CodingSubmissionsTable = {
          id: newId(), organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), session_id: sessionId,
          problem_id: entry.problem_id, language: input.language, source: input.source, status: 'queued', verdict: 'PENDING', results: null,
          cases_passed: 0, cases_total: 0, hidden_passed: 0, hidden_total: 0, large_time_ms: null, max_time_ms: null, max_memory_kb: null,
          error: null, created_at: now, updated_at: now, judged_at: null,
        };
        await repo.insert(tx, submission);
        await queue.enqueue(tx, JUDGE_JOB, { submission_id: submission.id }, { uniqueKey: `${JUDGE_JOB}:${submission.id}`, maxAttempts: 20, organizationId: tenant.organizationId });
        return { submission, remaining };
      });
    },

    async listSubmissions(tenant: Tenant, sessionId: string, problemId: string, page: PageRequest) {
      await coding.mustGet(db, tenant, sessionId);
      await sessionProblem(db, sessionId, problemId);
      const [result, total] = await Promise.all([repo.listForProblem(tenant, sessionId, problemId, page), repo.countForProblem(tenant, sessionId, problemId)]);
      return { page: result, total };
    },

    async getSubmission(tenant: Tenant, sessionId: string, id: string) {
      await coding.mustGet(db, tenant, sessionId);
      const row = await repo.get(tenant, sessionId, id);
      if (!row) throw notFound('submission', id);
      return row;
    },

    /** The judge job: every example and hidden case, then the reference timing the report compares with. */
    async judge(submissionId: string, finalAttempt: boolean): Promise<void> {
      const submission = await repo.byId(submissionId);
      if (!submission) return;
      if (submission.status === 'judged' || submission.status === 'error') {
        // Judged by an earlier run that failed after (measuring the reference): its session may still wait for it.
        await completeWhenJudged(submission.session_id);
        return;
      }
      await repo.update(submission.id, { status: 'running', updated_at: clock.now() });
      const problem = (await repo.problem(submission.problem_id))!;
      const hidden = JSON.parse(problem.hidden_cases) as HiddenCase[];
      const examples = exampleCases(problem);
      let execution;
      try {
        execution = await sandbox.execute({
          language: submission.language, source: submission.source, comparator: problem.comparator, priority: 'batch', budgetMs: judgeBudgetMs, keepOutput: false,
          limits: { timeLimitMs: problem.time_limit_ms, memoryLimitMb: problem.memory_limit_mb },
          cases: judgeCases(problem),
        });
      } catch (error) {
        // Busy (every slot taken for the whole budget) or a launch fault: queued again and retried.
        if (error instanceof SandboxUnavailableError || finalAttempt) {
          await settleSubmission(submission, { status: 'error', error: (error as Error).message.slice(0, 500), updated_at: clock.now() });
          await completeWhenJudged(submission.session_id);
          return;
        }
        await repo.update(submission.id, { status: 'queued', updated_at: clock.now() });
        throw error;
      }
      const largeNames = new Set(hidden.filter((c) => c.large).map((c) => c.name));
      const cases: SubmissionResults['cases'] = execution.cases.map((c) => ({
        name: c.name, kind: c.name.startsWith('example-') ? 'example' : 'hidden', large: largeNames.has(c.name),
        verdict: c.verdict, passed: c.verdict === 'ACCEPTED', time_ms: c.timeMs,
      }));
      const compileFailed = execution.compile !== null && !execution.compile.ok;
      const hiddenResults = cases.filter((c) => c.kind === 'hidden');
      const firstFailure = cases.find((c) => !c.passed);
      const large = cases.filter((c) => c.large && c.passed);
      // The candidate sees the examples' time and memory only: a hidden case's would tell of its input.
      const shown = execution.cases.filter((c) => c.name.startsWith('example-'));
      const now = clock.now();
      // The verdict and the problem's `scored` mark commit together: a judge stopped between them left its job to run
      // again, which finds the submission judged and would never mark the problem.
      await settleSubmission(submission, {
        status: 'judged',
        verdict: compileFailed ? 'COMPILE_ERROR' : firstFailure?.verdict ?? 'ACCEPTED',
        results: JSON.stringify({ compile: execution.compile ? { ok: execution.compile.ok, output: execution.compile.output } : null, cases } satisfies SubmissionResults),
        cases_passed: cases.filter((c) => c.passed).length, cases_total: examples.length + hidden.length,
        hidden_passed: hiddenResults.filter((c) => c.passed).length, hidden_total: hidden.length,
        large_time_ms: large.length > 0 && large.length === largeNames.size ? large.reduce((sum, c) => sum + (c.time_ms ?? 0), 0) : null,
        max_time_ms: shown.length ? Math.max(...shown.map((c) => c.timeMs)) : null,
        max_memory_kb: shown.length ? Math.max(...shown.map((c) => c.memoryKb)) : null,
        judged_at: now, updated_at: now,
      }, (tx) => sessions.markScored(tx, submission.session_id, submission.problem_id));
      await ensureReferenceTiming(problem, submission.language);
      await completeWhenJudged(submission.session_id);
    },

    /**
     * A submission whose judge died on every attempt, or whose last attempt failed outside judging (a database error
     * marking it running or writing its verdict): an error, as a judge that failed on its last attempt leaves it, rather
     * than `running` for ever; then its finished session completes.
     */
    async abandonJudging(submissionId: string, reason = 'judging stopped: its worker stopped on every attempt'): Promise<void> {
      const submission = await repo.byId(submissionId);
      if (!submission) return;
      if (submission.status === 'judged' || submission.status === 'error') return completeWhenJudged(submission.session_id);
      await settleSubmission(submission, { status: 'error', error: reason, updated_at: clock.now() });
      await completeWhenJudged(submission.session_id);
    },

    /**
     * The candidate is done: no more work is taken, and the session is scored in the background. Also whether the
     * report is written yet (a timed-out session's may not be).
     */
    async finalize(tenant: Tenant, sessionId: string): Promise<{ row: CodingSessionsTable; reportReady: boolean }> {
      const row = await coding.finalize(tenant, sessionId);
      return { row, reportReady: await sessions.hasReport(sessionId) };
    },

    complete,

    /**
     * The completion job failed for good (see lifecycle.giveUpCompletion): a session with every submission settled is
     * completed without the model's reviews (each null, as when the model did not answer), the slow part of its work.
     */
    giveUpCompletion: (sessionId: string) => coding.giveUpCompletion(sessionId, () => repo.unjudged(db, sessionId), (id) => complete(id, { review: false })),

    report: (tenant: Tenant, sessionId: string) => coding.storedReport<ReturnType<typeof buildReport>>(tenant, sessionId),
  };
}

export type JudgingService = ReturnType<typeof createJudgingService>;

/** Judging's background work: judge a submission; complete a finished session once every submission is judged. */
export function judgingJobs(judging: JudgingService): JobHandler[] {
  return [
    {
      kind: JUDGE_JOB,
      retryDelaysSeconds: [2, 10, 30, 60],
      run: async (payload, job) => {
        const submissionId = (payload as { submission_id: string }).submission_id;
        const finalAttempt = job.attempts >= job.max_attempts;
        try {
          await judging.judge(submissionId, finalAttempt);
        } catch (error) {
          // The last attempt failed where judging records nothing (a database error before the sandbox or writing the
          // verdict, measuring the reference): settled in error (a verdict written stays) and the session completed,
          // best effort, rather than the submission left `running` and its session waiting for ever.
          if (finalAttempt) await judging.abandonJudging(submissionId, 'judging stopped: its last attempt failed (an internal error)').catch(() => undefined);
          throw error;
        }
      },
      abandoned: (payload) => judging.abandonJudging((payload as { submission_id: string }).submission_id),
    },
    completionJob(COMPLETE_JOB, judging),
  ];
}
