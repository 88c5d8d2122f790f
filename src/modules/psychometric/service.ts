import { randomInt } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database, PsychometricSessionsTable } from '../../db/schema.js';
import type { JobHandler } from '../../jobs/worker.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/errors.js';
import type { PageRequest } from '../../platform/pagination.js';
import { assignmentEndsAt, closesAt, completionJob, createLifecycle, UNTIMED_SESSION_LIMIT_MS, type AssessmentKind, type LifecycleDeps } from '../assessments/lifecycle.js';
import { createAssessmentRepo } from '../assessments/repo.js';
import type { Db } from '../../db/database.js';
import { preparedStatement } from '../../db/prepared.js';
import type { PsychometricCatalog, PsychometricTest } from './catalog.js';
import { answersById, itemPositions, KEEP, noAnswers, UNANSWERED } from './answers.js';
import { buildReport, type PsychometricReport } from './report.js';
import { localNorms, rawScores } from './scoring.js';

/** From this many completed sessions of a test in one environment on, an instrument without published norms uses the organisation's own. */
export const LOCAL_NORMS_MIN = 50;
/** Local norms come from the latest this many completed sessions (each submit reads them). */
export const LOCAL_NORMS_MAX = 5000;
export const DEFAULT_LANGUAGE = 'en';

export interface AssignInput {
  candidate_id: string;
  psychometric_test_id: string;
  language?: string;
}

import type { Emit } from '../webhooks/service.js';

const orderOf = (row: PsychometricSessionsTable) => JSON.parse(row.item_order) as string[];

function shuffled<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** What the report of a session given up unscored says (its completion failed for good). */
const UNSCORABLE = 'The session could not be scored (its scoring failed on every try): it was closed unscored (outcome abandoned).';

/** The untimed limit in words (a session closed unanswered is announced with it). */
const UNTIMED_LIMIT_DAYS = UNTIMED_SESSION_LIMIT_MS / 86_400_000;

