import { randomInt } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { CodingSessionsTable, Database } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { Tenant } from '../../platform/context.js';
import type { Credits } from '../../platform/credits.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { SessionService } from '../sessions/service.js';
import { assertOpen, type SubjectContext, type SubjectProvider, type SubjectState } from '../sessions/subjects.js';
import type { CodingCatalogRepo, PublicProblemRow, TestFilters } from './catalog-repo.js';
import type { CodingSessionRepo } from './sessions-repo.js';

/** A coding assignment can be opened for 7 days from its creation. */
export const ASSIGNMENT_WINDOW_MS = 7 * 86_400_000;
/** Proctoring signals kept per session; beyond it `recorded` is 0. */
export const PROCTORING_EVENTS_CAP = 500;
export const PROCTORING_META_MAX_BYTES = 2048;
/** The background job that scores a session and emits coding.completed. */
export const COMPLETE_JOB = 'coding.complete';

const FINISHED = new Set(['completed', 'timed_out']);

export function assignmentEndsAt(row: Pick<CodingSessionsTable, 'created_at'>): number {
  return row.created_at + ASSIGNMENT_WINDOW_MS;
}

/** Where a coding session stands for candidate access (launch links, tokens, start). */
export function stateOf(row: CodingSessionsTable, now: number): SubjectState {
  if (row.status === 'cancelled') return 'cancelled';
  if (FINISHED.has(row.status)) return 'finished';
  if (row.status === 'assigned' && assignmentEndsAt(row) <= now) return 'lapsed';
  if (row.deadline_at !== null && row.deadline_at <= now) return 'finished';
  return 'open';
}

/** What candidates and customers may see of a problem: never hidden cases, comparators or expected complexity. */
export function publicProblem(p: PublicProblemRow) {
  return {
    id: p.id, slug: p.slug, title: p.title, difficulty: p.difficulty, skills: JSON.parse(p.skills) as string[],
    statement: p.statement, input_format: p.input_format, output_format: p.output_format, constraints: p.constraints,
    examples: JSON.parse(p.examples) as Array<{ input: string; output: string; explanation?: string }>,
    time_limit_ms: p.time_limit_ms, memory_limit_mb: p.memory_limit_mb,
  };
}

