import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { AssessmentSessionColumns, Database, SubjectKind } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobHandler } from '../../jobs/worker.js';
import type { Clock } from '../../platform/clock.js';
import { livemodeFlag, type KeyAuth, type ModuleName, type Tenant } from '../../platform/context.js';
import type { CreditKind, Credits } from '../../platform/credits.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { SUBJECT_KINDS } from '../../platform/kinds.js';
import type { CandidateAccessService } from '../candidate-access/service.js';
import type { Emit } from '../webhooks/service.js';
import { assertOpen, SUBJECT_FIELDS, type SubjectContext, type SubjectProvider, type SubjectState } from '../candidate-access/subjects.js';
import type { AssessmentRepo } from './repo.js';

/**
 * The lifecycle every assessment kind shares (coding, psychometric, …): assignment that reserves a credit and
 * resumes an open session, cancel, launch links, start, a server-owned timer, proctoring signals, timeouts and the
 * completion job. A kind declares only what is its own (`AssessmentKind`); the race-sensitive parts (the credit lock
 * taken before looking for an open session, transitions only from the state seen, a timeout committed before a
 * request is refused) live here once.
 */

/** The columns every assessment session table has. */
export type AssessmentSessionRow = AssessmentSessionColumns;

export type AssessmentStatus = AssessmentSessionColumns['status'];
export const OPEN_STATUSES: AssessmentStatus[] = ['assigned', 'started', 'in_progress'];
const FINISHED = new Set<AssessmentStatus>(['completed', 'timed_out']);

/** How a session ended, as reports and completion events say it. */
export type Outcome = 'completed' | 'timed_out' | 'abandoned';

/** An assignment can be opened for 7 days from its creation (the contract's coding window; every kind keeps it). */
export const ASSIGNMENT_WINDOW_MS = 7 * 86_400_000;
/**
 * A started session of an untimed test (no `deadline_at`) is closed this long after `started_at` if it is not
 * finished by then, as a timed one is at its deadline, so it cannot stay open (and unannounced) for ever. No
 * deadline is shown for it: its timer keeps saying untimed.
 */
export const UNTIMED_SESSION_LIMIT_MS = 7 * 86_400_000;
/** At most this many sessions whose time is up are timed out by one list request (the sweep does the rest). */
const LIST_SETTLE_MAX = 100;
/** Proctoring signals kept per session; beyond it `recorded` is 0. */
export const PROCTORING_EVENTS_CAP = 500;
export const PROCTORING_META_MAX_BYTES = 2048;

/** The background jobs the lifecycle queues for a kind: its deadline, and its completion (scoring, the event). */
export function lifecycleJobNames(kind: SubjectKind) {
  return { timeout: `${kind}.timeout`, complete: `${kind}.complete` };
}

export function assignmentEndsAt(row: Pick<AssessmentSessionRow, 'created_at'>): number {
  return row.created_at + ASSIGNMENT_WINDOW_MS;
}

/**
 * When a started session's time is up: its deadline, or, untimed, UNTIMED_SESSION_LIMIT_MS after its start
 * (null before the start).
 */
export function closesAt(row: Pick<AssessmentSessionRow, 'deadline_at' | 'started_at'>): number | null {
  if (row.deadline_at !== null) return row.deadline_at;
  return row.started_at === null ? null : row.started_at + UNTIMED_SESSION_LIMIT_MS;
}

/** When the candidate finalized the session (kinds that score in the background have the column), or null. */
const finalizedAt = (row: AssessmentSessionRow): number | null => (row as { finalize_requested_at?: number | null }).finalize_requested_at ?? null;

/**
 * Where a session stands for candidate access (launch links, tokens, start) and assignment. Finalized by the candidate
 * (a kind that scores in the background), it is finished though its status reads in_progress until it is scored.
 */
export function stateOf(row: AssessmentSessionRow, now: number): SubjectState {
  if (row.status === 'cancelled') return 'cancelled';
  if (FINISHED.has(row.status) || finalizedAt(row)) return 'finished';
  if (row.status === 'assigned' && assignmentEndsAt(row) <= now) return 'lapsed';
  const ends = closesAt(row);
  if (ends !== null && ends <= now) return 'finished';
  return 'open';
}

