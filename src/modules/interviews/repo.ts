import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepared, preparedIn, preparedQuery, preparedStatement } from '../../db/prepared.js';
import type {
  Database, InterviewQuestionsTable, InterviewReportsTable, InterviewStatus, InterviewsTable, InterviewTurnsTable, ProctoringEventsTable,
} from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';
import { byBytes, importedStatsOwners, topicsOfQuestion } from '../question-bank/repo.js';
import { interviewStatusAsReadSql } from './states.js';
import type { PlannedProblem } from './interviewer/types.js';

/** The proctoring signal each pause of the clock records (by the server, apart from the room's own and their cap). */
export const PAUSE_SIGNAL = 'interview_paused';

export type InterviewRow = InterviewsTable;

/** Every column of a turn, in the order a compiled insert binds them. */
const TURN_COLUMNS = Object.keys({
  interview_id: 1, seq: 1, speaker: 1, kind: 1, text: 1, question_position: 1, client_id: 1, data: 1, at_ms: 1, created_at: 1,
} satisfies Record<keyof InterviewTurnsTable, 1>) as Array<keyof InterviewTurnsTable>;

/** The tenant an interview row belongs to. */
export const tenantOfRow = (row: Pick<InterviewRow, 'organization_id' | 'livemode'>): Tenant => ({ organizationId: row.organization_id, livemode: row.livemode === 1 });

/**
 * The coding problem a plan put in the editor: by its id (a slug can name an organisation's own problem, a shared one
 * and other organisations' at once); a plan made before the id was kept names it by slug, the shared one first, and
 * never another organisation's (its hidden cases and limits are its own).
 */
const plannedProblem = (problem: PlannedProblem, organizationId: string) => (eb: ExpressionBuilder<Database, 'coding_problems'>) =>
  (problem.id !== undefined ? eb('id', '=', problem.id)
    : eb.and([eb('slug', '=', problem.slug), eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)])]));
const sharedFirst = sql`case when organization_id is null then 0 else 1 end`;

