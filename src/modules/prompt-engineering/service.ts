import type { Kysely } from 'kysely';
import type { Database, PromptAttemptsTable, PromptEngineeringSessionsTable } from '../../db/schema.js';
import type { JobHandler } from '../../jobs/worker.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { completionJob, createLifecycle, type AssessmentKind, type LifecycleDeps } from '../assessments/lifecycle.js';
import type { PromptAssessment, PromptCatalog, PromptTask } from './catalog.js';
import { attemptsUsed, attemptsUsedOf } from './content.js';
import { analyseCraft } from './craft.js';
import { GRADE_JOB, type Grader } from './grading.js';
import type { PromptRepo } from './repo.js';
import { buildReport, type PromptReport } from './report.js';
import { missingVariables, RENDERED_MAX_BYTES, renderedBytes } from './template.js';

export const PROMPT_MAX_BYTES = 16 * 1024;

export interface AssignInput {
  candidate_id: string;
  prompt_engineering_assessment_id: string;
}

import type { Emit } from '../webhooks/service.js';

export interface SessionDetail {
  row: PromptEngineeringSessionsTable;
  assessment: PromptAssessment;
  /** Per task: attempts that count against the budget, and the best score so far. */
  progress: Map<string, { used: number; best: number | null }>;
}

/** Refuses a prompt that is not well-formed UTF-8, over 16 KiB, missing a variable, or too large once rendered. */
function checkPrompt(prompt: string, task: PromptTask): void {
  const refuse = (message: string) => new ApiError('parameter_invalid', { param: 'prompt', message });
  if (!prompt.isWellFormed()) throw refuse('The prompt holds text that is not valid Unicode (an unpaired surrogate).');
  if (Buffer.byteLength(prompt) > PROMPT_MAX_BYTES) throw refuse(`A prompt is at most ${PROMPT_MAX_BYTES} bytes (16 KiB) of UTF-8.`);
  const missing = missingVariables(prompt, task.definition.variables);
  if (missing.length > 0) throw refuse(`The prompt must use every variable of the task; it leaves out ${missing.map((v) => `{{${v}}}`).join(', ')}.`);
  // The sample cases only: checked on hidden ones, a free refusal would tell the length of their values.
  const largest = task.cases.filter((c) => c.kind === 'sample').reduce((max, c) => Math.max(max, renderedBytes(prompt, c.vars)), 0);
  if (largest > RENDERED_MAX_BYTES) {
    throw refuse(`With a sample case's values in it the prompt would be ${Math.ceil(largest / 1024)} KiB; at most ${RENDERED_MAX_BYTES / 1024} KiB (use each variable once or a few times).`);
  }
}