/**
 * The status a read of a session shows at `now`, as SQL over its row (for counts that must agree with reads): the
 * stored one, or `timed_out` for a started session whose time is up (closesAt) and that was not finalized, the
 * lifecycle's `isDue`, whose timeout a read commits before answering while the stored row waits for the sweep.
 * `finalizable`: the kind's table has `finalize_requested_at` (a finalized session completes as finished).
 */
export function statusAsReadSql(now: number, finalizable: boolean): RawBuilder<AssessmentStatus> {
  const notFinalized = finalizable ? sql` and finalize_requested_at is null` : sql``;
  return sql<AssessmentStatus>`case when status in ('started', 'in_progress') and coalesce(deadline_at, started_at + ${UNTIMED_SESSION_LIMIT_MS}) <= ${now}${notFinalized} then 'timed_out' else status end`;
}

/** What assigning needs to know of the test being assigned. */
export interface AssessmentTest {
  id: string;
  name: string;
  description: string | null;
  /** null: untimed. */
  duration_minutes: number | null;
}

/**
 * The completion job of a kind scored in the background (queued by finalize and by a timeout; it waits for the
 * session's work by retrying). Failed for good (its last attempt threw, or its worker died on every attempt), it gives
 * up through `giveUpCompletion` rather than leave the session unreported.
 */
export function completionJob(kind: string, service: { complete(sessionId: string): Promise<void>; giveUpCompletion(sessionId: string): Promise<void> }): JobHandler {
  const sessionOf = (payload: unknown) => (payload as { session_id: string }).session_id;
  return {
    kind,
    retryDelaysSeconds: [1, 2, 5, 10, 30],
    run: async (payload, job) => {
      try {
        await service.complete(sessionOf(payload));
      } catch (error) {
        if (job.attempts >= job.max_attempts) await service.giveUpCompletion(sessionOf(payload)).catch(() => undefined);
        throw error;
      }
    },
    abandoned: (payload) => service.giveUpCompletion(sessionOf(payload)),
  };
}

/** What a kind declares: its names, its tables (through its repo), its credit, its test and its detail. */
export interface AssessmentKind<Row extends AssessmentSessionRow, Test extends AssessmentTest, Detail, AssignInput> {
  kind: SubjectKind;
  module: ModuleName;
  credit: CreditKind;
  /** Human noun for errors: "coding session". */
  noun: string;
  /** The assign body field naming the test, for a 404 that names it. */
  testParam: keyof AssignInput & string;
  repo: AssessmentRepo<Row>;
  test(tx: Kysely<Database>, organizationId: string, id: string): Promise<Test | undefined>;
  /** The kind's own columns of a new session, beyond the shared ones. */
  newRow(shared: AssessmentSessionRow, test: Test, input: AssignInput): Row;
  /** Written with the new session, in its transaction (coding: the drawn problems). */
  afterAssign?(tx: Transaction<Database>, row: Row, test: Test): Promise<void>;
  detail(tx: Kysely<Database>, row: Row): Promise<Detail>;
  /** Whether an existing open session of the candidate should be resumed for this request (default: same test). */
  resumes?(row: Row, input: AssignInput): boolean;
  /** Candidate erasure, in its transaction: what of the person the kind's own tables hold (coding: submissions' source). */
  eraseSessions?(tx: Kysely<Database>, sessionIds: string[]): Promise<void>;
}

export interface LifecycleDeps {
  db: Kysely<Database>;
  clock: Clock;
  credits: Credits;
  candidateAccess: CandidateAccessService;
  queue: JobQueue;
}