export function createCodingService(deps: {
  db: Kysely<Database>; clock: Clock; credits: Credits; catalog: CodingCatalogRepo; repo: CodingSessionRepo; sessions: SessionService;
  queue: JobQueue;
}) {
  const { db, clock, credits, catalog, repo, sessions, queue } = deps;

  async function mustGet(tx: Kysely<Database>, tenant: Tenant, id: string) {
    const row = await repo.get(tx, tenant, id);
    if (!row) throw notFound('coding session', id);
    return row;
  }

  /**
   * Ends a started session whose time is up; returns the row as it now is. The status change and the queued
   * completion commit together, so it takes a transaction (never the plain connection): a crash between the two
   * writes must not leave a timed-out session that nothing will score.
   */
  async function expireIfDue(tx: Transaction<Database>, row: CodingSessionsTable): Promise<CodingSessionsTable> {
    if (isDue(row)) {
      const changes = { status: 'timed_out' as const, ended_at: row.deadline_at, updated_at: clock.now() };
      if (await repo.transition(tx, row.id, ['started', 'in_progress'], changes)) {
        await queueCompletion(tx, row.id); // a timed-out session is scored like a finished one
        return { ...row, ...changes };
      }
      return (await repo.get(tx, { organizationId: row.organization_id, livemode: row.livemode === 1 }, row.id))!;
    }
    return row;
  }

  /**
   * The session as it stands now, with an overdue timeout applied and committed first, so a request refused
   * because the time is up does not roll the timeout back.
   */
  async function settled(tenant: Tenant, id: string): Promise<CodingSessionsTable> {
    return applyDueTimeout(await mustGet(db, tenant, id));
  }

  /** A row read outside a transaction, with its timeout committed if it is due (no write lock otherwise). */
  async function applyDueTimeout(row: CodingSessionsTable): Promise<CodingSessionsTable> {
    return isDue(row) ? db.transaction().execute((tx) => expireIfDue(tx, row)) : row;
  }

  /** Scores the session and sends coding.completed, once, in the background (see judging.ts). */
  async function queueCompletion(tx: Kysely<Database>, sessionId: string): Promise<void> {
    await queue.enqueue(tx, COMPLETE_JOB, { session_id: sessionId }, { uniqueKey: `${COMPLETE_JOB}:${sessionId}`, maxAttempts: 60 });
  }

  function isDue(row: CodingSessionsTable): boolean {
    return (row.status === 'started' || row.status === 'in_progress') && row.deadline_at !== null && row.deadline_at <= clock.now();
  }

  async function detail(tx: Kysely<Database>, row: CodingSessionsTable) {
    const problems = await repo.problems(tx, row.id);
    const allowed = (await catalog.getTest(tx, row.organization_id, row.test_id))?.attempts_per_problem ?? 0;
    const content = await catalog.problems(tx, problems.map((p) => p.problem_id));
    return {
      row,
      problems: problems.map((p) => ({
        position: p.position, slot_title: p.slot_title, problem: publicProblem(content.get(p.problem_id)!),
        attempts_used: p.attempts_used, attempts_remaining: Math.max(0, allowed - p.attempts_used), scored: p.scored === 1,
      })),
    };
  }

  const provider: SubjectProvider = {
    kind: 'coding',
    module: 'coding',
    field: 'coding_session_id',
    async state(tx, tenant, id) {
      const row = await repo.get(tx, tenant, id);
      return row ? stateOf(row, clock.now()) : null;
    },
    async context(tenant, id): Promise<SubjectContext | null> {
      const row = await repo.get(db, tenant, id);
      if (!row) return null;
      const [test, candidate] = await Promise.all([
        catalog.getTest(db, tenant.organizationId, row.test_id),
        row.candidate_id ? repo.candidate(db, tenant, row.candidate_id) : undefined,
      ]);
      return {
        candidate: candidate ?? null,
        round: { id: row.test_id, name: test?.name ?? 'Coding test', description: test?.description ?? null },
        status: (await applyDueTimeout(row)).status,
        duration_seconds: row.duration_seconds,
      };
    },
  };

  return {
    provider,

    async listTests(organizationId: string, page: PageRequest, filters: TestFilters) {
      const [result, total] = await Promise.all([catalog.list(organizationId, page, filters), catalog.count(organizationId, filters)]);
      const slots = await catalog.slotCounts(result.data.map((t) => t.id));
      return { page: result, total, slots };
    },

    /** A test with one representative problem (the first variant) per slot. */
    async getTest(organizationId: string, id: string) {
      const test = await catalog.getTest(db, organizationId, id);
      if (!test) throw notFound('coding test', id);
      const slots = await catalog.slots(db, test.id);
      const problems = await catalog.problems(db, slots.map((s) => s.problemIds[0]));
      return { test, slots: slots.map((s) => ({ position: s.position, title: s.title, variants: s.problemIds.length, example_problem: publicProblem(problems.get(s.problemIds[0])!) })) };
    },

    /**
     * Assigns a test: one coding credit reserved, a variant drawn per slot. A candidate who already holds
     * an open session of the test gets it back (resumed, no charge), also when requests race: the balance
     * lock is taken before looking.
     */
    async assign(tenant: Tenant, input: { candidate_id: string; coding_test_id: string }) {
      return db.transaction().execute(async (tx) => {
        await credits.lock(tx, tenant, 'coding');
        const candidate = await repo.candidate(tx, tenant, input.candidate_id);
        if (!candidate) throw new ApiError('resource_not_found', { param: 'candidate_id', message: `No such candidate: '${input.candidate_id}'.` });
        const test = await catalog.getTest(tx, tenant.organizationId, input.coding_test_id);
        if (!test) throw new ApiError('resource_not_found', { param: 'coding_test_id', message: `No such coding test: '${input.coding_test_id}'.` });

        const now = clock.now();
        for (const open of await repo.openFor(tx, tenant, candidate.id, test.id)) {
          const current = await expireIfDue(tx, open);
          const state = stateOf(current, now);
          if (state === 'open') return { ...(await detail(tx, current)), resumed: true };
          // An assignment that lapsed unopened gives its credit back; a new one is made below.
          if (state === 'lapsed' && current.credit_reservation_id) await credits.release(tx, current.credit_reservation_id);
        }

        const id = newId();
        const reservation = await credits.reserve(tx, tenant, 'coding', `coding_session:${id}`);
        const row: CodingSessionsTable = {
          id, organization_id: tenant.organizationId, livemode: tenant.livemode ? 1 : 0, candidate_id: candidate.id, test_id: test.id,
          status: 'assigned', duration_seconds: test.duration_minutes === null ? null : test.duration_minutes * 60,
          credit_reservation_id: reservation, created_at: now, updated_at: now, started_at: null, deadline_at: null, ended_at: null,
        };
        await repo.insert(tx, row);
        const slots = await catalog.slots(tx, test.id);
        await repo.insertProblems(tx, slots.map((slot) => ({
          session_id: id, position: slot.position, slot_title: slot.title,
          problem_id: slot.problemIds[randomInt(slot.problemIds.length)], attempts_used: 0, scored: 0,
        })));
        return { ...(await detail(tx, row)), resumed: false };
      });
    },

    async list(tenant: Tenant, page: PageRequest, status?: CodingSessionsTable['status']) {
      const [result, total] = await Promise.all([repo.list(tenant, page, status), repo.count(tenant, status)]);
      return { page: result, total };
    },

    async get(tenant: Tenant, id: string) {
      return detail(db, await settled(tenant, id));
    },

    /** Customer cancels an assignment not yet started: its credit comes back. Repeating is harmless. */
    async cancel(tenant: Tenant, id: string) {
      return db.transaction().execute(async (tx) => {
        const row = await mustGet(tx, tenant, id);
        if (row.status === 'cancelled') return row;
        if (row.status !== 'assigned') throw new ApiError('session_already_started');
        const changes = { status: 'cancelled' as const, ended_at: clock.now(), updated_at: clock.now() };
        if (!(await repo.transition(tx, id, ['assigned'], changes))) throw new ApiError('session_already_started');
        if (row.credit_reservation_id) await credits.release(tx, row.credit_reservation_id);
        return { ...row, ...changes };
      });
    },

    /** A single-use link; while assigned it cannot outlive the assignment window. */
    async launchLink(tenant: Tenant, id: string, options: { ttlSeconds?: number; redirectUrl?: string }) {
      await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        const row = await mustGet(tx, tenant, id);
        assertOpen(stateOf(row, clock.now()));
        return sessions.createLaunchLink(tx, tenant, 'coding', id, {
          ...options, capAt: row.status === 'assigned' ? assignmentEndsAt(row) : undefined,
        });
      });
    },

    /** The candidate starts: the clock starts once and the reserved credit is spent. */
    async start(tenant: Tenant, id: string) {
      await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        const row = await mustGet(tx, tenant, id);
        const state = stateOf(row, clock.now());
        if (row.status !== 'assigned' && state === 'open') return detail(tx, row); // already started: same started_at
        assertOpen(state);
        const now = clock.now();
        const changes = {
          status: 'started' as const, started_at: now, updated_at: now,
          deadline_at: row.duration_seconds === null ? null : now + row.duration_seconds * 1000,
        };
        if (!(await repo.transition(tx, id, ['assigned'], changes))) return detail(tx, (await mustGet(tx, tenant, id)));
        if (row.credit_reservation_id) await credits.commit(tx, row.credit_reservation_id);
        if (changes.deadline_at !== null) {
          await queue.enqueue(tx, 'coding.timeout', { organization_id: tenant.organizationId, livemode: tenant.livemode, session_id: id }, {
            runAt: changes.deadline_at, uniqueKey: `coding.timeout:${id}`,
          });
        }
        return detail(tx, { ...row, ...changes });
      });
    },

    /** Server-owned clock. Reads the row outside a transaction (hot path) and only writes when time is up. */
    async timer(tenant: Tenant, id: string) {
      const read = await repo.read(tenant, id);
      if (!read) throw notFound('coding session', id);
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
        const row = await mustGet(tx, tenant, id);
        if (row.status !== 'started' && row.status !== 'in_progress' && row.status !== 'assigned') return 0;
        // Concurrent posts for one session queue here (a row lock on PostgreSQL), so the cap holds.
        await repo.lock(tx, id);
        const room = Math.max(0, PROCTORING_EVENTS_CAP - (await repo.countEvents(tx, id)));
        const kept = events.slice(0, room);
        if (kept.length === 0) return 0;
        const now = clock.now();
        await repo.insertEvents(tx, kept.map((e, i) => ({
          id: newId(), organization_id: tenant.organizationId, livemode: tenant.livemode ? 1 : 0, subject_kind: 'coding' as const,
          subject_id: id, type: e.type, meta: metas[i], created_at: now,
        })));
        return kept.length;
      });
    },

    /** The timeout job of one session: a no-op unless its time is up (or when the session is gone). */
    async expireSession(tenant: Tenant, id: string): Promise<void> {
      const row = await repo.get(db, tenant, id);
      if (row) await applyDueTimeout(row);
    },

    /** The scheduled sweep: every started session whose time is up becomes timed_out. */
    async expireDue(limit = 500): Promise<number> {
      // Found with a plain read, so the sweep takes no write lock when nothing is due (it runs every 10 s).
      let n = 0;
      for (const row of await repo.due(db, clock.now(), limit)) if ((await applyDueTimeout(row)).status === 'timed_out') n++;
      // Assignments whose window lapsed unopened are abandoned: scored (as nothing) and announced once.
      const lapsed = await repo.lapsedWithoutReport(db, clock.now() - ASSIGNMENT_WINDOW_MS, limit);
      if (lapsed.length > 0) await db.transaction().execute(async (tx) => { for (const id of lapsed) await queueCompletion(tx, id); });
      return n;
    },

    settled,
    mustGet,
    queueCompletion,

    eraseCandidate: (tx: Kysely<Database>, tenant: Tenant, candidateId: string) => repo.eraseCandidate(tx, tenant, candidateId),
  };
}

export type CodingService = ReturnType<typeof createCodingService>;
