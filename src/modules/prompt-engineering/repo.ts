import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { preparedStatement } from '../../db/prepared.js';
import type { Database, PromptAttemptOutputsTable, PromptAttemptsTable, PromptEngineeringSessionsTable } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';
import { createAssessmentRepo } from '../assessments/repo.js';

/** Prompt-engineering sessions (the shared lifecycle's SQL), attempts with their case outputs, and reports. */
/** Stored JSON with every text of the candidate's own (or quoting it) emptied: outputs, rendered prompts, reasons, span texts, advice. */
function withoutTexts(json: string): string {
  return JSON.stringify(JSON.parse(json), (key, value: unknown) => (['output', 'rendered_prompt', 'reason', 'text', 'advice'].includes(key) && typeof value === 'string' ? '' : value));
}

export function createPromptRepo(database: Db) {
  const db = database.kysely;
  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1, sessionId: string, taskId: string) =>
    db.selectFrom('prompt_attempts').selectAll().where('organization_id', '=', organizationId).where('livemode', '=', livemode)
      .where('session_id', '=', sessionId).where('task_id', '=', taskId));
  const scoped = (tenant: Tenant, sessionId: string) => db.selectFrom('prompt_attempts')
    .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).where('session_id', '=', sessionId);

  // The grader's statements, compiled once: the transition per set of columns it changes and states it moves from.
  const transitions = new Map<string, ReturnType<typeof transitionStatement>>();
  const transitionStatement = (from: PromptAttemptsTable['status'][], columns: Array<keyof PromptAttemptsTable>) => preparedStatement(database, (id: string, ...values: unknown[]) =>
    db.updateTable('prompt_attempts').set(Object.fromEntries(columns.map((c, i) => [c, values[i]])) as Partial<PromptAttemptsTable>)
      .where('id', '=', id).where('status', 'in', from).returning('id'));
  const transitionOf = (from: PromptAttemptsTable['status'][], columns: Array<keyof PromptAttemptsTable>) => {
    const key = `${from.join()}:${columns.join()}`;
    let statement = transitions.get(key);
    if (!statement) transitions.set(key, (statement = transitionStatement(from, columns)));
    return statement;
  };
  const claim = preparedStatement(database, (id: string, now: number) => db.updateTable('prompt_attempts').set({ status: 'running', updated_at: now })
    .where('id', '=', id).where('status', 'in', ['queued', 'running']).returningAll());

  const sessions = createAssessmentRepo<PromptEngineeringSessionsTable>(database, { kind: 'prompt_engineering', sessions: 'prompt_engineering_sessions', reports: 'prompt_engineering_reports' });
  return {
    sessions,

    insertAttempt: (tx: Kysely<Database>, row: PromptAttemptsTable) => tx.insertInto('prompt_attempts').values(row).execute(),
    /**
     * Erasure: what the person wrote goes (their prompts, the outputs those produced, every quote of either in the
     * results and the craft spans); the attempts stay with their scores, verdicts and counts. Attempts not graded yet
     * keep theirs until the grader, which finds the session anonymous under its lock (`settle`), stores its result
     * without them: the session is scored as it would have been.
     */
    async eraseAttemptTexts(tx: Kysely<Database>, sessionIds: string[]): Promise<void> {
      const attempts = await tx.selectFrom('prompt_attempts').select(['id', 'results', 'craft']).where('session_id', 'in', sessionIds)
        .where('status', 'in', ['graded', 'error']).execute();
      if (attempts.length === 0) return;
      await tx.deleteFrom('prompt_attempt_outputs').where('attempt_id', 'in', attempts.map((a) => a.id)).execute();
      for (const a of attempts) {
        await tx.updateTable('prompt_attempts').set({ prompt: '', results: a.results === null ? null : withoutTexts(a.results), craft: withoutTexts(a.craft) })
          .where('id', '=', a.id).execute();
      }
    },
    get: (tenant: Tenant, sessionId: string, id: string) => scoped(tenant, sessionId).selectAll().where('id', '=', id).executeTakeFirst(),
    /** Oldest first: pass an ascending page request. */
    listForTask: (tenant: Tenant, sessionId: string, taskId: string, page: PageRequest) => pageOf(page, tenant.organizationId, livemodeFlag(tenant), sessionId, taskId),
    async countForTask(tenant: Tenant, sessionId: string, taskId: string): Promise<number> {
      const row = await scoped(tenant, sessionId).select((eb) => eb.fn.countAll<number>().as('n')).where('task_id', '=', taskId).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Attempts at a task: those the grader could not grade (`errors`) apart from the rest. */
    async attemptsAt(tx: Kysely<Database>, sessionId: string, taskId: string): Promise<{ counted: number; errors: number }> {
      const rows = await tx.selectFrom('prompt_attempts').select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('session_id', '=', sessionId).where('task_id', '=', taskId).groupBy('status').execute();
      const errors = Number(rows.find((r) => r.status === 'error')?.n ?? 0);
      return { counted: rows.reduce((s, r) => s + Number(r.n), 0) - errors, errors };
    },
    forSession: (tx: Kysely<Database>, sessionId: string) => tx.selectFrom('prompt_attempts').selectAll()
      .where('session_id', '=', sessionId).orderBy('id').execute(),
    async ungraded(tx: Kysely<Database>, sessionId: string): Promise<number> {
      const row = await tx.selectFrom('prompt_attempts').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('session_id', '=', sessionId).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Moves an attempt on only from the states given (so a second grader never overwrites the first); run on its own. */
    async transition(id: string, from: PromptAttemptsTable['status'][], changes: Partial<PromptAttemptsTable>): Promise<boolean> {
      const columns = Object.keys(changes) as Array<keyof PromptAttemptsTable>;
      return (await transitionOf(from, columns).run(id, ...columns.map((c) => changes[c]))).length === 1;
    },

    /**
     * A grader's last word on an attempt (graded or in error), from the states given, under its session's lock: when
     * the candidate has been erased (before, or while it was graded), without their prompt, its outputs or any quote.
     */
    async settle(id: string, from: PromptAttemptsTable['status'][], changes: Partial<PromptAttemptsTable>): Promise<boolean> {
      return db.transaction().execute(async (tx) => {
        const attempt = await tx.selectFrom('prompt_attempts').select(['session_id', 'craft']).where('id', '=', id).executeTakeFirst();
        if (!attempt) return false;
        let set = changes;
        if (await sessions.erasedLocked(tx, attempt.session_id)) {
          await tx.deleteFrom('prompt_attempt_outputs').where('attempt_id', '=', id).execute();
          set = { ...changes, prompt: '', craft: withoutTexts(attempt.craft), ...(changes.results ? { results: withoutTexts(changes.results) } : {}) };
        }
        const r = await tx.updateTable('prompt_attempts').set(set).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
        return Number(r.numUpdatedRows) === 1;
      });
    },

    sessionOf: async (attemptId: string) => (await db.selectFrom('prompt_attempts').select('session_id').where('id', '=', attemptId).executeTakeFirst())?.session_id ?? null,
    /** Takes an attempt for grading (queued, or running under a grader that died): the row, or nothing to do. */
    claim: async (id: string, now: number) => (await claim.run(id, now))[0],
    outputs: (tx: Kysely<Database>, attemptId: string) => tx.selectFrom('prompt_attempt_outputs').selectAll().where('attempt_id', '=', attemptId).execute(),
    /** Keeps the first output of a case: a second grader's copy of the same case is dropped. */
    saveOutputs: (tx: Kysely<Database>, rows: PromptAttemptOutputsTable[]) => tx.insertInto('prompt_attempt_outputs').values(rows)
      .onConflict((oc) => oc.columns(['attempt_id', 'case_name']).doNothing()).execute(),

  };
}

export type PromptRepo = ReturnType<typeof createPromptRepo>;