export function createLifecycle<Row extends AssessmentSessionRow, Test extends AssessmentTest, Detail, AssignInput extends { candidate_id: string }>(
  deps: LifecycleDeps, kind: AssessmentKind<Row, Test, Detail, AssignInput>,
) {
  const { db, clock, credits, candidateAccess, queue } = deps;
  const { repo } = kind;
  const { timeout: timeoutJob, complete: completeJob } = lifecycleJobNames(kind.kind);

  /** When the candidate finalized, for a kind that scores in the background (others' rows have no such column): null if not. */

  async function mustGet(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<Row> {
    const row = await repo.get(tx, tenant, id);
    if (!row) throw notFound(kind.noun, id);
    return row;
  }

  /**
   * Started, its time up (its deadline, or the untimed limit), and not finalized in time (a finalized session
   * completes as finished, whenever it is scored). statusAsReadSql is the same rule in SQL: change both together.
   */
  function isDue(row: Row): boolean {
    const ends = closesAt(row);
    return (row.status === 'started' || row.status === 'in_progress') && ends !== null && ends <= clock.now()
      && !finalizedAt(row);
  }

  /** An assignment's reserved credit back (idempotent): it was cancelled, or lapsed unopened. */
  async function releaseCredit(tx: Kysely<Database>, row: Row): Promise<void> {
    if (row.credit_reservation_id) await credits.release(tx, row.credit_reservation_id);
  }

  /** Cancels an assignment still `assigned` and returns its credit: the row as it now is, or null if it had moved on. */
  async function cancelAssigned(tx: Kysely<Database>, row: Row): Promise<Row | null> {
    const now = clock.now();
    const changes = { status: 'cancelled' as const, ended_at: now, updated_at: now };
    if (!(await repo.transition(tx, row.id, ['assigned'], changes))) return null;
    await releaseCredit(tx, row);
    return { ...row, ...changes };
  }

  /**
   * The completion job's locks: the session's, and first, for an assignment (which its abandonment gives the credit
   * back), the balance's, the order an assignment and an erasure take them in (the other way round deadlocked with an
   * erasure on PostgreSQL). A session seen past assigned never goes back to it.
   */
  async function lockForCompletion(tx: Kysely<Database>, sessionId: string): Promise<void> {
    const seen = await repo.byId(tx, sessionId);
    if (seen?.status === 'assigned') await credits.lock(tx, { organizationId: seen.organization_id, livemode: seen.livemode === 1 }, kind.credit);
    await repo.lock(tx, sessionId);
  }

  /** Completes the session in the background (the kind's completion job scores it and sends its event, once). */
  async function queueCompletion(tx: Kysely<Database>, sessionId: string, organizationId: string | null): Promise<void> {
    await queue.enqueue(tx, completeJob, { session_id: sessionId }, { uniqueKey: `${completeJob}:${sessionId}`, maxAttempts: 60, organizationId });
  }

  /**
   * For kinds scored in the background: a session over (finalized or timed out) whose last piece of work (a
   * submission, an attempt) was just settled is completed at once, even when its completion job gave up waiting
   * (work behind a backlog can outlast its retries) or is on its last run, failing as this completes (a job queued
   * now would meet that one's unique key and be dropped). The report is written once whoever gets there first;
   * should this fail, the completion job is queued again.
   */
  async function completeWhenSettled(sessionId: string, unsettled: () => Promise<number>, complete: (sessionId: string) => Promise<void>): Promise<void> {
    const row = await repo.byId(db, sessionId);
    const over = row?.status === 'timed_out' || (row?.status === 'in_progress' && !!finalizedAt(row));
    if (!over || await unsettled() > 0 || await repo.hasReport(sessionId)) return;
    await complete(sessionId).catch(() => queueCompletion(db, sessionId, row.organization_id));
  }

  /**
   * For kinds scored in the background: the completion job failed for good (its last attempt threw, or its worker died
   * on every attempt). A session still waiting for a piece of work is left to it (its job, settling it on its last
   * attempt or when abandoned, completes the session: completeWhenSettled); one with nothing left to wait for is
   * completed once more by `complete` (a kind passes one that leaves out what is slow or over the network), rather than
   * left over and unreported for ever. Throws when that fails too.
   */
  async function giveUpCompletion(sessionId: string, unsettled: () => Promise<number>, complete: (sessionId: string) => Promise<void>): Promise<void> {
    const row = await repo.byId(db, sessionId);
    if (!row || row.status === 'cancelled' || await repo.hasReport(sessionId) || await unsettled() > 0) return;
    await complete(sessionId);
  }

  /**
   * Ends a started session whose time is up; returns the row as it now is. The status change and the queued
   * completion commit together, so it takes a transaction (never the plain connection): a crash between the two
   * writes must not leave a timed-out session that nothing will score.
   */
  async function expireIfDue(tx: Transaction<Database>, seen: Row): Promise<Row> {
    if (!isDue(seen)) return seen;
    // As it is now, under its lock: a finalize may have committed since it was read.
    await repo.lock(tx, seen.id);
    const row = (await repo.byId(tx, seen.id)) ?? seen;
    if (!isDue(row)) return row;
    const changes = { status: 'timed_out' as const, ended_at: closesAt(row), updated_at: clock.now() };
    if (await repo.transition(tx, row.id, ['started', 'in_progress'], changes)) {
      await queueCompletion(tx, row.id, row.organization_id); // a timed-out session is scored like a finished one
      return { ...row, ...changes };
    }
    return (await repo.get(tx, { organizationId: row.organization_id, livemode: row.livemode === 1 }, row.id))!;
  }

  /** A row read outside a transaction, with its timeout committed if it is due (no write lock otherwise). */
  async function applyDueTimeout(row: Row): Promise<Row> {
    return isDue(row) ? db.transaction().execute((tx) => expireIfDue(tx, row)) : row;
  }

  /**
   * The session as it stands now, with an overdue timeout applied and committed first, so a request refused
   * because the time is up does not roll the timeout back.
   */
  async function settled(tenant: Tenant, id: string): Promise<Row> {
    return applyDueTimeout(await mustGet(db, tenant, id));
  }

  /** The timeout job of one session: a no-op unless its time is up (or when the session is gone). */
  async function expireSession(tenant: Tenant, id: string): Promise<void> {
    const row = await repo.get(db, tenant, id);
    if (row) await applyDueTimeout(row);
  }

  /** The scheduled sweep: every started session whose time is up (timed, or untimed past its limit) becomes timed_out. */
  async function expireDue(limit = 500): Promise<number> {
    // Found with a plain read, so the sweep takes no write lock when nothing is due (it runs every 10 s).
    let n = 0;
    const due = [...await repo.due(db, clock.now(), limit), ...await repo.untimedDue(db, clock.now() - UNTIMED_SESSION_LIMIT_MS, limit)];
    for (const row of due) if ((await applyDueTimeout(row)).status === 'timed_out') n++;
    // Assignments whose window lapsed unopened are abandoned: scored (as nothing) and announced once.
    const lapsed = await repo.lapsedWithoutReport(db, clock.now() - ASSIGNMENT_WINDOW_MS, limit);
    if (lapsed.length > 0) await db.transaction().execute(async (tx) => { for (const { id, organization_id } of lapsed) await queueCompletion(tx, id, organization_id); });
    return n;
  }

  const provider: SubjectProvider = {
    kind: kind.kind,
    module: kind.module,
    field: SUBJECT_FIELDS[kind.kind],
    async state(tx, tenant, id) {
      const row = await repo.get(tx, tenant, id);
      return row ? stateOf(row, clock.now()) : null;
    },
    async context(tenant, id): Promise<SubjectContext | null> {
      const row = await repo.get(db, tenant, id);
      if (!row) return null;
      const [test, candidate] = await Promise.all([
        kind.test(db, tenant.organizationId, row.test_id),
        row.candidate_id ? repo.candidateOf(tenant, row.candidate_id) : undefined,
      ]);
      return {
        // Only what the candidate's page shows: the row holds the address too, which no session reply may carry.
        candidate: candidate ? { id: candidate.id, name: candidate.name } : null,
        round: { id: row.test_id, name: test?.name ?? kind.noun, description: test?.description ?? null },
        status: (await applyDueTimeout(row)).status,
        duration_seconds: row.duration_seconds,
      };
    },
  };

  return {
    provider,
    timeoutJob,
    completeJob,
    mustGet,
    settled,
    queueCompletion,
    completeWhenSettled,
    giveUpCompletion,
    lockForCompletion,
    stateOf: (row: Row) => stateOf(row, clock.now()),

    /** Refuses work on a session that is not started and open: `session_not_started`, or the code of its state. */
    assertStarted(row: Row): void {
      const state = stateOf(row, clock.now());
      if (row.status === 'assigned' && state === 'open') throw new ApiError('session_not_started');
      assertOpen(state);
    },

    /**
     * Assigns a test: one credit reserved. A candidate who already holds an open session of the test gets it
     * back (resumed, no charge), also when requests race: the balance lock is taken before looking.
     */
    async assign(tenant: Tenant, input: AssignInput): Promise<{ detail: Detail; row: Row; resumed: boolean }> {
      return db.transaction().execute(async (tx) => {
        await credits.lock(tx, tenant, kind.credit);
        const candidate = await repo.candidate(tx, tenant, input.candidate_id);
        if (!candidate) throw new ApiError('resource_not_found', { param: 'candidate_id', message: `No such candidate: '${input.candidate_id}'.` });
        const testId = input[kind.testParam] as unknown as string;
        const test = await kind.test(tx, tenant.organizationId, testId);
        if (!test) throw new ApiError('resource_not_found', { param: kind.testParam, message: `No such test: '${testId}'.` });

        const now = clock.now();
        for (const open of await repo.openFor(tx, tenant, candidate.id, test.id)) {
          if (kind.resumes && !kind.resumes(open, input)) continue;
          const current = await expireIfDue(tx, open);
          const state = stateOf(current, now);
          if (state === 'open') return { detail: await kind.detail(tx, current), row: current, resumed: true };
          // An assignment that lapsed unopened gives its credit back; a new one is made below.
          if (state === 'lapsed') await releaseCredit(tx, current);
        }

        const id = newId();
        const reservation = await credits.reserve(tx, tenant, kind.credit, `${kind.kind}_session:${id}`);
        const row = kind.newRow({
          id, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), candidate_id: candidate.id, test_id: test.id,
          status: 'assigned', duration_seconds: test.duration_minutes === null ? null : test.duration_minutes * 60,
          credit_reservation_id: reservation, created_at: now, updated_at: now, started_at: null, deadline_at: null, ended_at: null,
        }, test, input);
        await repo.insert(tx, row);
        if (kind.afterAssign) await kind.afterAssign(tx, row, test);
        return { detail: await kind.detail(tx, row), row, resumed: false };
      });
    },

    /**
     * A page of sessions and their count. The tenant's sessions whose time is up are timed out first (committed, as a
     * read of one does), so that the page, its status filter and total_count show what a read of each shows.
     */
    async list(tenant: Tenant, page: PageRequest, filters: { status?: AssessmentStatus; candidateId?: string } = {}) {
      for (const row of await repo.dueOf(db, tenant, clock.now(), LIST_SETTLE_MAX)) await applyDueTimeout(row);
      const [result, total] = await Promise.all([repo.list(tenant, page, filters), repo.count(tenant, filters)]);
      return { page: result, total };
    },

    async get(tenant: Tenant, id: string): Promise<Detail> {
      return kind.detail(db, await settled(tenant, id));
    },

    /** Customer cancels an assignment not yet started: its credit comes back. Repeating is harmless. */
    async cancel(tenant: Tenant, id: string): Promise<Row> {
      return db.transaction().execute(async (tx) => {
        // The balance's lock before the session's, the order an assignment and an erasure take them in: returning the
        // credit takes the balance's, and taken after the session's it deadlocked with an erasure on PostgreSQL.
        await credits.lock(tx, tenant, kind.credit);
        // Read under the session's lock, as start reads it: an abandonment under way is seen once it has committed.
        const row = await repo.locked(tx, tenant, id);
        if (!row) throw notFound(kind.noun, id);
        if (row.status === 'cancelled') return row;
        if (row.status !== 'assigned') throw new ApiError('session_already_started');
        if (stateOf(row, clock.now()) === 'lapsed') throw new ApiError('assignment_expired'); // its credit came back as it lapsed
        const cancelled = await cancelAssigned(tx, row);
        if (cancelled) return cancelled;
        // Another request moved it first: a cancel that raced this one is answered alike (repeating is harmless).
        const now = await mustGet(tx, tenant, id);
        if (now.status === 'cancelled') return now;
        throw new ApiError('session_already_started');
      });
    },

    /** A single-use link; while assigned it cannot outlive the assignment window. */
    async launchLink(tenant: KeyAuth, id: string, options: { ttlSeconds?: number; redirectUrl?: string }) {
      await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        const row = await mustGet(tx, tenant, id);
        assertOpen(stateOf(row, clock.now()));
        return candidateAccess.createLaunchLink(tx, tenant, kind.kind, id, {
          ...options, capAt: row.status === 'assigned' ? assignmentEndsAt(row) : undefined, keyId: tenant.keyId,
        });
      });
    },

    /** The candidate starts: the clock starts once and the reserved credit is spent. A repeat returns the same. */
    async start(tenant: Tenant, id: string): Promise<Detail> {
      const seen = await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        // A first start spends the reserved credit, which takes the balance's lock: taken first, before the session's,
        // the order an assignment and an erasure take them in (the other way round deadlocked with an erasure on
        // PostgreSQL). A session seen started never goes back to assigned: a repeat takes only the session's.
        if (seen.status === 'assigned') await credits.lock(tx, tenant, kind.credit);
        // Read under the session's lock: an abandonment under way (the window closing) is seen once it has committed.
        const row = await repo.locked(tx, tenant, id);
        if (!row) throw notFound(kind.noun, id);
        const state = stateOf(row, clock.now());
        if (row.status !== 'assigned' && state === 'open') return kind.detail(tx, row); // already started: same started_at
        assertOpen(state);
        const now = clock.now();
        const changes = {
          status: 'started' as const, started_at: now, updated_at: now,
          deadline_at: row.duration_seconds === null ? null : now + row.duration_seconds * 1000,
        };
        // When it is closed if not finished: its deadline, or, untimed, the untimed limit (never shown as a deadline).
        const closes = closesAt(changes)!;
        if (!(await repo.transition(tx, id, ['assigned'], changes))) {
          // Another request moved it first: a start that raced this one answers as a repeat; a cancel is refused.
          const current = await mustGet(tx, tenant, id);
          assertOpen(stateOf(current, clock.now()));
          return kind.detail(tx, current);
        }
        // Its credit may have gone back meanwhile: an assignment of the test made as the window closed found it lapsed
        // (that takes the balance's lock, not the session's). Lapsed then, not started for free.
        if (row.credit_reservation_id && !(await credits.commit(tx, row.credit_reservation_id))) throw new ApiError('assignment_expired');
        await queue.enqueue(tx, timeoutJob, { organization_id: tenant.organizationId, livemode: tenant.livemode, session_id: id }, {
          runAt: closes, uniqueKey: `${timeoutJob}:${id}`, organizationId: tenant.organizationId,
        });
        return kind.detail(tx, { ...row, ...changes });
      });
    },

    /**
     * The candidate is done, for a kind that scores in the background (its rows have `finalize_requested_at`): no more
     * work is taken and the completion job is queued. A repeat, or a session already over, answers as it stands.
     */
    async finalize(tenant: Tenant, id: string): Promise<Row> {
      const row = await settled(tenant, id);
      if (FINISHED.has(row.status) || finalizedAt(row)) return row;
      this.assertStarted(row);
      return db.transaction().execute(async (tx) => {
        await repo.lock(tx, id);
        const current = await mustGet(tx, tenant, id);
        if (finalizedAt(current) || (current.status !== 'started' && current.status !== 'in_progress')) return current;
        const now = clock.now();
        const changes = { status: 'in_progress' as const, finalize_requested_at: now, updated_at: now };
        await repo.transition(tx, id, ['started', 'in_progress'], changes as unknown as Partial<Row>);
        await queueCompletion(tx, id, tenant.organizationId);
        return { ...current, ...changes };
      });
    },

    /**
     * The completion job's write, for a kind that scores in the background (queued by finalize, a timeout or a lapsed
     * assignment): under the session's lock, `make` builds the report and the event's own fields from the row and its
     * outcome (or null: nothing to do yet); the report is stored, the session completed and `<kind>.completed` emitted,
     * all in one transaction and once. Anything slow or over the network is done by the caller before.
     */
    async completeOnce<Report>(sessionId: string, emit: Emit, make: (tx: Transaction<Database>, row: Row, outcome: Outcome, endedAt: number) =>
      Promise<{ report: Report; event: Record<string, unknown> } | null>): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await lockForCompletion(tx, sessionId);
        const row = await repo.byId(tx, sessionId);
        if (!row || row.status === 'cancelled') return;
        const now = clock.now();
        const outcome: Outcome = row.status === 'timed_out' ? 'timed_out' : row.status === 'assigned' ? 'abandoned' : 'completed';
        if (outcome === 'abandoned' && assignmentEndsAt(row) > now) return; // still open after all
        // A finalized session ended when the candidate finished, however long its scoring took.
        const endedAt = row.ended_at ?? finalizedAt(row) ?? now;
        const made = await make(tx, row, outcome, endedAt);
        if (!made) return;
        const stored = { session_id: sessionId, organization_id: row.organization_id, livemode: row.livemode, outcome, report: JSON.stringify(made.report), created_at: now };
        if (!(await repo.insertReport(tx, stored))) return;
        if (outcome === 'abandoned') await releaseCredit(tx, row);
        let status = row.status;
        if (row.status === 'started' || row.status === 'in_progress') {
          status = 'completed';
          await repo.transition(tx, sessionId, ['started', 'in_progress'], { status, ended_at: endedAt, updated_at: now });
        }
        await emit(tx, { organizationId: row.organization_id, livemode: row.livemode === 1 }, SUBJECT_KINDS[kind.kind].completedEvent, {
          object: `${kind.kind}_session`, id: sessionId, status, outcome, candidate_id: row.candidate_id, [kind.testParam]: row.test_id, ...made.event,
        });
      });
    },

    /**
     * The stored report of a kind that scores in the background. An abandoned assignment is reported for its event,
     * but it never completed: the contract says not ready.
     */
    async storedReport<Report>(tenant: Tenant, id: string, notReady?: string): Promise<{ row: Row; report: Report; createdAt: number }> {
      const row = await settled(tenant, id);
      const stored = await repo.report(tenant, id);
      if (!stored || row.status === 'assigned') throw new ApiError('report_not_ready', notReady ? { message: notReady } : {});
      return { row, report: JSON.parse(stored.report) as Report, createdAt: stored.created_at };
    },

    /** The first piece of work (a run, a saved answer) moves a started session to in_progress. */
    async markInProgress(tx: Kysely<Database>, row: Row): Promise<void> {
      if (row.status === 'started') await repo.transition(tx, row.id, ['started'], { status: 'in_progress', updated_at: clock.now() });
    },

    /** Server-owned clock. Reads the row outside a transaction (hot path) and only writes when time is up. */
    async timer(tenant: Tenant, id: string) {
      const read = await repo.read(tenant, id);
      if (!read) throw notFound(kind.noun, id);
      const row = await applyDueTimeout(read);
      const now = clock.now();
      const timed = row.duration_seconds !== null;
      let remaining = 0;
      if (timed) {
        remaining = row.deadline_at === null
          ? (row.status === 'assigned' ? row.duration_seconds! : 0)
          : Math.max(0, Math.ceil((row.deadline_at - now) / 1000));
        if (FINISHED.has(row.status) || row.status === 'cancelled') remaining = 0;
      }
      return { row, timed, remaining, now };
    },

    /** Proctoring signals: stored while the session is live, up to the cap. */
    async recordEvents(tenant: Tenant, id: string, events: Array<{ type: string; meta?: Record<string, unknown> }>) {
      const metas = events.map((e, i) => {
        if (e.meta === undefined) return null;
        let json: string;
        try {
          json = JSON.stringify(e.meta);
        } catch {
          throw new ApiError('parameter_invalid', { param: `events[${i}].meta`, message: 'meta is nested too deeply.' });
        }
        if (Buffer.byteLength(json) > PROCTORING_META_MAX_BYTES) {
          throw new ApiError('parameter_invalid', { param: `events[${i}].meta`, message: `meta is at most ${PROCTORING_META_MAX_BYTES} bytes of JSON.` });
        }
        return json;
      });
      await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        // Read under the session's lock (concurrent posts queue here, so the cap holds): a finalize under way is seen
        // once it has committed.
        const row = await repo.locked(tx, tenant, id);
        if (!row) throw notFound(kind.noun, id);
        // Finalized, the candidate is done, though scoring may still run: what the page reports after is not theirs to answer for.
        if (!OPEN_STATUSES.includes(row.status) || finalizedAt(row)) return 0;
        const room = Math.max(0, PROCTORING_EVENTS_CAP - (await repo.countEvents(tx, id)));
        const kept = events.slice(0, room);
        if (kept.length === 0) return 0;
        const now = clock.now();
        await repo.insertEvents(tx, kept.map((e, i) => ({
          id: newId(), organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), subject_kind: kind.kind,
          subject_id: id, type: e.type, meta: metas[i], created_at: now,
        })));
        return kept.length;
      });
    },

    expireSession,
    expireDue,

    /** The background jobs the lifecycle runs for this kind (the kind adds its completion job). */
    jobs(): JobHandler[] {
      return [
        {
          // Queued at start for the deadline (untimed: the untimed limit), in the transaction that starts the session.
          kind: timeoutJob,
          run: async (payload) => {
            const { organization_id, livemode, session_id } = payload as { organization_id: string; livemode: boolean; session_id: string };
            await expireSession({ organizationId: organization_id, livemode }, session_id);
          },
        },
        {
          // A safety net for timeouts without a job (a restored backup, an untimed session started before it had one).
          kind: `${kind.kind}.timeout-sweep`,
          everyMs: 10_000,
          run: async () => void (await expireDue()),
        },
      ];
    },

    /**
     * Erasure: the candidate's assignments not yet opened are cancelled (their credit returned, their launch links and
     * tokens refused from then on, as a cancel leaves them); their started sessions are closed as if their time ran
     * out (scored on what was done, announced once, and nothing more taken, so nothing of the person is added after);
     * then every session of theirs is kept anonymous. Returning credit takes the balance's lock, which assign takes
     * before the candidate's: the erasure takes it first too.
     */
    eraseCandidate: Object.assign(async (tx: Kysely<Database>, tenant: Tenant, candidateId: string): Promise<void> => {
      for (const row of await repo.ofCandidate(tx, tenant, candidateId, ['assigned'])) {
        if (stateOf(row, clock.now()) === 'lapsed') continue; // announced abandoned by the sweep, which returns its credit
        await cancelAssigned(tx, row);
      }
      for (const row of await repo.ofCandidate(tx, tenant, candidateId, ['started', 'in_progress'])) {
        if (finalizedAt(row)) continue; // finished by the candidate, being scored
        const now = clock.now();
        const changes = { status: 'timed_out' as const, ended_at: now, updated_at: now };
        if (await repo.transition(tx, row.id, ['started', 'in_progress'], changes)) await queueCompletion(tx, row.id, row.organization_id);
      }
      const ids = await repo.eraseCandidate(tx, tenant, candidateId);
      await candidateAccess.endSubjectAccess(tx, tenant, kind.kind, ids);
      if (ids.length > 0) await kind.eraseSessions?.(tx, ids);
    }, { locksFirst: (tx: Kysely<Database>, tenant: Tenant) => credits.lock(tx, tenant, kind.credit) }),
    releaseCredit,
  };
}