/** Prompt-engineering assessments on the shared lifecycle: attempts graded in the background, a report at the end. */
export function createPromptEngineeringService(deps: LifecycleDeps & { repo: PromptRepo; catalog: PromptCatalog; grader: Grader; emit: Emit }) {
  const { db, clock, repo, catalog, queue, emit } = deps;
  const sessions = repo.sessions;

  async function assessmentOf(tx: Kysely<Database>, row: PromptEngineeringSessionsTable): Promise<PromptAssessment> {
    const assessment = await catalog.get(tx, row.organization_id, row.test_id);
    if (!assessment) throw new Error(`prompt-engineering assessment ${row.test_id} is missing`);
    return assessment;
  }

  async function detail(tx: Kysely<Database>, row: PromptEngineeringSessionsTable): Promise<SessionDetail> {
    const assessment = await assessmentOf(tx, row);
    const attempts = await tx.selectFrom('prompt_attempts').select(['task_id', 'status', 'score']).where('session_id', '=', row.id).execute();
    const progress = new Map(assessment.tasks.map((t) => {
      const mine = attempts.filter((a) => a.task_id === t.id);
      const scores = mine.filter((a) => a.status === 'graded' && a.score !== null).map((a) => a.score!);
      return [t.id, { used: attemptsUsedOf(mine.map((a) => a.status)), best: scores.length ? Math.max(...scores) : null }];
    }));
    return { row, assessment, progress };
  }

  const kind: AssessmentKind<PromptEngineeringSessionsTable, PromptAssessment, SessionDetail, AssignInput> = {
    kind: 'prompt_engineering', module: 'prompt_engineering', credit: 'prompt_engineering', noun: 'prompt-engineering session',
    testParam: 'prompt_engineering_assessment_id', repo: sessions,
    test: (tx, organizationId, id) => catalog.get(tx, organizationId, id),
    newRow: (shared) => ({ ...shared, finalize_requested_at: null }),
    detail,
    eraseSessions: (tx, sessionIds) => repo.eraseAttemptTexts(tx, sessionIds),
  };
  const lifecycle = createLifecycle(deps, kind);

  /** A session open for work: started, not due, not finalized. */
  function assertWorking(row: PromptEngineeringSessionsTable): void {
    lifecycle.assertStarted(row);
    if (row.finalize_requested_at !== null) throw new ApiError('session_already_finalized');
  }

  function taskOf(assessment: PromptAssessment, taskId: string): PromptTask {
    const task = assessment.tasks.find((t) => t.id === taskId);
    if (!task) throw new ApiError('resource_not_found', { param: 'task_id', message: `No such task in this session: '${taskId}'.` });
    return task;
  }

  /**
   * The completion job (finalize, a timeout, or a lapsed assignment): waits, by retrying, until every attempt is
   * graded, then writes the report, completes the session and emits prompt_engineering.completed, once.
   */
  async function complete(sessionId: string): Promise<void> {
    const pending = await repo.ungraded(db, sessionId);
    if (pending > 0) throw new Error(`${pending} attempt(s) still being graded`);
    await lifecycle.completeOnce(sessionId, emit, async (tx, row, outcome, endedAt) => {
      if (outcome === 'completed' && row.finalize_requested_at === null) return null; // not finished: nothing asked for this
      const assessment = await assessmentOf(tx, row);
      const report = buildReport({
        outcome, startedAt: row.started_at, endedAt, attempts: await repo.forSession(tx, sessionId),
        proctoring: await sessions.proctoringSummary(tx, sessionId),
        tasks: assessment.tasks.map((t) => ({
          id: t.id, title: t.title, skill: t.skill, attempt_budget: t.definition.attempt_budget, pass_threshold: t.definition.pass_threshold,
          hidden_cases: t.definition.hidden_cases.length,
        })),
      });
      return {
        report,
        event: {
          execution: report.execution, overall_score: report.overall_score, craft_score: report.craft_score, tasks_passed: report.tasks_passed,
          tasks_total: report.tasks_total, summary: report.summary,
        },
      };
    });
  }

  return {
    ...lifecycle,

    listAssessments: (organizationId: string, page: PageRequest) => catalog.list(organizationId, page),
    async getAssessment(organizationId: string, id: string) {
      const found = await catalog.get(db, organizationId, id);
      if (!found) throw notFound('prompt-engineering assessment', id);
      return found;
    },

    /**
     * A prompt for one task: checked (size, every variable used), analysed for craft at once, counted against the
     * task's budget and queued for grading in the same transaction.
     */
    async submitAttempt(tenant: Tenant, sessionId: string, input: { task_id: string; prompt: string }) {
      const current = await lifecycle.settled(tenant, sessionId);
      assertWorking(current);
      const task = taskOf(await assessmentOf(db, current), input.task_id);
      checkPrompt(input.prompt, task);
      const craft = analyseCraft(input.prompt, task.definition.variables);
      return db.transaction().execute(async (tx) => {
        await sessions.lock(tx, sessionId);
        const row = await lifecycle.mustGet(tx, tenant, sessionId);
        assertWorking(row);
        const used = attemptsUsed(await repo.attemptsAt(tx, sessionId, task.id));
        const budget = task.definition.attempt_budget;
        if (used >= budget) throw new ApiError('attempts_exhausted', { param: 'task_id', message: `Every attempt at this task has been used (${budget} of ${budget}).` });
        const now = clock.now();
        const attempt: PromptAttemptsTable = {
          id: newId(), session_id: sessionId, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), task_id: task.id,
          prompt: input.prompt, status: 'queued', execution: null, execution_reason: null, results: null, score: null, hidden_passed: null,
          hidden_total: task.definition.hidden_cases.length, craft: JSON.stringify(craft), craft_score: craft.score, model: null,
          input_tokens: null, output_tokens: null, latency_ms: null, error: null, created_at: now, updated_at: now, graded_at: null,
        };
        await repo.insertAttempt(tx, attempt);
        await lifecycle.markInProgress(tx, row);
        await queue.enqueue(tx, GRADE_JOB, { attempt_id: attempt.id }, { uniqueKey: `${GRADE_JOB}:${attempt.id}`, maxAttempts: 6, organizationId: tenant.organizationId });
        return { attempt, remaining: budget - used - 1 };
      });
    },

    async listAttempts(tenant: Tenant, sessionId: string, taskId: string, page: PageRequest) {
      const assessment = await assessmentOf(db, await lifecycle.mustGet(db, tenant, sessionId));
      const task = taskOf(assessment, taskId);
      const [result, total] = await Promise.all([repo.listForTask(tenant, sessionId, taskId, page), repo.countForTask(tenant, sessionId, taskId)]);
      return { page: result, total, task };
    },

    async getAttempt(tenant: Tenant, sessionId: string, id: string) {
      const row = await lifecycle.mustGet(db, tenant, sessionId);
      const attempt = await repo.get(tenant, sessionId, id);
      if (!attempt) throw notFound('prompt attempt', id);
      const task = (await assessmentOf(db, row)).tasks.find((t) => t.id === attempt.task_id);
      return { attempt, task };
    },

    complete,

    /** The candidate is done (see lifecycle.finalize), and whether the report is written yet (a timed-out session's may not be). */
    async finalize(tenant: Tenant, sessionId: string): Promise<{ row: PromptEngineeringSessionsTable; reportReady: boolean }> {
      const row = await lifecycle.finalize(tenant, sessionId);
      return { row, reportReady: await sessions.hasReport(sessionId) };
    },

    /** A finished session whose last attempt was just settled completes now (see lifecycle.completeWhenSettled). */
    completeWhenGraded: (sessionId: string) => lifecycle.completeWhenSettled(sessionId, () => repo.ungraded(db, sessionId), complete),

    /** The completion job failed for good: a session with every attempt settled is completed once more (see lifecycle.giveUpCompletion). */
    giveUpCompletion: (sessionId: string) => lifecycle.giveUpCompletion(sessionId, () => repo.ungraded(db, sessionId), complete),

    report: (tenant: Tenant, sessionId: string) => lifecycle.storedReport<PromptReport>(tenant, sessionId,
      'The report is ready once the session has ended (finalized or timed out) and every attempt is graded.'),
  };
}

