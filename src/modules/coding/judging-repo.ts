import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CodingSubmissionsTable, Database } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

/** A submission as the candidate reads it back: every column but the source (up to 64 KiB, never returned). */
export type SubmissionView = Omit<CodingSubmissionsTable, 'source'>;
const VIEW_COLUMNS = [
  'id', 'organization_id', 'livemode', 'session_id', 'problem_id', 'language', 'status', 'verdict', 'results', 'cases_passed', 'cases_total',
  'hidden_passed', 'hidden_total', 'large_time_ms', 'max_time_ms', 'max_memory_kb', 'error', 'created_at', 'updated_at', 'judged_at',
] as const satisfies ReadonlyArray<keyof SubmissionView>;

/** Submissions, reports and reference timings: the SQL of judging and scoring. */
export function createJudgingRepo(database: Db) {
  const db = database.kysely;
  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1, sessionId: string, problemId: string) =>
    db.selectFrom('coding_submissions').select(VIEW_COLUMNS).where('organization_id', '=', organizationId).where('livemode', '=', livemode)
      .where('session_id', '=', sessionId).where('problem_id', '=', problemId));
  const scoped = (tenant: Tenant, sessionId: string) => db.selectFrom('coding_submissions')
    .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).where('session_id', '=', sessionId);

  return {
    insert: (tx: Kysely<Database>, row: CodingSubmissionsTable) => tx.insertInto('coding_submissions').values(row).execute(),
    byId: (id: string) => db.selectFrom('coding_submissions').selectAll().where('id', '=', id).executeTakeFirst(),
    get: (tenant: Tenant, sessionId: string, id: string) => scoped(tenant, sessionId).select(VIEW_COLUMNS).where('id', '=', id).executeTakeFirst(),
    /** Oldest first (ids are time-ordered): pass an ascending page request. */
    listForProblem: (tenant: Tenant, sessionId: string, problemId: string, page: PageRequest) =>
      pageOf(page, tenant.organizationId, livemodeFlag(tenant), sessionId, problemId),
    async countForProblem(tenant: Tenant, sessionId: string, problemId: string): Promise<number> {
      const row = await scoped(tenant, sessionId).select((eb) => eb.fn.countAll<number>().as('n')).where('problem_id', '=', problemId).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** Every submission of a session, source included (the model's code review). */
    forSession: (tx: Kysely<Database>, sessionId: string) => tx.selectFrom('coding_submissions').selectAll()
      .where('session_id', '=', sessionId).orderBy('created_at').orderBy('id').execute(),
    /** The same without the sources (the report's input: it never shows code). */
    viewsForSession: (tx: Kysely<Database>, sessionId: string) => tx.selectFrom('coding_submissions').select(VIEW_COLUMNS)
      .where('session_id', '=', sessionId).orderBy('created_at').orderBy('id').execute(),
    async unjudged(tx: Kysely<Database>, sessionId: string): Promise<number> {
      const row = await tx.selectFrom('coding_submissions').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('session_id', '=', sessionId).where('status', 'in', ['queued', 'running']).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    update: (id: string, changes: Partial<CodingSubmissionsTable>, on: Kysely<Database> = db) => on.updateTable('coding_submissions').set(changes).where('id', '=', id).execute(),

    /** The whole problem, hidden cases and reference solutions included: for the judge only. */
    problem: (id: string) => db.selectFrom('coding_problems').selectAll().where('id', '=', id).executeTakeFirst(),

    referenceTiming: (problemId: string, language: string) => db.selectFrom('coding_reference_timings').selectAll()
      .where('problem_id', '=', problemId).where('language', '=', language).executeTakeFirst(),
    /** Every reference timing of these problems, in one statement. */
    referenceTimings: (problemIds: string[]) => problemIds.length === 0 ? Promise.resolve([])
      : db.selectFrom('coding_reference_timings').selectAll().where('problem_id', 'in', problemIds).execute(),
    saveReferenceTiming: (problemId: string, language: string, largeTimeMs: number, now: number) => db.insertInto('coding_reference_timings')
      .values({ problem_id: problemId, language, large_time_ms: largeTimeMs, measured_at: now })
      .onConflict((oc) => oc.columns(['problem_id', 'language']).doUpdateSet({ large_time_ms: largeTimeMs, measured_at: now })).execute(),

  };
}

export type JudgingRepo = ReturnType<typeof createJudgingRepo>;
