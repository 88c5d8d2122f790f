import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepared, preparedIn } from '../../db/prepared.js';
import type { Database, ProctoringEventsTable, SubjectKind } from '../../db/schema.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { forgetSessionReplays } from '../../platform/idempotency.js';
import { lockedCandidate } from '../candidates/locked.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';
import { OPEN_STATUSES, statusAsReadSql, type AssessmentSessionRow, type AssessmentStatus } from './lifecycle.js';

/** The tables of one assessment kind. */
export interface AssessmentTables {
  kind: SubjectKind;
  /** Its sessions: the shared columns of AssessmentSessionRow and its own. */
  sessions: 'coding_sessions' | 'psychometric_sessions' | 'prompt_engineering_sessions';
  /** Its reports, keyed by session_id (a lapsed assignment without one is still to be announced). */
  reports: 'coding_reports' | 'psychometric_reports' | 'prompt_engineering_reports';
}

/** A report as coding and prompt engineering store it (psychometric reports have columns of their own). */
export interface StoredReport {
  session_id: string;
  organization_id: string;
  livemode: 0 | 1;
  outcome: string;
  report: string;
  created_at: number;
}

export interface ListFilters {
  status?: AssessmentStatus;
  candidateId?: string;
}

/**
 * The SQL of the shared lifecycle, written once over a kind's own tables. The table names come from the kind's
 * declaration, never from a request; the queries are the same on both engines.
 */
