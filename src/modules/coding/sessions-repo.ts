import { sql, type Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepared } from '../../db/prepared.js';
import type { CodingSessionProblemsTable, CodingSessionsTable, CodingSessionStatus, Database, ProctoringEventsTable } from '../../db/schema.js';
import type { Tenant } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

const lm = (t: Tenant) => (t.livemode ? 1 : 0) as 0 | 1;
export const OPEN_STATUSES: CodingSessionStatus[] = ['assigned', 'started', 'in_progress'];

export function createCodingSessionRepo(database: Db) {
  const db = database.kysely;
  const scoped = (tx: Kysely<Database>, tenant: Tenant) => tx.selectFrom('coding_sessions').selectAll()
    .where('organization_id', '=', tenant.organizationId).where('livemode', '=', lm(tenant));
  const pageOf = keysetPager(database, (organizationId: string, livemode: 0 | 1, status?: CodingSessionStatus) => {
    const q = db.selectFrom('coding_sessions').selectAll().where('organization_id', '=', organizationId).where('livemode', '=', livemode);
    return status === undefined ? q : q.where('status', '=', status);
  });
  /** The hot read of session-token operations (timer, start): one row by id within the tenant. */
  const byId = prepared(database, (id: string, organizationId: string, livemode: 0 | 1) =>
    db.selectFrom('coding_sessions').selectAll().where('id', '=', id).where('organization_id', '=', organizationId).where('livemode', '=', livemode));

  return {
    list: (tenant: Tenant, page: PageRequest, status?: CodingSessionStatus) => pageOf(page, tenant.organizationId, lm(tenant), status),
    async count(tenant: Tenant, status?: CodingSessionStatus): Promise<number> {
      let q = db.selectFrom('coding_sessions').select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', lm(tenant));
      if (status) q = q.where('status', '=', status);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },
    get: (tx: Kysely<Database>, tenant: Tenant, id: string) => scoped(tx, tenant).where('id', '=', id).executeTakeFirst(),
    read: async (tenant: Tenant, id: string) => (await byId(id, tenant.organizationId, lm(tenant)))[0] as CodingSessionsTable | undefined,
    /** The candidate's sessions of this test that are not finished (newest first). */
    openFor: (tx: Kysely<Database>, tenant: Tenant, candidateId: string, testId: string) => scoped(tx, tenant)
      .where('candidate_id', '=', candidateId).where('test_id', '=', testId).where('status', 'in', OPEN_STATUSES)
      .orderBy('id', 'desc').execute(),
    insert: (tx: Kysely<Database>, row: CodingSessionsTable) => tx.insertInto('coding_sessions').values(row).execute(),
    insertProblems: (tx: Kysely<Database>, rows: CodingSessionProblemsTable[]) => tx.insertInto('coding_session_problems').values(rows).execute(),
    problems: (tx: Kysely<Database>, sessionId: string) => tx.selectFrom('coding_session_problems').selectAll()
      .where('session_id', '=', sessionId).orderBy('position').execute(),
    /** Moves a session on only from the state the caller saw (so two racing transitions cannot both apply). */
    async transition(tx: Kysely<Database>, id: string, from: CodingSessionStatus[], changes: Partial<CodingSessionsTable>): Promise<boolean> {
      const r = await tx.updateTable('coding_sessions').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /** Takes the session's row lock for the rest of the transaction, changing nothing. */
    lock: (tx: Kysely<Database>, id: string) => tx.updateTable('coding_sessions').set({ status: sql`status` }).where('id', '=', id).execute(),
    /** Started sessions whose time is up. */
    due: (tx: Kysely<Database>, now: number, limit: number) => tx.selectFrom('coding_sessions').selectAll()
      .where('status', 'in', ['started', 'in_progress']).where('deadline_at', '<=', now).orderBy('deadline_at').limit(limit).execute(),

    /** Assignments created before `createdBefore` never started and not yet reported (abandoned). */
    lapsedWithoutReport: async (tx: Kysely<Database>, createdBefore: number, limit: number) => (await tx.selectFrom('coding_sessions')
      .leftJoin('coding_reports', 'coding_reports.session_id', 'coding_sessions.id')
      .select('coding_sessions.id').where('coding_sessions.status', '=', 'assigned').where('coding_sessions.created_at', '<=', createdBefore)
      .where('coding_reports.session_id', 'is', null).limit(limit).execute()).map((r) => r.id),
    /** Marks one of the session's problems as having a judged submission and counts an attempt. */
    async useAttempt(tx: Kysely<Database>, sessionId: string, problemId: string, allowed: number): Promise<number | null> {
      const r = await tx.updateTable('coding_session_problems').set({ attempts_used: sql`attempts_used + 1` })
        .where('session_id', '=', sessionId).where('problem_id', '=', problemId).where('attempts_used', '<', allowed).executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return null;
      const row = await tx.selectFrom('coding_session_problems').select('attempts_used').where('session_id', '=', sessionId)
        .where('problem_id', '=', problemId).executeTakeFirstOrThrow();
      return allowed - row.attempts_used;
    },
    markScored: (tx: Kysely<Database>, sessionId: string, problemId: string) => tx.updateTable('coding_session_problems').set({ scored: 1 })
      .where('session_id', '=', sessionId).where('problem_id', '=', problemId).execute(),

    /** The candidate, if it exists in this tenant (assignments are made only for the tenant's own candidates). */
    candidate: (tx: Kysely<Database>, tenant: Tenant, id: string) => tx.selectFrom('candidates').select(['id', 'name'])
      .where('id', '=', id).where('organization_id', '=', tenant.organizationId).where('livemode', '=', lm(tenant)).executeTakeFirst(),

    countEvents: async (tx: Kysely<Database>, sessionId: string) => Number((await tx.selectFrom('proctoring_events')
      .select((eb) => eb.fn.countAll<number>().as('n')).where('subject_kind', '=', 'coding').where('subject_id', '=', sessionId)
      .executeTakeFirstOrThrow()).n),
    insertEvents: (tx: Kysely<Database>, rows: ProctoringEventsTable[]) => tx.insertInto('proctoring_events').values(rows).execute(),

    /** Erasure: the sessions stay (anonymous), the person's link and their proctoring signals go. */
    async eraseCandidate(tx: Kysely<Database>, tenant: Tenant, candidateId: string) {
      const ids = (await scoped(tx, tenant).where('candidate_id', '=', candidateId).execute()).map((r) => r.id);
      if (ids.length === 0) return;
      await tx.deleteFrom('proctoring_events').where('subject_kind', '=', 'coding').where('subject_id', 'in', ids).execute();
      await tx.updateTable('coding_sessions').set({ candidate_id: null }).where('id', 'in', ids).execute();
    },
  };
}

export type CodingSessionRepo = ReturnType<typeof createCodingSessionRepo>;