/** Psychometric tests on the shared assessment lifecycle: untimed questionnaires, saved as the candidate goes. */
export function createPsychometricService(deps: LifecycleDeps & { database: Db; catalog: PsychometricCatalog; emit: Emit }) {
  const { db, clock, catalog, emit } = deps;
  const repo = createAssessmentRepo<PsychometricSessionsTable>(deps.database, { kind: 'psychometric', sessions: 'psychometric_sessions', reports: 'psychometric_reports' });

  async function testOf(tx: Kysely<Database>, row: PsychometricSessionsTable): Promise<PsychometricTest> {
    const test = await catalog.get(tx, row.organization_id, row.test_id);
    if (!test) throw new Error(`psychometric test ${row.test_id} is missing`);
    return test;
  }

  const kind: AssessmentKind<PsychometricSessionsTable, PsychometricTest, { row: PsychometricSessionsTable; test: PsychometricTest }, AssignInput> = {
    kind: 'psychometric', module: 'psychometric', credit: 'psychometric', noun: 'psychometric session', testParam: 'psychometric_test_id', repo,
    test: (tx, organizationId, id) => catalog.get(tx, organizationId, id),
    newRow(shared, test, input) {
      const language = input.language ?? (test.definition.languages.includes(DEFAULT_LANGUAGE) ? DEFAULT_LANGUAGE : test.definition.languages[0]!);
      if (!test.definition.languages.includes(language)) {
        throw new ApiError('parameter_invalid', { param: 'language', message: `This test is not available in '${language}'; available: ${test.definition.languages.join(', ')}.` });
      }
      // The order is drawn once and kept: a reload, or another device, shows the same sequence.
      return { ...shared, language, item_order: JSON.stringify(shuffled(test.definition.items.map((i) => i.id))), answers: noAnswers(test) };
    },
    detail: async (tx, row) => ({ row, test: await testOf(tx, row) }),
  };
  const lifecycle = createLifecycle(deps, kind);
  // The hot path of the questionnaire: one statement that merges a page into the saved answers of a session still
  // open and not due (being untimed, started under UNTIMED_SESSION_LIMIT_MS ago), so no transaction of its own, lock
  // or read comes first (on SQLite it commits with the other writes of its turn of the event loop: group-commit.ts). Once the session is in progress the statement
  // leaves `status` alone, so its index is not rewritten with each page. Anything else falls back to the full path.
  const mergeInto = (statuses: Array<'started' | 'in_progress'>) => preparedStatement(deps.database, (id: string, organizationId: string, livemode: 0 | 1, page: string, now: number) =>
    db.updateTable('psychometric_sessions')
      .set({
        answers: sql<string>`merge_marks(answers, ${page})`, updated_at: now,
        ...(statuses.includes('started') ? { status: 'in_progress' as const } : {}),
      })
      .where('id', '=', id).where('organization_id', '=', organizationId).where('livemode', '=', livemode)
      .where('status', 'in', statuses)
      .where((eb) => eb.or([eb('deadline_at', '>', now), eb.and([eb('deadline_at', 'is', null), eb(sql<number>`started_at + ${sql.lit(UNTIMED_SESSION_LIMIT_MS)}`, '>', now)])]))
      // The count of saved answers comes back: the items not marked unanswered.
      .returning(sql<number>`length(replace(answers, ${UNANSWERED}, ''))`.as('answered')));
  const mergeInProgress = mergeInto(['in_progress']);
  const mergeOpen = mergeInto(['started', 'in_progress']);
  // A session's test never changes: which one it is, per id, is kept (bounded) rather than read each time; the
  // tenant is checked against what was kept, so another organisation's id reads (and finds nothing) as before.
  const testOfSession = new Map<string, { organizationId: string; livemode: 0 | 1; testId: string }>();
  async function sessionTest(tenant: Tenant, id: string): Promise<PsychometricTest | undefined> {
    const livemode = livemodeFlag(tenant);
    let kept = testOfSession.get(id);
    if (kept === undefined || kept.organizationId !== tenant.organizationId || kept.livemode !== livemode) {
      const row = await db.selectFrom('psychometric_sessions').select('test_id').where('id', '=', id)
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemode).executeTakeFirst();
      if (!row) return undefined;
      if (testOfSession.size >= 10_000) testOfSession.clear();
      testOfSession.set(id, (kept = { organizationId: tenant.organizationId, livemode, testId: row.test_id }));
    }
    return catalog.get(db, tenant.organizationId, kept.testId);
  }

  /** Reports of this test in this environment so far, for an instrument without published norms. */
  async function norms(tx: Kysely<Database>, row: PsychometricSessionsTable, test: PsychometricTest, raw: Record<string, number>) {
    if (test.definition.norms) return { group: { key: test.definition.norms.key, label: test.definition.norms.label, source: test.definition.norms.source }, mean_sd: test.definition.norms.mean_sd };
    // An abandoned assignment's report holds no scores ('{}'): it is not a sheet.
    const earlier = await tx.selectFrom('psychometric_reports').select('raw_scores')
      .where('organization_id', '=', row.organization_id).where('livemode', '=', row.livemode).where('test_id', '=', row.test_id)
      .where('raw_scores', '!=', '{}').orderBy('created_at', 'desc').limit(LOCAL_NORMS_MAX - 1).execute();
    const sheets = [...earlier.map((r) => JSON.parse(r.raw_scores) as Record<string, number>), raw];
    if (sheets.length < LOCAL_NORMS_MIN) return null;
    const meanSd = localNorms(sheets);
    // Norms that place no domain (every sheet scored the same on each) are no norms.
    if (!test.instrument.scales.some((scale) => meanSd[scale.key])) return null;
    const latest = sheets.length === LOCAL_NORMS_MAX ? `the latest ${LOCAL_NORMS_MAX}` : String(sheets.length);
    return {
      group: { key: 'local', label: `This organisation's own candidates: ${latest} completed sessions of this test in this environment`, source: 'local' },
      mean_sd: meanSd,
    };
  }

  /**
   * Scores a fully answered sheet ended at `endedAt` (submitted, or timed out unsubmitted): its report is written and
   * psychometric.completed emitted, once, in the caller's transaction (the row as it now is gives the event's status
   * and outcome). False when the report was already written.
   */
  async function scoreOnce(tx: Kysely<Database>, row: PsychometricSessionsTable, test: PsychometricTest, answers: Record<string, number>, endedAt: number): Promise<boolean> {
    const raw = rawScores(test.instrument, answers);
    const normGroup = await norms(tx, row, test, raw);
    const report = buildReport({
      test, language: row.language, order: orderOf(row), answers, norms: normGroup, outcome: row.status === 'timed_out' ? 'timed_out' : 'completed',
      seconds: row.started_at === null ? null : (endedAt - row.started_at) / 1000,
    });
    const inserted = await tx.insertInto('psychometric_reports').values({
      session_id: row.id, organization_id: row.organization_id, livemode: row.livemode, test_id: row.test_id,
      raw_scores: JSON.stringify(raw), report: JSON.stringify(report), created_at: clock.now(),
    }).onConflict((oc) => oc.column('session_id').doNothing()).executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    await emit(tx, { organizationId: row.organization_id, livemode: row.livemode === 1 }, 'psychometric.completed', {
      object: 'psychometric_session', id: row.id, status: row.status, outcome: report.outcome,
      candidate_id: row.candidate_id, psychometric_test_id: row.test_id, norm_group: report.norm_group, flagged: report.flagged, summary: report.summary,
    });
    return true;
  }

  /**
   * Announces, once, a session that was not scored (a lapsed assignment, a session closed unanswered): a report row
   * with no scores (raw_scores '{}') and psychometric.completed with outcome `abandoned`. False when already announced.
   * `notReady`, when given, is what the report's `report_not_ready` says instead of the untimed limit.
   */
  async function announceAbandoned(tx: Kysely<Database>, row: PsychometricSessionsTable, summary: string, notReady?: string): Promise<boolean> {
    const inserted = await tx.insertInto('psychometric_reports').values({
      session_id: row.id, organization_id: row.organization_id, livemode: row.livemode, test_id: row.test_id,
      raw_scores: '{}', report: JSON.stringify({ outcome: 'abandoned', ...(notReady ? { not_ready: notReady } : {}) }), created_at: clock.now(),
    }).onConflict((oc) => oc.column('session_id').doNothing()).executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
    await emit(tx, { organizationId: row.organization_id, livemode: row.livemode === 1 }, 'psychometric.completed', {
      object: 'psychometric_session', id: row.id, status: row.status, outcome: 'abandoned', candidate_id: row.candidate_id,
      psychometric_test_id: row.test_id, norm_group: null, flagged: [], summary,
    });
    return true;
  }

  /**
   * Announces, once, an assignment whose window lapsed unopened (queued by the lifecycle's sweep), or a started
   * session closed unsubmitted past the untimed limit (queued by its timeout): scored when every item was answered
   * (outcome `timed_out`), else abandoned (no scores, its report not ready).
   */
  async function complete(sessionId: string): Promise<void> {
    await db.transaction().execute(async (tx) => {
      await lifecycle.lockForCompletion(tx, sessionId);
      const row = await tx.selectFrom('psychometric_sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
      if (row?.status === 'timed_out') {
        const test = await testOf(tx, row);
        const answers = answersById(test, row.answers);
        if (orderOf(row).every((itemId) => answers[itemId] !== undefined)) {
          await scoreOnce(tx, row, test, answers, row.ended_at ?? clock.now());
          return;
        }
        await announceAbandoned(tx, row, `The candidate started the questionnaire but did not answer every item within ${UNTIMED_LIMIT_DAYS} days.`);
        return;
      }
      if (!row || row.status !== 'assigned' || assignmentEndsAt(row) > clock.now()) return;
      if (await announceAbandoned(tx, row, 'The assignment lapsed before the candidate opened it.')) await lifecycle.releaseCredit(tx, row);
    });
  }

  /** The give-up's last resort: a session over and not yet reported is announced unscored (a lapsed assignment's credit comes back). */
  async function announceUnscored(sessionId: string): Promise<void> {
    await db.transaction().execute(async (tx) => {
      await lifecycle.lockForCompletion(tx, sessionId);
      const row = await tx.selectFrom('psychometric_sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
      const lapsed = row?.status === 'assigned' && assignmentEndsAt(row) <= clock.now();
      if (!row || (row.status !== 'timed_out' && !lapsed)) return;
      const announced = await announceAbandoned(tx, row, 'The session could not be scored: it was closed unscored.', UNSCORABLE);
      if (announced && lapsed) await lifecycle.releaseCredit(tx, row);
    });
  }

  return {
    ...lifecycle,

    listTests: (organizationId: string, page: PageRequest) => catalog.list(organizationId, page),
    async getTest(organizationId: string, id: string) {
      const test = await catalog.get(db, organizationId, id);
      if (!test) throw notFound('psychometric test', id);
      return test;
    },

    /**
     * Saves answers (each may be changed until submit). Nothing of a request with one bad answer is saved. The hot
     * path of the questionnaire: one compiled statement run on its own (mergeInProgress; mergeOpen for the first page);
     * a session that is not open, or is due, takes the full path under its lock, which answers why.
     */
    async progress(tenant: Tenant, id: string, answers: Array<{ item_id: string; value: number }>) {
      const seenIds = new Map<string, number>();
      for (let i = 0; i < answers.length; i++) {
        const itemId = answers[i]!.item_id;
        const earlier = seenIds.get(itemId);
        if (earlier !== undefined) throw new ApiError('parameter_invalid', { param: `answers[${i}].item_id`, message: `Item '${itemId}' is answered twice in this request (answers[${earlier}] too).` });
        seenIds.set(itemId, i);
      }
      const test = await sessionTest(tenant, id);
      if (!test) throw notFound('psychometric session', id);
      // Every session shows all of its test's items, so the test's items are the session's.
      const items = test.definition.items;
      if (answers.length > items.length) {
        throw new ApiError('parameter_invalid', { param: 'answers', message: `At most ${items.length} answers, one per item of this session.` });
      }
      const positions = itemPositions(test);
      const marks = Buffer.alloc(items.length, KEEP);
      for (let i = 0; i < answers.length; i++) {
        const { item_id: itemId, value } = answers[i]!;
        const at = positions.get(itemId);
        if (at === undefined) throw new ApiError('parameter_invalid', { param: `answers[${i}].item_id`, message: `No such item in this session: '${itemId}'.` });
        marks[at] = 48 + value; // value: an integer 1–5, by the route's schema
      }
      const page = marks.toString('latin1');
      const args = [id, tenant.organizationId, livemodeFlag(tenant), page, clock.now()] as const;
      const savedAs = ([merged]: Array<{ answered: number }>) => (merged ? { answered: Number(merged.answered), total: items.length } : null);
      const saved = savedAs(await mergeInProgress.run(...args)) ?? savedAs(await mergeOpen.run(...args)) ?? await db.transaction().execute(async (tx) => {
        const row = await repo.locked(tx, tenant, id);
        if (!row) throw notFound('psychometric session', id);
        const ends = closesAt(row);
        if (ends !== null && ends <= clock.now()) return null; // due: the timeout is applied below
        lifecycle.assertStarted(row);
        // Opened since the merge was tried (a start racing this request): merged under the lock.
        return savedAs(await mergeOpen.in(tx as unknown as Kysely<any>, id, tenant.organizationId, livemodeFlag(tenant), page, clock.now()));
      });
      if (saved) return saved;
      lifecycle.assertStarted(await lifecycle.settled(tenant, id)); // commits the timeout, then refuses
      throw new ApiError('session_already_finalized');
    },

    /**
     * Scores, completes and emits psychometric.completed exactly once, in the transaction that writes the report.
     * Every item must be answered. A repeat answers the same.
     */
    async submit(tenant: Tenant, id: string) {
      const row = await lifecycle.settled(tenant, id);
      if (row.status === 'completed') return row;
      lifecycle.assertStarted(row);
      return db.transaction().execute(async (tx) => {
        await repo.lock(tx, id);
        const current = (await repo.get(tx, tenant, id))!;
        if (current.status === 'completed') return current;
        if (current.status !== 'started' && current.status !== 'in_progress') throw new ApiError('session_already_finalized');
        const order = orderOf(current);
        const test = await testOf(tx, current);
        const answers = answersById(test, current.answers);
        const missing = order.map((itemId, i) => ({ itemId, position: i + 1 })).filter((m) => answers[m.itemId] === undefined);
        if (missing.length > 0) {
          throw new ApiError('answers_incomplete', {
            param: 'answers',
            message: `${missing.length} of ${order.length} items are unanswered; the first is '${missing[0]!.itemId}' (item ${missing[0]!.position} in this session's order).`,
          });
        }
        const now = clock.now();
        const changes = { status: 'completed' as const, ended_at: now, updated_at: now };
        await repo.transition(tx, id, ['started', 'in_progress'], changes);
        await scoreOnce(tx, { ...current, ...changes }, test, answers, now);
        return { ...current, ...changes };
      });
    },

    async report(tenant: Tenant, id: string): Promise<{ row: PsychometricSessionsTable; report: PsychometricReport; createdAt: number }> {
      const row = await lifecycle.settled(tenant, id);
      const stored = row.status === 'completed' || row.status === 'timed_out'
        ? await db.selectFrom('psychometric_reports').selectAll().where('session_id', '=', id).executeTakeFirst()
        : undefined;
      if (stored?.raw_scores === '{}') {
        throw new ApiError('report_not_ready', {
          message: (JSON.parse(stored.report) as { not_ready?: string }).not_ready ?? `The candidate did not answer every item within ${UNTIMED_LIMIT_DAYS} days of starting: the session was closed unscored (outcome abandoned).`,
        });
      }
      if (!stored) throw new ApiError('report_not_ready', { message: 'The report is ready once the candidate has submitted every answer.' });
      return { row, report: JSON.parse(stored.report) as PsychometricReport, createdAt: stored.created_at };
    },

    complete,

    /**
     * The completion job failed for good (its last attempt threw, or its worker died on every attempt; see
     * lifecycle.giveUpCompletion): the session is completed once more, and should that fail too (a sheet or a test
     * that cannot be scored) it is announced unscored, outcome `abandoned`, rather than left unreported for ever.
     */
    giveUpCompletion: (sessionId: string) => lifecycle.giveUpCompletion(sessionId, async () => 0, async (id) => {
      try {
        await complete(id);
      } catch {
        await announceUnscored(id);
      }
    }),
  };
}

export type PsychometricService = ReturnType<typeof createPsychometricService>;

export function psychometricJobs(service: PsychometricService): JobHandler[] {
  return [
    ...service.jobs(),
    // Failed for good, it gives up through service.giveUpCompletion rather than leave the session unreported.
    { ...completionJob(service.completeJob, service), retryDelaysSeconds: [1, 5, 30] },
  ];
}
