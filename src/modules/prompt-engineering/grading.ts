import type { Kysely } from 'kysely';
import type { Limiter } from '../../platform/limiter.js';
import { ModelError, type TextModel } from '../../ai/model.js';
import type { Database, PromptAttemptOutputsTable, PromptAttemptsTable } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import { SandboxBusyError, SandboxUnavailableError, type ExecuteRequest, type Sandbox } from '../../sandbox/sandbox.js';
import { head } from '../../platform/text.js';
import { applyNegation, CHECKER_VALUE_FILE, checkLocal, clip, comparable, type CompiledAssertion, type Verdict } from './assertions.js';
import type { PromptCatalog, PromptTask } from './catalog.js';
import type { PromptRepo } from './repo.js';
import { hiddenScore, tally } from './points.js';
import { askRubric } from './rubric.js';
import { RENDERED_MAX_BYTES, renderedBytes, renderPrompt } from './template.js';

export interface AssertionOutcome {
  type: string;
  weight: number;
  passed: boolean;
  reason: string;
}

export interface CaseResult {
  name: string;
  kind: 'sample' | 'hidden';
  passed: boolean;
  points: number;
  points_possible: number;
  /** Sample cases only. */
  vars?: Record<string, string>;
  /** Sample cases only. */
  rendered_prompt?: string;
  output: string;
  output_truncated: boolean;
  assertions: AssertionOutcome[];
  latency_ms: number;
  input_tokens: number | null;
  output_tokens: number | null;
}

export interface AttemptResults {
  cases: CaseResult[];
}

/** An attempt the grader cannot grade however often it tries (no checker can run, the task is gone). */
class GradingFailure extends Error {}

export const GRADE_JOB = 'prompt_engineering.grade';
/** The longest a single model call of grading may take (the configured model timeout applies when shorter). A failed call
 * is not retried in place: the job is, later, and asks only for the cases still missing. */
const CALL_TIMEOUT_MS = 30_000;
const OUTPUT_KEPT = 32 * 1024;
const OUTPUT_FLUSH_MS = 1000;
const CHECKER_LIMITS = { timeLimitMs: 1000, memoryLimitMb: 256 };
export const NO_MODEL_REASON = 'No model is configured on this server (PREP_MODEL_BASE_URL and PREP_MODEL_NAME), so the prompt was not run: no output exists to check. Prompt craft was analysed.';

/** One output for a checker: on its stdin, with the assertion's value (if any) as value.json beside the program. */
export interface CheckerInput {
  name: string;
  input: string;
  value?: unknown;
}

/**
 * The checker program inside a harness that makes an uncaught exception exit 2 (Python exits 1, which is the
 * checker's "rejected", so a checker that crashed on an output would have kept a `not-sandbox` guard). `sys.exit`
 * passes through: exit 0 and 1 stay the checker's verdict. The program is embedded in base64, so no text of it can
 * close the string, and compiled as `checker.py`, which its tracebacks name.
 */
function crashExitsTwo(source: string): string {
  return [
    'import base64 as _b64, os as _os, sys as _sys, traceback as _tb',
    'def _crashed(kind, error, trace):',
    '    try:',
    '        _tb.print_exception(kind, error, trace)',
    '        _sys.stdout.write("\\nthe checker crashed (" + kind.__name__ + ")\\n")',
    '        _sys.stdout.flush()',
    '    except BaseException:',
    '        pass',
    '    _os._exit(2)',
    '_sys.excepthook = _crashed',
    '_sys.argv[0] = "checker.py"',
    `_code = compile(_b64.b64decode("${Buffer.from(source, 'utf8').toString('base64')}"), "checker.py", "exec")`,
    'exec(_code, {"__name__": "__main__", "__file__": "checker.py", "__builtins__": __builtins__})',
    '',
  ].join('\n');
}

/** A checker program's run in the sandbox over outputs. */
export function checkerRun(source: string, runs: CheckerInput[]): ExecuteRequest {
  return {
    language: 'python', source: crashExitsTwo(source), comparator: 'exact', priority: 'batch', limits: CHECKER_LIMITS, stdoutBytes: 64 * 1024, budgetMs: 60_000,
    cases: runs.map((r) => ({ name: r.name, input: r.input, ...(r.value === undefined ? {} : { files: [{ name: CHECKER_VALUE_FILE, content: JSON.stringify(r.value) }] }) })),
  };
}