export type PromptEngineeringService = ReturnType<typeof createPromptEngineeringService>;

/** Prompt engineering's background work: the lifecycle's timeouts, grading each attempt, and completion. */
export function promptEngineeringJobs(service: PromptEngineeringService, grader: Grader): JobHandler[] {
  return [
    ...service.jobs(),
    {
      kind: GRADE_JOB,
      retryDelaysSeconds: [2, 10, 30, 60, 120],
      run: async (payload, job) => {
        const attemptId = (payload as { attempt_id: string }).attempt_id;
        const finalAttempt = job.attempts >= job.max_attempts;
        try {
          const sessionId = await grader.grade(attemptId, { retry: job.attempts > 1, finalAttempt });
          if (sessionId) await service.completeWhenGraded(sessionId);
        } catch (error) {
          // The last try failed where grading records nothing (a database error claiming the attempt, writing its result
          // or completing its session): the attempt is settled in error and its session completed, best effort (the
          // database may still be failing), rather than the attempt left `running` and its session waiting for ever.
          if (finalAttempt) {
            await grader.abandon(attemptId, 'grading stopped: its last try failed (an internal error)')
              .then(async (sessionId) => { if (sessionId) await service.completeWhenGraded(sessionId); }).catch(() => undefined);
          }
          throw error;
        }
      },
      abandoned: async (payload) => {
        const sessionId = await grader.abandon((payload as { attempt_id: string }).attempt_id);
        if (sessionId) await service.completeWhenGraded(sessionId);
      },
    },
    completionJob(service.completeJob, service),
  ];
}