export function createAssessmentRepo<Row extends AssessmentSessionRow>(database: Db, tables: AssessmentTables) {
  const db = database.kysely as unknown as Kysely<any>;
  // Names from the kind's declaration, widened: Kysely's types cannot follow a table chosen at run time.
  const t = tables.sessions as string;
  const reports = tables.reports as string;
  const scoped = (tx: Kysely<Database>, tenant: Tenant) => (tx as unknown as Kysely<any>).selectFrom(t).selectAll()
    .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant));
  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1, status?: AssessmentStatus, candidateId?: string) => {
    let q = db.selectFrom(t).selectAll().where('organization_id', '=', organizationId).where('livemode', '=', livemode);
    if (status !== undefined) q = q.where('status', '=', status);
    if (candidateId !== undefined) q = q.where('candidate_id', '=', candidateId);
    return q as unknown as SelectQueryBuilder<any, any, { id: string }>;
  });
  /** The hot read of session-token operations (timer, start): one row by id within the tenant. */
  const byId = prepared(database, (id: string, organizationId: string, livemode: 0 | 1) =>
    db.selectFrom(t).selectAll().where('id', '=', id).where('organization_id', '=', organizationId).where('livemode', '=', livemode));

  /** The candidate's name as the session's own page shows it: a plain read (GET /v1/session writes nothing). */
  const candidateById = prepared(database, (id: string, organizationId: string, livemode: 0 | 1) =>
    db.selectFrom('candidates').select(['id', 'name']).where('id', '=', id).where('organization_id', '=', organizationId).where('livemode', '=', livemode));

  // The lock and the locked read of hot candidate writes (saving answers), compiled once.
  const lockRow = preparedIn((id: string) => db.updateTable(t).set({ status: sql`status` }).where('id', '=', id));
  const lockedRow = preparedIn((id: string, organizationId: string, livemode: 0 | 1) =>
    db.selectFrom(t).selectAll().where('id', '=', id).where('organization_id', '=', organizationId).where('livemode', '=', livemode));

  return {
    /**
     * The session's row under its lock, for the rest of the transaction: a row lock on PostgreSQL; on SQLite every
     * write transaction already holds the database's one write lock (BEGIN IMMEDIATE), so nothing more is taken.
     */
    async locked(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<Row | undefined> {
      if (database.dialect === 'postgres') await lockRow(tx as unknown as Kysely<any>, id);
      return (await lockedRow(tx as unknown as Kysely<any>, id, tenant.organizationId, livemodeFlag(tenant)))[0] as Row | undefined;
    },
    list: (tenant: Tenant, page: PageRequest, f: ListFilters = {}) =>
      pageOf(page, tenant.organizationId, livemodeFlag(tenant), f.status, f.candidateId) as Promise<{ data: Row[]; has_more: boolean; next_cursor: string | null }>,
    async count(tenant: Tenant, f: ListFilters = {}): Promise<number> {
      let q = db.selectFrom(t).select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant));
      if (f.status) q = q.where('status', '=', f.status);
      if (f.candidateId) q = q.where('candidate_id', '=', f.candidateId);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },
    get: (tx: Kysely<Database>, tenant: Tenant, id: string) => scoped(tx, tenant).where('id', '=', id).executeTakeFirst() as Promise<Row | undefined>,
    read: async (tenant: Tenant, id: string) => (await byId(id, tenant.organizationId, livemodeFlag(tenant)))[0] as Row | undefined,
    /** The candidate's sessions of this test that are not finished (newest first). */
    openFor: (tx: Kysely<Database>, tenant: Tenant, candidateId: string, testId: string) => scoped(tx, tenant)
      .where('candidate_id', '=', candidateId).where('test_id', '=', testId).where('status', 'in', OPEN_STATUSES)
      .orderBy('id', 'desc').execute() as Promise<Row[]>,
    /** The candidate's assignments not yet started. */
    /** The candidate's sessions in one of these states. */
    ofCandidate: (tx: Kysely<Database>, tenant: Tenant, candidateId: string, statuses: AssessmentStatus[]) => scoped(tx, tenant)
      .where('candidate_id', '=', candidateId).where('status', 'in', statuses).execute() as Promise<Row[]>,
    insert: (tx: Kysely<Database>, row: Row) => (tx as unknown as Kysely<any>).insertInto(t).values(row).execute(),
    /** A row by id alone, for background work that has no tenant in hand. */
    byId: (tx: Kysely<Database>, id: string) => (tx as unknown as Kysely<any>).selectFrom(t).selectAll().where('id', '=', id).executeTakeFirst() as Promise<Row | undefined>,

    /** The session's stored report, within the tenant (kinds whose reports are written by their completion job). */
    report: (tenant: Tenant, sessionId: string) => db.selectFrom(reports).selectAll().where('session_id', '=', sessionId)
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst() as Promise<StoredReport | undefined>,
    hasReport: async (sessionId: string) => (await db.selectFrom(reports).select('session_id').where('session_id', '=', sessionId).executeTakeFirst()) !== undefined,
    /** False when the session already has its report (it is written once). */
    async insertReport(tx: Kysely<Database>, row: StoredReport): Promise<boolean> {
      const r = await (tx as unknown as Kysely<any>).insertInto(reports).values(row).onConflict((oc) => oc.column('session_id').doNothing()).executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
    },
    /** Moves a session on only from the state the caller saw (so two racing transitions cannot both apply). */
    async transition(tx: Kysely<Database>, id: string, from: AssessmentStatus[], changes: Partial<AssessmentSessionRow> | Partial<Row>): Promise<boolean> {
      const r = await (tx as unknown as Kysely<any>).updateTable(t).set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Takes the session's row lock for the rest of the transaction, changing nothing. */
    lock: (tx: Kysely<Database>, id: string) => lockRow(tx as unknown as Kysely<any>, id),
    /**
     * Whether the session's candidate was erased (or the session is gone), under the session's lock, held until the
     * transaction ends: a worker's last write then knows to keep nothing of the person.
     */
    async erasedLocked(tx: Kysely<Database>, id: string): Promise<boolean> {
      await lockRow(tx as unknown as Kysely<any>, id);
      const row = await (tx as unknown as Kysely<any>).selectFrom(t).select('candidate_id').where('id', '=', id).executeTakeFirst() as { candidate_id: string | null } | undefined;
      return !row || row.candidate_id === null;
    },
    /** Started sessions whose time is up. */
    due: (tx: Kysely<Database>, now: number, limit: number) => (tx as unknown as Kysely<any>).selectFrom(t).selectAll()
      .where('status', 'in', ['started', 'in_progress']).where('deadline_at', '<=', now).orderBy('deadline_at').limit(limit).execute() as Promise<Row[]>,
    /**
     * The tenant's started sessions whose time is up (finalized ones too: the caller's isDue leaves them), through the
     * tenant's status index: what a list settles first, so that its status filter and its count agree with reads.
     */
    dueOf: (tx: Kysely<Database>, tenant: Tenant, now: number, limit: number) => scoped(tx, tenant)
      .where('status', 'in', ['started', 'in_progress']).where(statusAsReadSql(now, false), '=', 'timed_out')
      .limit(limit).execute() as Promise<Row[]>,
    /** Started sessions of untimed tests (no deadline) started before `startedBefore`: past the untimed limit. */
    untimedDue: (tx: Kysely<Database>, startedBefore: number, limit: number) => (tx as unknown as Kysely<any>).selectFrom(t).selectAll()
      .where('status', 'in', ['started', 'in_progress']).where('deadline_at', 'is', null).where('started_at', '<=', startedBefore)
      .orderBy('started_at').limit(limit).execute() as Promise<Row[]>,
    /** Assignments created before `createdBefore` never started and not yet reported (abandoned). */
    lapsedWithoutReport: async (tx: Kysely<Database>, createdBefore: number, limit: number) => (await (tx as unknown as Kysely<any>).selectFrom(t)
      .leftJoin(reports, `${reports}.session_id`, `${t}.id`)
      .select([`${t}.id as id`, `${t}.organization_id as organization_id`]).where(`${t}.status`, '=', 'assigned').where(`${t}.created_at`, '<=', createdBefore)
      .where(`${reports}.session_id`, 'is', null).limit(limit).execute()) as Array<{ id: string; organization_id: string }>,

    /** The candidate, if it exists in this tenant (assignments are made only for the tenant's own), held until commit. */
    candidate: lockedCandidate,
    /** The candidate, if it exists in this tenant, read without holding it (for showing, never for a write). */
    candidateOf: async (tenant: Tenant, id: string): Promise<{ id: string; name: string } | undefined> =>
      (await candidateById(id, tenant.organizationId, livemodeFlag(tenant)))[0],

    countEvents: async (tx: Kysely<Database>, sessionId: string) => Number((await tx.selectFrom('proctoring_events')
      .select((eb) => eb.fn.countAll<number>().as('n')).where('subject_kind', '=', tables.kind).where('subject_id', '=', sessionId)
      .executeTakeFirstOrThrow()).n),
    insertEvents: (tx: Kysely<Database>, rows: ProctoringEventsTable[]) => tx.insertInto('proctoring_events').values(rows).execute(),
    /** The session's proctoring signals, counted per type (for its report). */
    proctoringSummary: async (tx: Kysely<Database>, sessionId: string) => (await tx.selectFrom('proctoring_events')
      .select(['type', (eb) => eb.fn.countAll<number>().as('n')]).where('subject_kind', '=', tables.kind).where('subject_id', '=', sessionId)
      .groupBy('type').orderBy('type').execute()).map((r) => ({ type: r.type, count: Number(r.n) })),

    /** Erasure: the sessions stay (anonymous), the person's link and their proctoring signals go. The sessions' ids. */
    async eraseCandidate(tx: Kysely<Database>, tenant: Tenant, candidateId: string): Promise<string[]> {
      const ids = ((await scoped(tx, tenant).where('candidate_id', '=', candidateId).execute()) as Row[]).map((r) => r.id);
      if (ids.length === 0) return ids;
      await tx.deleteFrom('proctoring_events').where('subject_kind', '=', tables.kind).where('subject_id', 'in', ids).execute();
      await forgetSessionReplays(tx, tenant, tables.kind, ids);
      await (tx as unknown as Kysely<any>).updateTable(t).set({ candidate_id: null }).where('id', 'in', ids).execute();
      return ids;
    },
  };
}

export type AssessmentRepo<Row extends AssessmentSessionRow> = ReturnType<typeof createAssessmentRepo<Row>>;