/** What went wrong, in words that quote nothing a model server sent (see ModelError.summary). */
function failureSummary(error: unknown): string {
  if (error instanceof ModelError) return error.summary;
  return error instanceof Error && error.name === 'TimeoutError' ? 'it did not answer in time' : 'the call failed';
}

export interface GraderDeps {
  db: Kysely<Database>;
  clock: Clock;
  repo: PromptRepo;
  catalog: PromptCatalog;
  model: TextModel | null;
  sandbox: Sandbox;
  /** Bounds the model calls of this process (grading and rubrics alike). */
  limit: Limiter;
}

/**
 * The grading job of one attempt: the prompt rendered per case and sent to the model (outputs saved along the way
 * when the attempt is slow or fails, so a grader that dies mid-attempt is followed by one that asks only for what is
 * missing), every output checked by its case's assertions, and the result written once. No database lock is held across a model call.
 */
export function createGrader(deps: GraderDeps) {
  const { db, clock, repo, catalog, model, sandbox, limit } = deps;

  /**
   * Saves outputs in batches, each at most OUTPUT_FLUSH_MS after its first row arrived: a grader that dies loses at
   * most that much of the model's work. An attempt graded sooner writes none separately (its result holds them);
   * one that fails writes what it has, for the retry.
   */
  function outputWriter() {
    let pending: PromptAttemptOutputsTable[] = [];
    let timer: NodeJS.Timeout | null = null;
    let writing: Promise<void> = Promise.resolve();
    let failure: unknown = null;
    const flush = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (pending.length === 0) return;
      const rows = pending;
      pending = [];
      writing = writing.then(() => repo.saveOutputs(db, rows)).then(() => undefined, (error) => void (failure ??= error));
    };
    return {
      add(row: PromptAttemptOutputsTable) {
        pending.push(row);
        timer ??= setTimeout(flush, OUTPUT_FLUSH_MS);
      },
      /** `keep`: write what is pending (the grading failed and will be retried); otherwise drop it. */
      async done(keep: boolean) {
        if (keep) flush();
        else if (timer) clearTimeout(timer);
        timer = null;
        pending = [];
        await writing;
        if (failure && keep) throw failure;
      },
    };
  }

  /** Every case's output: those saved by an earlier grader of this attempt, and the model's answers for the rest. */
  async function outputsFor(attempt: PromptAttemptsTable, task: PromptTask, m: TextModel, retry: boolean, writer: ReturnType<typeof outputWriter>, unrun: ReadonlySet<string>): Promise<Map<string, PromptAttemptOutputsTable>> {
    const saved = new Map(retry ? (await repo.outputs(db, attempt.id)).map((o) => [o.case_name, o]) : []);
    const missing = task.cases.filter((c) => !saved.has(c.name) && !unrun.has(c.name));
    // Once a case has failed this try fails: the cases still waiting for a model slot are not sent (the retry asks for
    // every case still missing), so a model that is down is asked once a try, not once a case.
    let failed: { error: unknown } | null = null;
    const settled = await Promise.allSettled(missing.map((c) => limit(async () => {
      if (failed) throw failed.error;
      const reply = await m.complete({ user: renderPrompt(attempt.prompt, c.vars) }, { maxOutputTokens: task.definition.max_output_tokens, timeoutMs: CALL_TIMEOUT_MS, retries: 0 })
        .catch((error: unknown) => {
          failed ??= { error };
          throw error;
        });
      const row: PromptAttemptOutputsTable = {
        attempt_id: attempt.id, case_name: c.name, output: reply.text, input_tokens: reply.inputTokens, output_tokens: reply.outputTokens,
        latency_ms: reply.latencyMs, created_at: clock.now(),
      };
      saved.set(c.name, row);
      writer.add(row);
    })));
    const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => s.reason as unknown);
    // A request the model server refuses (a prompt too long for it) is refused again on every retry: failed now.
    const refused = failures.find((e) => e instanceof ModelError && e.refused);
    if (refused) throw new GradingFailure(`the model did not answer: ${failureSummary(refused)}`);
    if (failures.length > 0) throw new Error(`the model did not answer: ${failureSummary(failures[0])}`);
    return saved;
  }

  /** Runs each checker program once over every output it checks (with each assertion's value as value.json). */
  async function sandboxVerdicts(task: PromptTask, outputs: Map<string, PromptAttemptOutputsTable>): Promise<Map<string, Verdict>> {
    const byProgram = new Map<string, CheckerInput[]>();
    for (const c of task.cases) {
      if (!outputs.has(c.name)) continue; // not run
      c.assertions.forEach((a, i) => {
        if (a.kind !== 'sandbox') return;
        const runs = byProgram.get(a.program) ?? [];
        runs.push({ name: `${c.name}\u0000${i}`, input: outputs.get(c.name)!.output, value: a.value });
        byProgram.set(a.program, runs);
      });
    }
    const verdicts = new Map<string, Verdict>();
    for (const [program, runs] of byProgram) {
      let execution;
      try {
        execution = await sandbox.execute(checkerRun(task.definition.checkers[program]!, runs));
      } catch (error) {
        if (error instanceof SandboxUnavailableError) throw new GradingFailure(`the code sandbox is unavailable on this server, so the checker programs cannot run: ${error.message}`);
        throw error;
      }
      for (const r of execution.cases) {
        const said = r.stdout.toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean).at(-1);
        // Exit 0 or 1 is the checker's verdict. A checker stopped (time, memory, output, a signal: the model's code can
        // kill its parent) or exiting otherwise decided nothing, and fails the assertion negated or not.
        const decided = r.verdict === 'COMPLETED' || (r.verdict === 'RUNTIME_ERROR' && r.exitCode === 1 && r.signal === 0);
        const reason = r.verdict === 'COMPLETED' ? said ?? 'the checker accepted the output'
          : decided ? said ?? 'the checker rejected the output (exit code 1)'
            : r.verdict === 'RUNTIME_ERROR' ? said ?? `the checker stopped without a verdict (${r.signal ? `signal ${r.signal}` : `exit code ${r.exitCode}`})`
              : `the checker did not finish on this output (${r.verdict.toLowerCase().replaceAll('_', ' ')})`;
        verdicts.set(r.name, { passed: r.verdict === 'COMPLETED', reason: clip(reason), ...(decided ? {} : { undecided: true }) });
      }
    }
    return verdicts;
  }

  async function check(task: PromptTask, outputs: Map<string, PromptAttemptOutputsTable>, m: TextModel, prompt: string): Promise<CaseResult[]> {
    const checked = await sandboxVerdicts(task, outputs);
    // One rubric that fails fails the try: the rubric calls still waiting for a model slot are then not sent.
    let failed: { error: unknown } | null = null;
    const rubric = (criterion: string, output: string) => limit(async () => {
      if (failed) throw failed.error; // the same failure: whichever reaches Promise.all first, it reports that one
      return askRubric(m, criterion, output, CALL_TIMEOUT_MS).catch((error: unknown) => {
        failed ??= { error };
        throw error;
      });
    });
    return Promise.all(task.cases.map(async (c) => {
      const out = outputs.get(c.name);
      if (!out) return unrunCase(c);
      const text = comparable(out.output);
      const outcomes = await Promise.all(c.assertions.map(async (a: CompiledAssertion, i): Promise<AssertionOutcome> => {
        const verdict = a.kind === 'local' ? checkLocal(a, text)
          : a.kind === 'sandbox' ? checked.get(`${c.name}\u0000${i}`)!
            : await rubric(a.criterion, out.output).catch((error: unknown) => {
              // The candidate reads this error: it must not quote a server that echoes the request (a hidden output).
              throw error instanceof ModelError || (error as Error)?.name === 'TimeoutError' ? new Error(`the model did not answer a rubric: ${failureSummary(error)}`) : error;
            });
        return { type: a.type, weight: a.weight, ...applyNegation(a, verdict) };
      }));
      const t = tally(outcomes);
      return {
        name: c.name, kind: c.kind, passed: t.passed, points: t.points, points_possible: t.possible,
        // A hidden case's input is kept out of the stored results: only its output and verdicts are.
        ...(c.kind === 'sample' ? { vars: c.vars, rendered_prompt: renderPrompt(prompt, c.vars) } : {}), output: head(out.output, OUTPUT_KEPT), output_truncated: out.output.length > OUTPUT_KEPT,
        assertions: outcomes, latency_ms: out.latency_ms, input_tokens: out.input_tokens, output_tokens: out.output_tokens,
      };
    }));
  }

  /**
   * A hidden case the prompt is too long to run on once its values are in (submission checks the sample cases only,
   * so as to tell nothing of hidden values): each assertion fails, and nothing was spent on it.
   */
  function unrunCase(c: PromptTask['cases'][number]): CaseResult {
    const reason = `not run: with this case's values in it the prompt is over ${RENDERED_MAX_BYTES / 1024} KiB`;
    const outcomes = c.assertions.map((a) => ({ type: a.type, weight: a.weight, passed: false, reason }));
    const t = tally(outcomes);
    return {
      name: c.name, kind: c.kind, passed: t.passed, points: t.points, points_possible: t.possible, output: '', output_truncated: false,
      assertions: outcomes, latency_ms: 0, input_tokens: 0, output_tokens: 0,
    };
  }

  async function fail(attempt: PromptAttemptsTable, message: string): Promise<void> {
    const now = clock.now();
    await repo.settle(attempt.id, ['queued', 'running'], { status: 'error', error: clip(message, 500), model: model?.id ?? null, updated_at: now, graded_at: now });
  }

  /** Grades a claimed attempt: graded or in error, or throws for the queue to retry. */
  async function gradeClaimed(attempt: PromptAttemptsTable, options: { retry: boolean; finalAttempt: boolean }): Promise<void> {
    const { retry, finalAttempt } = options;
    const task = await catalog.task(attempt.task_id);
    if (!task) return fail(attempt, 'the task of this attempt no longer exists');
    if (!model) {
      const now = clock.now();
      await repo.settle(attempt.id, ['queued', 'running'], {
        status: 'graded', execution: 'unavailable', execution_reason: NO_MODEL_REASON, results: JSON.stringify({ cases: [] } satisfies AttemptResults),
        updated_at: now, graded_at: now,
      });
      return;
    }
    let cases: CaseResult[];
    const writer = outputWriter();
    try {
      const unrun = new Set(task.cases.filter((c) => c.kind === 'hidden' && renderedBytes(attempt.prompt, c.vars) > RENDERED_MAX_BYTES).map((c) => c.name));
      cases = await check(task, await outputsFor(attempt, task, model, retry, writer, unrun), model, attempt.prompt);
      await writer.done(false);
    } catch (error) {
      await writer.done(true).catch(() => undefined); // the outputs so far, for the retry
      const message = error instanceof ModelError ? `the model did not answer: ${error.summary}` : (error as Error).message;
      if (error instanceof GradingFailure || finalAttempt) return fail(attempt, message);
      if (!(error instanceof SandboxBusyError)) await repo.transition(attempt.id, ['running'], { error: clip(message, 500), updated_at: clock.now() });
      throw error; // retried by the queue; the outputs saved so far are kept
    }
    const score = hiddenScore(cases);
    const sum = (pick: (c: CaseResult) => number | null) => cases.reduce<number | null>((s, c) => (s === null || pick(c) === null ? null : s + pick(c)!), 0);
    const now = clock.now();
    // From queued or running only: a second grader that finished later changes nothing.
    await repo.settle(attempt.id, ['queued', 'running'], {
      status: 'graded', execution: 'executed', execution_reason: null, results: JSON.stringify({ cases } satisfies AttemptResults),
      score: score.score, hidden_passed: score.passed, hidden_total: score.total, model: model.id,
      input_tokens: sum((c) => c.input_tokens), output_tokens: sum((c) => c.output_tokens), latency_ms: sum((c) => c.latency_ms),
      error: null, updated_at: now, graded_at: now,
    });
  }

  return {
    /**
     * An attempt whose grader died on every try, or whose last try failed outside grading (a database error claiming it
     * or writing its result): an error, as a grader that failed on its last try leaves it, rather than `running` for ever.
     * Resolves with its session (null when it is gone).
     */
    async abandon(attemptId: string, reason = 'grading stopped: its worker stopped on every try'): Promise<string | null> {
      const now = clock.now();
      await repo.settle(attemptId, ['queued', 'running'], {
        status: 'error', error: reason, model: model?.id ?? null, updated_at: now, graded_at: now,
      });
      return repo.sessionOf(attemptId);
    },

    /**
     * `retry`: an earlier run of this job may have saved some outputs; `finalAttempt`: the last run the queue allows.
     * Resolves with the attempt's session once the attempt is settled (graded or in error), null when it is gone.
     */
    async grade(attemptId: string, options: { retry: boolean; finalAttempt: boolean }): Promise<string | null> {
      const attempt = await repo.claim(attemptId, clock.now());
      // Settled by an earlier run of this job whose worker died before completing the session: its session may still wait.
      if (!attempt) return repo.sessionOf(attemptId);
      await gradeClaimed(attempt, options);
      return attempt.session_id;
    },
  };
}

export type Grader = ReturnType<typeof createGrader>;