/** Interviews, their plans, transcripts and reports. Every read is scoped to a tenant (another's answers nothing). */
export function createInterviewRepo(database: Db) {
  const db = database.kysely;
  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1, status?: InterviewStatus, candidateId?: string) => {
    let q = db.selectFrom('interviews').selectAll().where('organization_id', '=', organizationId).where('livemode', '=', livemode);
    if (status !== undefined) q = q.where('status', '=', status);
    if (candidateId !== undefined) q = q.where('candidate_id', '=', candidateId);
    return q;
  });
  /** The hot read of session-token operations and the channel. */
  const byId = prepared(database, (id: string, organizationId: string, livemode: 0 | 1) =>
    db.selectFrom('interviews').selectAll().where('id', '=', id).where('organization_id', '=', organizationId).where('livemode', '=', livemode));
  const lockRow = preparedIn((id: string) => db.updateTable('interviews').set({ status: sql`status` }).where('id', '=', id));
  // The conversation's statements, one exchange after another: compiled once. Its reads run on the writing connection
  // (its pages are the ones just written; a reading connection would read them back from the WAL after every commit).
  const byIdNow = preparedStatement(database, (id: string) => db.selectFrom('interviews').selectAll().where('id', '=', id));
  const turnsNow = preparedStatement(database, (id: string, afterSeq: number) => db.selectFrom('interview_turns').selectAll()
    .where('interview_id', '=', id).where('seq', '>', afterSeq).orderBy('seq'));
  const advanceFrom = preparedQuery((id: string, seenSeq: number, seenAt: number, nextSeq: number, now: number, interviewer?: string) =>
    db.updateTable('interviews')
      .set({ next_seq: nextSeq, updated_at: now, ...(interviewer === undefined ? {} : { interviewer }) })
      .where('id', '=', id).where('next_seq', '=', seenSeq).where('updated_at', '=', seenAt).where('status', '=', 'in_progress')
      .where((eb) => eb.or([eb('deadline_at', 'is', null), eb('deadline_at', '>', now)]))
      .returning('id'));
  /** A multi-row insert of turns, its values in TURN_COLUMNS order row after row: compiled once per number of rows. */
  const insertTurnRows = preparedQuery((...values: unknown[]) => db.insertInto('interview_turns').values(
    Array.from({ length: values.length / TURN_COLUMNS.length }, (_, r) =>
      Object.fromEntries(TURN_COLUMNS.map((column, c) => [column, values[r * TURN_COLUMNS.length + c]])) as unknown as InterviewTurnsTable)));

  const advanceQuery = (seen: Pick<InterviewRow, 'id' | 'next_seq' | 'updated_at'>, count: number, interviewer: string | null, now: number) =>
    advanceFrom(seen.id, seen.next_seq, seen.updated_at, seen.next_seq + count, now, interviewer ?? undefined);
  const insertTurnsQuery = (rows: InterviewTurnsTable[]) => insertTurnRows(...rows.flatMap((row) => TURN_COLUMNS.map((column) => row[column])));

  return {
    /** The plain connection, for reads outside a transaction. */
    db,
    insert: (tx: Kysely<Database>, row: InterviewRow) => tx.insertInto('interviews').values(row).execute(),
    get: (tx: Kysely<Database>, tenant: Tenant, id: string) => tx.selectFrom('interviews').selectAll()
      .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst(),
    read: async (tenant: Tenant, id: string) => (await byId(id, tenant.organizationId, livemodeFlag(tenant)))[0] as InterviewRow | undefined,
    byId: (tx: Kysely<Database>, id: string) => tx.selectFrom('interviews').selectAll().where('id', '=', id).executeTakeFirst(),
    /** The interview's row as committed now, outside any transaction. */
    byIdNow: async (id: string) => (await byIdNow.run(id))[0] as InterviewRow | undefined,
    /** The interview's row under its lock for the rest of the transaction (SQLite's write transaction already holds one). */
    async locked(tx: Kysely<Database>, id: string): Promise<InterviewRow | undefined> {
      if (database.dialect === 'postgres') await lockRow(tx as unknown as Kysely<any>, id);
      return tx.selectFrom('interviews').selectAll().where('id', '=', id).executeTakeFirst();
    },
    list: (tenant: Tenant, page: PageRequest, f: { status?: InterviewStatus; candidateId?: string }) =>
      pageOf(page, tenant.organizationId, livemodeFlag(tenant), f.status, f.candidateId),
    /** Moves an interview on only from the states given; false when another request moved it first. */
    async transition(tx: Kysely<Database>, id: string, from: InterviewStatus[], changes: Partial<InterviewRow>): Promise<boolean> {
      const r = await tx.updateTable('interviews').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    update: (tx: Kysely<Database>, id: string, changes: Partial<InterviewRow>) => tx.updateTable('interviews').set(changes).where('id', '=', id).execute(),
    /** The invitation's outcome, unless the candidate was erased meanwhile (which removed the invitation). */
    recordInvitation: (tx: Kysely<Database>, id: string, candidateId: string, invitation: string) => tx.updateTable('interviews').set({ invitation })
      .where('id', '=', id).where('candidate_id', '=', candidateId).where('invitation', 'is not', null).execute(),

    /** Interviews whose clock ran out while running. */
    due: (tx: Kysely<Database>, now: number, limit: number) => tx.selectFrom('interviews').selectAll()
      .where('status', '=', 'in_progress').where('deadline_at', '<=', now).orderBy('deadline_at').limit(limit).execute(),
    /**
     * Paused since before `pausedBefore` (now less a pause's limit): the candidate never came back; or paused past the
     * overall limit, twice its length and a pause's limit after the join (states.ts closesBy), however recent the pause.
     */
    abandoned: (tx: Kysely<Database>, pausedBefore: number, limit: number) => tx.selectFrom('interviews').selectAll()
      .where('status', '=', 'paused')
      .where((eb) => eb.or([eb('paused_at', '<=', pausedBefore), eb(sql<number>`joined_at + duration_seconds * 2000`, '<=', pausedBefore)]))
      .limit(limit).execute(),
    /**
     * The tenant's interviews a read would now settle (expire or end: interviewStatusAsReadSql), through its status
     * index: what a list settles first, so that its status filter agrees with reads.
     */
    overdueOf: (tx: Kysely<Database>, tenant: Tenant, now: number, limit: number) => tx.selectFrom('interviews').selectAll()
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
      .where('status', 'in', ['scheduled', 'in_progress', 'paused']).where(interviewStatusAsReadSql(now), '<>', sql.ref<InterviewStatus>('status'))
      .limit(limit).execute(),
    /** Scheduled interviews nobody joined in their window. */
    unjoined: (tx: Kysely<Database>, now: number, limit: number) => tx.selectFrom('interviews').select('id')
      .where('status', '=', 'scheduled').where('join_by', '<=', now).limit(limit).execute(),

    /** Booked interviews not yet joined that start before `to` and may still run at `from`, with their start and length. */
    booked: (tx: Kysely<Database>, tenant: Tenant, from: number, to: number, maxDurationMs: number) => tx.selectFrom('interviews')
      .select(['id', 'scheduled_at', 'duration_seconds'])
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
      .where('status', '=', 'scheduled')
      .where('scheduled_at', '>', from - maxDurationMs).where('scheduled_at', '<', to).execute(),
    /** The interviews running now (in progress or paused), with what their clocks need. */
    live: (tx: Kysely<Database>, tenant: Tenant) => tx.selectFrom('interviews')
      .select(['id', 'status', 'duration_seconds', 'elapsed_ms', 'running_since', 'joined_at'])
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
      .where('status', 'in', ['in_progress', 'paused']).execute(),
    /** The organisation's interviews running now (in progress or paused), in this environment. */
    async liveCount(tx: Kysely<Database>, tenant: Tenant): Promise<number> {
      const row = await tx.selectFrom('interviews').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).where('status', 'in', ['in_progress', 'paused']).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async concurrencyLimit(tx: Kysely<Database>, organizationId: string): Promise<number> {
      const row = await tx.selectFrom('organizations').select('max_concurrent_interviews').where('id', '=', organizationId).executeTakeFirst();
      return row?.max_concurrent_interviews ?? 0;
    },

    questions: (tx: Kysely<Database>, interviewId: string) => tx.selectFrom('interview_questions').selectAll()
      .where('interview_id', '=', interviewId).orderBy('position').execute(),
    insertQuestions: (tx: Kysely<Database>, rows: InterviewQuestionsTable[]) => rows.length === 0 ? Promise.resolve() : tx.insertInto('interview_questions').values(rows).execute().then(() => undefined),

    turns: (tx: Kysely<Database>, interviewId: string, afterSeq = 0) => tx.selectFrom('interview_turns').selectAll()
      .where('interview_id', '=', interviewId).where('seq', '>', afterSeq).orderBy('seq').execute(),
    /** The turns after `afterSeq` as committed now, outside any transaction. */
    turnsNow: (interviewId: string, afterSeq = 0) => turnsNow.run(interviewId, afterSeq) as Promise<InterviewTurnsTable[]>,
    async countTurns(tx: Kysely<Database>, interviewId: string, kind: InterviewTurnsTable['kind']): Promise<number> {
      const row = await tx.selectFrom('interview_turns').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('interview_id', '=', interviewId).where('kind', '=', kind).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    turnByClientId: (tx: Kysely<Database>, interviewId: string, clientId: string) => tx.selectFrom('interview_turns').selectAll()
      .where('interview_id', '=', interviewId).where('client_id', '=', clientId).executeTakeFirst(),
    /**
     * Takes the next `count` sequence numbers, and stores the interviewer's state when given, only if the interview is
     * exactly as the caller last saw it (`seen`: its next_seq and updated_at), still in progress and not past its
     * deadline. False: something changed meanwhile (another turn, a pause, the end), and nothing was written.
     */
    async advance(tx: Kysely<Database>, seen: Pick<InterviewRow, 'id' | 'next_seq' | 'updated_at'>, count: number, interviewer: string | null, now: number): Promise<boolean> {
      return (await tx.executeQuery(advanceQuery(seen, count, interviewer, now))).rows.length === 1;
    },
    async insertTurns(tx: Kysely<Database>, rows: InterviewTurnsTable[]): Promise<void> {
      if (rows.length > 0) await tx.executeQuery(insertTurnsQuery(rows));
    },
    /**
     * `advance` and `insertTurns` (at least one turn) as one transaction of their own (on SQLite, committed with the
     * other writes of this turn of the event loop). False: the interview changed, and nothing was written.
     */
    async advanceWithTurns(seen: Pick<InterviewRow, 'id' | 'next_seq' | 'updated_at'>, turns: InterviewTurnsTable[], interviewer: string | null, now: number): Promise<boolean> {
      const done = await database.executeAll([
        { query: advanceQuery(seen, turns.length, interviewer, now), proceed: (moved) => moved.length === 1 },
        { query: insertTurnsQuery(turns) },
      ]);
      return done !== null;
    },
    /** Appends a turn at the interview's next sequence number (the caller holds the interview's lock). */
    async appendTurn(tx: Kysely<Database>, turn: Omit<InterviewTurnsTable, 'seq'>): Promise<InterviewTurnsTable> {
      const row = await tx.updateTable('interviews').set({ next_seq: sql`next_seq + 1` }).where('id', '=', turn.interview_id)
        .returning('next_seq').executeTakeFirstOrThrow();
      const stored = { ...turn, seq: row.next_seq - 1 };
      await tx.insertInto('interview_turns').values(stored).execute();
      return stored;
    },

    events: (tx: Kysely<Database>, interviewId: string) => tx.selectFrom('proctoring_events').select(['type', (eb) => eb.fn.countAll<number>().as('count')])
      .where('subject_kind', '=', 'interview').where('subject_id', '=', interviewId).groupBy('type').orderBy('type').execute(),
    /** The room's own signals (the cap is theirs: the server's pause signals are not counted). */
    async countEvents(tx: Kysely<Database>, interviewId: string): Promise<number> {
      const row = await tx.selectFrom('proctoring_events').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('subject_kind', '=', 'interview').where('subject_id', '=', interviewId).where('type', '!=', PAUSE_SIGNAL).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    insertEvents: (tx: Kysely<Database>, rows: ProctoringEventsTable[]) => tx.insertInto('proctoring_events').values(rows).execute(),

    report: (tx: Kysely<Database>, tenant: Tenant, interviewId: string) => tx.selectFrom('interview_reports').selectAll()
      .where('interview_id', '=', interviewId).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst(),
    /** Stores the report once: false when it was already stored. */
    async insertReport(tx: Kysely<Database>, row: InterviewReportsTable): Promise<boolean> {
      const r = await tx.insertInto('interview_reports').values(row).onConflict((oc) => oc.column('interview_id').doNothing()).executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },

    candidate: (tx: Kysely<Database>, tenant: Tenant, id: string) => tx.selectFrom('candidates').select(['id', 'name', 'email'])
      .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst(),
    roundType: (tx: Kysely<Database>, organizationId: string, slug: string) => tx.selectFrom('round_types').selectAll()
      .where('slug', '=', slug).where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      // The organisation's own before the shared one of its slug (`desc` sorts NULL first on PostgreSQL, last on SQLite).
      .orderBy((eb) => eb('organization_id', 'is', null)).executeTakeFirst(),
    /**
     * The slugs an `invalid_round_type` lists, each once, in byte order on both engines (`byBytes`: PostgreSQL's own
     * collation ordered them otherwise). Grouped, not DISTINCT: PostgreSQL orders a DISTINCT only by what it selects.
     */
    roundSlugs: async (tx: Kysely<Database>, organizationId: string) => (await tx.selectFrom('round_types').select('slug')
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)]))
      .groupBy('slug').orderBy(byBytes(tx, 'slug')).execute()).map((r) => r.slug),
    company: (tx: Kysely<Database>, organizationId: string, id: string) => tx.selectFrom('companies').selectAll().where('id', '=', id)
      .where((eb) => eb.or([eb('organization_id', 'is', null), eb('organization_id', '=', organizationId)])).executeTakeFirst(),
    resumeByKey: (tx: Kysely<Database>, tenant: Tenant, candidateId: string, key: string) => tx.selectFrom('resumes').select(['id', 'parsed'])
      .where('upload_key', '=', key).where('candidate_id', '=', candidateId)
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst(),
    resume: (tx: Kysely<Database>, id: string) => tx.selectFrom('resumes').select(['id', 'parsed']).where('id', '=', id).executeTakeFirst(),

    /** Bank questions an interviewer can ask (with guidance) in these categories: the shared bank and the organisation's own. */
    bankQuestions: (tx: Kysely<Database>, organizationId: string, categories: string[]) => categories.length === 0 ? Promise.resolve([]) : tx
      .selectFrom('question_bank_questions as q')
      .select(['q.id', 'q.slug', 'q.title', 'q.prompt', 'q.category', 'q.difficulty_rank', 'q.guidance', 'q.problem_id', topicsOfQuestion(tx).as('topics')])
      .where('q.category', 'in', categories).where('q.guidance', 'is not', null).where('q.prompt', 'is not', null)
      .where((eb) => eb.or([eb('q.organization_id', 'is', null), eb('q.organization_id', '=', organizationId)])).execute(),
    /** Questions the imported company lists this organisation sees (installation-wide imports and its own) say this company asks. */
    companyQuestionIds: async (tx: Kysely<Database>, organizationId: string, companySlug: string) => new Set((await tx.selectFrom('question_bank_imported_stats')
      .select('question_id').where('company_slug', '=', companySlug).where('owner', 'in', importedStatsOwners(organizationId)).execute()).map((r) => r.question_id)),
    /** Shares the interview's time equally again over its plan. */
    setQuestionMinutes: (tx: Kysely<Database>, interviewId: string, minutes: number) => tx.updateTable('interview_questions').set({ minutes })
      .where('interview_id', '=', interviewId).execute(),
    /** The limits of the problem an interview of `organizationId` planned (see plannedProblem). */
    problemLimits: (tx: Kysely<Database>, problem: PlannedProblem, organizationId: string) => tx.selectFrom('coding_problems').select(['time_limit_ms', 'memory_limit_mb'])
      .where(plannedProblem(problem, organizationId)).orderBy(sharedFirst).executeTakeFirst(),
    /** What judging a problem's final code needs (code-tests.ts). */
    problemCases: (tx: Kysely<Database>, problem: PlannedProblem, organizationId: string) => tx.selectFrom('coding_problems')
      .select(['examples', 'hidden_cases', 'comparator', 'time_limit_ms', 'memory_limit_mb']).where(plannedProblem(problem, organizationId)).orderBy(sharedFirst).executeTakeFirst(),
    problem: (tx: Kysely<Database>, id: string) => tx.selectFrom('coding_problems')
      .select(['id', 'slug', 'title', 'statement', 'input_format', 'output_format', 'constraints', 'time_limit_ms', 'memory_limit_mb'])
      .where('id', '=', id).executeTakeFirst(),

    /** Candidate erasure: the interviews stay for the customer's records, without the person or their words. */
    /** The candidate's interviews in this tenant. */
    ofCandidate: (tx: Kysely<Database>, tenant: Tenant, candidateId: string) => tx.selectFrom('interviews').selectAll().where('candidate_id', '=', candidateId)
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).execute(),
    /** Every whiteboard image key the interviews' turns name. */
    async boardKeys(tx: Kysely<Database>, ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await tx.selectFrom('interview_turns').select('data').where('interview_id', 'in', ids).where('kind', '=', 'board').execute();
      return rows.map((r) => (JSON.parse(r.data ?? '{}') as { key?: string }).key).filter((k): k is string => typeof k === 'string');
    },

    async eraseCandidate(tx: Kysely<Database>, tenant: Tenant, candidateId: string): Promise<void> {
      const ids = (await tx.selectFrom('interviews').select('id').where('candidate_id', '=', candidateId)
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).execute()).map((r) => r.id);
      if (ids.length === 0) return;
      await tx.deleteFrom('interview_turns').where('interview_id', 'in', ids).execute();
      await tx.deleteFrom('proctoring_events').where('subject_kind', '=', 'interview').where('subject_id', 'in', ids).execute();
      await tx.deleteFrom('interview_reports').where('interview_id', 'in', ids).execute();
      await tx.updateTable('interviews').set({ candidate_id: null, resume_id: null, recording_key: null, invitation: null }).where('id', 'in', ids).execute();
    },
  };
}

export type InterviewRepo = ReturnType<typeof createInterviewRepo>;
