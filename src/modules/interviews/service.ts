import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { PERSISTENT_MAX_ATTEMPTS, type JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../platform/clock.js';
import { livemodeFlag, type KeyAuth, type Tenant } from '../../platform/context.js';
import { forgetSessionReplays } from '../../platform/idempotency.js';
import type { Credits } from '../../platform/credits.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { checkSandboxLanguage, sandboxError } from '../../sandbox/api-errors.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { recordingFormatOfKey, type RecordingFormat } from '../../storage/file-type.js';
import { bytesBeside, type ObjectStorage } from '../../storage/storage.js';
import type { CandidateAccessService } from '../candidate-access/service.js';
import { lockedCandidate } from '../candidates/locked.js';
import type { SubjectContext, SubjectProvider, SubjectState } from '../candidate-access/subjects.js';
import type { Emit } from '../webhooks/service.js';
import { createEnding, ERASE_FILES_JOB, TIMEOUT_JOB, type EndReason } from './ending.js';
import { INVITE_JOB, invitationFor, type Invitation } from './invitations.js';
import { initialState } from './interviewer/interviewer.js';
import { methodFor } from './interviewer/method.js';
import type { CodeRun, InterviewerState } from './interviewer/types.js';
import { CUSTOMER_QUESTIONS_MAX, customerQuestion, drawPlan, fromRows, minutesPerQuestion, toRows, type CustomerQuestion } from './plan.js';
import { PAUSE_SIGNAL, type InterviewRepo, type InterviewRow } from './repo.js';
import {
  CLOSED, elapsedMs, LIVE, overdueBy, remainingMs, SCHEDULED_JOIN_WINDOW_MS, stopClock, TEST_MODE_MAX_SECONDS, UNSCHEDULED_JOIN_WINDOW_MS,
} from './states.js';

export interface CreateInterviewInput {
  candidate_id: string;
  round_type: string;
  difficulty: number;
  role: string;
  resume_key?: string;
  company_id?: string;
  duration_minutes?: number;
  language?: string;
  /** Unix seconds. */
  scheduled_at?: number;
  questions?: CustomerQuestion[];
  send_invitation?: boolean;
}

export interface CodeInput { language: string; source: string; run?: boolean; stdin?: string }

/** The longest an interview can be (120 minutes): how far back a booking can still overlap a window. */
const MAX_INTERVIEW_MS = 120 * 60_000;
/** At most this many overdue interviews are settled by one list request (the sweep does the rest). */
const LIST_SETTLE_MAX = 100;
/** Bookable windows: 30 minutes each, over at most 14 days. */
export const SLOT_MINUTES = 30;
export const SLOT_HORIZON_DAYS = 14;
/** Whiteboard snapshots: PNG, at most 2 MiB each, 30 per interview. */
export const BOARD_MAX_BYTES = 2 * 1_048_576;
export const BOARD_MAX_IMAGES = 30;
/** Recording pieces the room uploads as the interview goes (live mode only): at most 5 MiB each, 64 MiB in all. */
export const RECORDING_CHUNK_MAX_BYTES = 5 * 1_048_576;
export const RECORDING_MAX_BYTES = 64 * 1_048_576;
export const RECORDING_CHUNKS_MAX = 1000;
/** The interview's folder in storage: its whiteboard images, its recording and the recording's pieces. */
/** Every file of an interview: its whiteboard images, its recording and the recording's pieces. */
export const interviewFolder = (row: Pick<InterviewRow, 'organization_id' | 'id'>) => `interviews/${row.organization_id}/${row.id}/`;
/** The folder of a recording's uploaded pieces (deleted whole once joined, or when the candidate is erased). */
export const recordingPiecesPrefix = (row: Pick<InterviewRow, 'organization_id' | 'id'>) => `${interviewFolder(row)}recording/`;
export const recordingChunkKey = (row: Pick<InterviewRow, 'organization_id' | 'id'>, index: number) =>
  `${recordingPiecesPrefix(row)}${String(index).padStart(6, '0')}.part`;
/** The joined recording, named for its container (what the room's browser recorded). */
export const recordingKey = (row: Pick<InterviewRow, 'organization_id' | 'id'>, format: RecordingFormat) =>
  `${interviewFolder(row)}recording.${format.extension}`;

/** Code snapshots per interview, and a run's limits when the question names no problem (the coding defaults). */
export const CODE_SNAPSHOTS_MAX = 200;
const CODE_RUN_LIMITS = { timeLimitMs: 2000, memoryLimitMb: 256 };
const CODE_OUTPUT_SHOWN = 16 * 1024;
const PROCTORING_EVENTS_CAP = 500;
export const UPLOAD_URL_TTL_S = 300;
const RECORDING_URL_TTL_S = 600;
/** failure_reason `processing_error` (interviews/processing.ts gave up): there is no transcript or report to wait for. */
const UNPROCESSABLE = 'The interview could not be processed (failure_reason processing_error): there is no transcript or report.';


/** Where an interview stands for candidate access (launch links, session tokens). */
export function subjectState(row: InterviewRow, now: number): SubjectState {
  if (row.status === 'cancelled') return 'cancelled';
  if (row.status === 'expired' || (row.status === 'scheduled' && row.join_by <= now)) return 'lapsed';
  // Over by its clock, a pause never resumed or its overall limit, though not yet ended by the sweep or a read.
  if (CLOSED.has(row.status) || overdueBy(row, now) !== null) return 'finished';
  return 'open';
}

/** Why there is no transcript or report for good (processing gave up, or the interview never took place); else the code's "retry later". */
function notReady(row: InterviewRow, what: 'transcript' | 'report'): { message?: string } {
  if (row.failure_reason === 'processing_error') return { message: UNPROCESSABLE };
  if (CLOSED.has(row.status) && row.status !== 'ended' && !row.joined_at) return { message: `The interview never took place, so there is no ${what}.` };
  return {};
}

/** The refusal for an interview whose window closed before the candidate joined. */
const neverJoined = () => new ApiError('assignment_expired', { message: 'The interview was never joined within its window.' });

function refuseClosed(row: InterviewRow, now: number): void {
  const state = subjectState(row, now);
  if (state === 'lapsed') throw neverJoined();
  if (state === 'cancelled') throw new ApiError('session_cancelled', { message: 'The interview was cancelled.' });
  if (state === 'finished') throw new ApiError('session_already_finalized', { message: 'The interview has ended.' });
}

export function createInterviewService(deps: {
  db: Kysely<Database>; clock: Clock; repo: InterviewRepo; credits: Credits; queue: JobQueue; emit: Emit;
  candidateAccess: CandidateAccessService; sandbox: Sandbox; storage: ObjectStorage; smtpConfigured: boolean;
  /** The conversation channel's URL (wss://…/interview-channel). */
  channelUrl: string;
  /**
   * Told when the interview changes outside the channel: the channel sends what is new; with `react`, the interviewer
   * also says what it owes (after a code snapshot). A join never prompts it: the channel's connect does, so the
   * opening is streamed to the candidate rather than said before anyone listens.
   */
  onTranscriptChange: (interviewId: string, react?: boolean) => void;
}) {
  const { db, clock, repo, credits, queue, emit, candidateAccess, sandbox, storage } = deps;
  const ending = createEnding({ clock, repo, queue, emit });

  async function mustGet(tx: Kysely<Database>, tenant: Tenant, id: string): Promise<InterviewRow> {
    const row = await repo.get(tx, tenant, id);
    if (!row) throw notFound('interview', id);
    return row;
  }
  /** The interview with anything overdue (time up, a pause never resumed, a window lapsed) committed first. */
  async function settled(tenant: Tenant, id: string): Promise<InterviewRow> {
    const row = await repo.read(tenant, id);
    if (!row) throw notFound('interview', id);
    return ending.settle(db, row);
  }
  /** A scheduled interview cancelled (by the customer, or by the candidate's erasure); null if it was no longer scheduled. */
  async function cancelScheduled(tx: Kysely<Database>, tenant: Tenant, row: InterviewRow): Promise<InterviewRow | null> {
    const changes = { status: 'cancelled' as const, updated_at: clock.now() };
    if (!(await repo.transition(tx, row.id, ['scheduled'], changes))) return null;
    await emit(tx, tenant, 'interview.cancelled', { object: 'interview', id: row.id, status: 'cancelled', candidate_id: row.candidate_id });
    return { ...row, ...changes };
  }
  /** A live interview for the candidate's work (code, whiteboard): refused when paused or over. */
  function assertRunning(row: InterviewRow): void {
    if (row.status === 'scheduled') throw new ApiError('session_not_started', { message: 'Join the interview first.' });
    if (row.status === 'paused') throw new ApiError('interview_paused');
    refuseClosed(row, clock.now());
  }
  async function scheduleTimeout(tx: Kysely<Database>, row: InterviewRow, deadline: number): Promise<void> {
    await queue.enqueue(tx, TIMEOUT_JOB, { interview_id: row.id }, { runAt: deadline, uniqueKey: `${TIMEOUT_JOB}:${row.id}:${deadline}`, organizationId: row.organization_id });
  }

  /**
   * A code snapshot or a whiteboard image joins the transcript as the candidate's turn, at most `max` of its kind per
   * interview, while the interview runs.
   */
  async function refuseOverCap(tx: Kysely<Database>, id: string, kind: 'code' | 'board', max: number, what: string): Promise<void> {
    if (await repo.countTurns(tx, id, kind) >= max) throw new ApiError('interview_limit_reached', { message: `An interview keeps at most ${max} ${what}.` });
  }
  async function appendArtifact(id: string, kind: 'code' | 'board', max: number, what: string, text: string, data: unknown) {
    return db.transaction().execute(async (tx) => {
      const row = (await repo.locked(tx, id))!;
      assertRunning(row);
      await refuseOverCap(tx, id, kind, max, what);
      const state = JSON.parse(row.interviewer) as InterviewerState;
      const now = clock.now();
      return repo.appendTurn(tx, {
        interview_id: id, speaker: 'candidate', kind, text, question_position: state.phase === 'question' ? state.index : null, client_id: null,
        data: JSON.stringify(data), at_ms: elapsedMs(row, now), created_at: now,
      });
    });
  }

  /**
   * When the organisation's interviews hold a place over [from, to): booked ones from their slot for their length,
   * running ones from now for the time they have left (a pause keeps its place).
   */
  async function spans(tx: Kysely<Database>, tenant: Tenant, from: number, to: number): Promise<Array<{ start: number; end: number }>> {
    const now = clock.now();
    const booked = (await repo.booked(tx, tenant, from, to, MAX_INTERVIEW_MS)).map((b) => ({ start: b.scheduled_at!, end: b.scheduled_at! + b.duration_seconds * 1000 }));
    const running = (await repo.live(tx, tenant)).map((r) => ({ start: now, end: now + remainingMs(r, now) }));
    return [...booked, ...running].filter((x) => x.start < to && x.end > from);
  }

  async function checkCapacity(tx: Kysely<Database>, tenant: Tenant, start: number, durationMs: number): Promise<void> {
    const limit = await repo.concurrencyLimit(tx, tenant.organizationId);
    const busy = await spans(tx, tenant, start, start + durationMs);
    if (busy.length >= limit) {
      throw new ApiError('capacity_unavailable', {
        param: 'scheduled_at', message: `The organisation's ${limit} concurrent interviews are all booked at that time; pick another slot (GET /v1/interviews/slots).`,
        headers: { 'Retry-After': '60' }, // a booked window frees only when a booking in it is cancelled
      });
    }
  }

  const provider: SubjectProvider = {
    kind: 'interview',
    module: 'interviews',
    field: 'interview_id',
    async state(tx, tenant, id) {
      const row = await repo.get(tx, tenant, id);
      return row ? subjectState(row, clock.now()) : null;
    },
    async context(tenant, id): Promise<SubjectContext | null> {
      const found = await repo.read(tenant, id);
      if (!found) return null;
      const row = await ending.settle(db, found);
      const candidate = row.candidate_id ? await repo.candidate(db, tenant, row.candidate_id) : undefined;
      return {
        candidate: candidate ? { id: candidate.id, name: candidate.name } : null,
        round: { id: row.round_type_id, name: row.round_name, description: row.role },
        status: row.status,
        duration_seconds: row.duration_seconds,
      };
    },
  };

  return {
    provider,
    ending,
    settled,

    async create(tenant: Tenant, input: CreateInterviewInput): Promise<{ row: InterviewRow; invitation: Invitation | null }> {
      const now = clock.now();
      if (input.scheduled_at !== undefined) {
        const at = input.scheduled_at * 1000;
        if (at < now - 60_000) throw new ApiError('parameter_invalid', { param: 'scheduled_at', message: 'scheduled_at is in the past.' });
        if (at > now + 90 * 86_400_000) throw new ApiError('parameter_invalid', { param: 'scheduled_at', message: 'scheduled_at is at most 90 days ahead.' });
      }
      return db.transaction().execute(async (tx) => {
        // Held until commit: an erasure of the candidate meanwhile finds the interview, or the interview finds them gone.
        const candidate = await lockedCandidate(tx, tenant, input.candidate_id);
        if (!candidate) throw new ApiError('resource_not_found', { param: 'candidate_id', message: `No such candidate: '${input.candidate_id}'.` });
        const round = await repo.roundType(tx, tenant.organizationId, input.round_type);
        if (!round) {
          const slugs = await repo.roundSlugs(tx, tenant.organizationId);
          throw new ApiError('invalid_round_type', { param: 'round_type', message: `Unknown round type '${input.round_type}'; valid: ${slugs.join(', ')}.` });
        }
        const company = input.company_id ? await repo.company(tx, tenant.organizationId, input.company_id) : null;
        if (input.company_id && !company) throw new ApiError('resource_not_found', { param: 'company_id', message: `No such company: '${input.company_id}'.` });
        const resume = input.resume_key ? await repo.resumeByKey(tx, tenant, candidate.id, input.resume_key) : null;
        if (input.resume_key && !resume) {
          throw new ApiError('resume_not_found', { param: 'resume_key', message: 'No resume registered from this key for this candidate (POST /v1/resumes first).' });
        }
        const minutes = input.duration_minutes ?? round.duration_minutes;
        // Test mode: five minutes at most, whatever was asked (the contract's sandbox cap).
        const durationSeconds = tenant.livemode ? minutes * 60 : Math.min(minutes * 60, TEST_MODE_MAX_SECONDS);
        const scheduledAt = input.scheduled_at === undefined ? null : input.scheduled_at * 1000;
        if (scheduledAt !== null) {
          await credits.lock(tx, tenant, 'interview'); // concurrent bookings of one organisation count one after another
          await checkCapacity(tx, tenant, scheduledAt, durationSeconds * 1000);
        }

        const method = methodFor(round.slug);
        const parsed = resume ? JSON.parse(resume.parsed) as { skills?: Array<{ canonical: string | null; name: string }> } : null;
        const plan = await drawPlan(tx, repo, {
          organizationId: tenant.organizationId, method, roundSlug: round.slug, difficulty: input.difficulty, role: input.role,
          companySlug: company?.slug ?? null, resumeSkills: (parsed?.skills ?? []).map((s) => s.canonical ?? s.name),
          durationMinutes: Math.ceil(durationSeconds / 60), customer: input.questions ?? [],
        });
        const id = newId();
        const row: InterviewRow = {
          id, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), candidate_id: candidate.id, round_type_id: round.id,
          round_slug: round.slug, round_name: round.name, difficulty: input.difficulty, role: input.role, resume_id: resume?.id ?? null,
          company_id: company?.id ?? null, language: input.language ?? 'en', status: 'scheduled', duration_seconds: durationSeconds,
          scheduled_at: scheduledAt, join_by: scheduledAt === null ? now + UNSCHEDULED_JOIN_WINDOW_MS : scheduledAt + SCHEDULED_JOIN_WINDOW_MS,
          joined_at: null, credit_reference: null, elapsed_ms: 0, running_since: null, deadline_at: null, paused_at: null, ended_at: null,
          end_reason: null, completed_at: null, failure_reason: null, overall_score: null, next_seq: 1,
          interviewer: JSON.stringify(initialState()), recording_key: null, invitation: null, created_at: now, updated_at: now,
        };
        const invitation = input.send_invitation
          ? await invitationFor(tx, { queue, tenant, row, candidate, smtpConfigured: deps.smtpConfigured })
          : null;
        row.invitation = invitation ? JSON.stringify(invitation) : null;
        await repo.insert(tx, row);
        await repo.insertQuestions(tx, toRows(id, plan, now));
        await emit(tx, tenant, 'interview.created', {
          object: 'interview', id, status: 'scheduled', candidate_id: candidate.id, round_type: round.slug, scheduled_at: input.scheduled_at ?? null,
        });
        return { row, invitation };
      });
    },

    /** A page of interviews, each as it stands now (as `get`: what is overdue is committed first, before the sweep comes by). */
    async list(tenant: Tenant, page: PageRequest, filters: { status?: InterviewRow['status']; candidateId?: string }) {
      // The tenant's overdue interviews first, so a filter on expired or ended finds those the sweep has not reached.
      for (const row of await repo.overdueOf(db, tenant, clock.now(), LIST_SETTLE_MAX)) await ending.settle(db, row);
      const found = await repo.list(tenant, page, filters);
      const data: InterviewRow[] = [];
      for (const row of found.data) {
        const now = await ending.settle(db, row);
        if (filters.status === undefined || now.status === filters.status) data.push(now); // one that moved on no longer matches
      }
      return { ...found, data };
    },
    get: (tenant: Tenant, id: string) => settled(tenant, id),

    /** The bookable windows in [from, to): per window, how many more interviews the organisation may hold then. */
    async slots(tenant: Tenant, range: { from?: number; to?: number; roundType?: string }) {
      const now = clock.now();
      const step = SLOT_MINUTES * 60_000;
      const from = Math.ceil(Math.max(now, (range.from ?? 0) * 1000) / step) * step;
      const horizon = Math.floor((now + SLOT_HORIZON_DAYS * 86_400_000) / step) * step;
      const to = Math.min(horizon, range.to === undefined ? horizon : range.to * 1000);
      let duration = step;
      if (range.roundType !== undefined) {
        const round = await repo.roundType(db, tenant.organizationId, range.roundType);
        if (!round) {
          const slugs = await repo.roundSlugs(db, tenant.organizationId);
          throw new ApiError('invalid_round_type', { param: 'round_type', message: `Unknown round type '${range.roundType}'; valid: ${slugs.join(', ')}.` });
        }
        duration = (tenant.livemode ? round.duration_minutes * 60 : Math.min(round.duration_minutes * 60, TEST_MODE_MAX_SECONDS)) * 1000;
      }
      const limit = await repo.concurrencyLimit(db, tenant.organizationId);
      const held = from < to ? await spans(db, tenant, from, to + duration) : [];
      const windows: Array<{ starts_at: number; ends_at: number; capacity: number; available: number }> = [];
      for (let start = from; start < to; start += step) {
        // An interview starting in this window holds a place for its whole length.
        const busy = held.filter((b) => b.start < start + duration && b.end > start).length;
        windows.push({ starts_at: start, ends_at: start + step, capacity: limit, available: Math.max(0, limit - busy) });
      }
      return { windows, limit, durationMs: duration };
    },

    async questions(tenant: Tenant, id: string) {
      const row = await settled(tenant, id);
      return { row, plan: fromRows(await repo.questions(db, id)) };
    },

    /** The customer's own questions join the plan until the candidate joins. */
    async addQuestions(tenant: Tenant, id: string, questions: CustomerQuestion[]) {
      await settled(tenant, id); // a lapsed window is committed as expired first
      return db.transaction().execute(async (tx) => {
        const row = (await repo.locked(tx, (await mustGet(tx, tenant, id)).id))!;
        if (row.status !== 'scheduled') {
          if (row.status === 'cancelled') throw new ApiError('session_cancelled', { message: 'The interview was cancelled.' });
          if (row.status === 'expired') throw neverJoined();
          throw new ApiError('session_already_started', { message: 'Questions can be added only until the candidate joins.' });
        }
        const existing = fromRows(await repo.questions(tx, id));
        const customerCount = existing.filter((q) => q.source === 'customer').length;
        if (customerCount + questions.length > CUSTOMER_QUESTIONS_MAX) {
          throw new ApiError('parameter_invalid', { param: 'questions', message: `An interview holds at most ${CUSTOMER_QUESTIONS_MAX} questions of your own (${customerCount} already).` });
        }
        const minutes = minutesPerQuestion(Math.ceil(row.duration_seconds / 60), existing.length + questions.length);
        const added = questions.map((q, i) => customerQuestion(q, existing.length + i, minutes));
        const now = clock.now();
        await repo.insertQuestions(tx, toRows(id, added, now));
        // The time per question is shared again over the longer plan.
        await repo.setQuestionMinutes(tx, id, minutes);
        await repo.update(tx, id, { updated_at: now });
        return { row, plan: [...existing, ...added].map((q) => ({ ...q, minutes })) };
      });
    },

    /** Before the candidate joins: `interview.cancelled`. A repeat answers the same; after joining, refused. */
    async cancel(tenant: Tenant, id: string): Promise<InterviewRow> {
      await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        // A repeat (or a cancel that raced this one) is answered alike; an expired or joined one is refused.
        const settle = (row: InterviewRow): InterviewRow => {
          if (row.status === 'cancelled') return row;
          if (row.status === 'expired') throw neverJoined();
          throw new ApiError('session_already_started', { message: 'The candidate has joined; the interview can no longer be cancelled.' });
        };
        const row = await mustGet(tx, tenant, id);
        if (row.status !== 'scheduled') return settle(row);
        // Another request (a join, the expiry sweep, a cancel) may move it first: answered as it now stands.
        return (await cancelScheduled(tx, tenant, row)) ?? settle(await mustGet(tx, tenant, id));
      });
    },

    async launchLink(tenant: KeyAuth, id: string, options: { ttlSeconds?: number; redirectUrl?: string }) {
      await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        const row = await mustGet(tx, tenant, id);
        refuseClosed(row, clock.now());
        return candidateAccess.createLaunchLink(tx, tenant, 'interview', id, {
          ...options, capAt: row.status === 'scheduled' ? row.join_by : undefined, keyId: tenant.keyId,
        });
      });
    },

    /**
     * The candidate joins (billable): the first join spends one interview credit, starts the clock and emits
     * `interview.started`; joining a paused interview resumes its clock; any further join changes nothing and is never billed.
     */
    async join(tenant: Tenant, id: string): Promise<InterviewRow> {
      await settled(tenant, id);
      let resumed = false;
      const row = await db.transaction().execute(async (tx) => {
        const current = (await repo.locked(tx, (await mustGet(tx, tenant, id)).id))!;
        const now = clock.now();
        refuseClosed(current, now);
        if (current.status === 'in_progress') return current;
        if (current.status === 'paused') {
          // What its clock has left, but never past its overall limit (closesBy): the timer shows no time it does not have.
          const deadline = now + remainingMs(current, now);
          const changes = { status: 'in_progress' as const, running_since: now, deadline_at: deadline, paused_at: null, updated_at: now };
          await repo.transition(tx, id, ['paused'], changes);
          await scheduleTimeout(tx, current, deadline);
          resumed = true;
          return { ...current, ...changes };
        }
        // The first join: the organisation's limit of interviews at once, then the credit, spent once. The interview
        // balance's lock is taken first, so concurrent first joins of one organisation count one after another.
        await credits.lock(tx, tenant, 'interview');
        const limit = await repo.concurrencyLimit(tx, tenant.organizationId);
        if (await repo.liveCount(tx, tenant) >= limit) {
          throw new ApiError('capacity_unavailable', { message: `The organisation's ${limit} concurrent interviews are all running; retry shortly.`, headers: { 'Retry-After': '60' } });
        }
        const reference = `interview:${id}`;
        const reservation = await credits.reserve(tx, tenant, 'interview', reference);
        await credits.commit(tx, reservation);
        const deadline = now + current.duration_seconds * 1000;
        const changes = {
          status: 'in_progress' as const, joined_at: now, credit_reference: reservation, running_since: now, deadline_at: deadline, updated_at: now,
        };
        if (!(await repo.transition(tx, id, ['scheduled'], changes))) throw new ApiError('session_already_started');
        await scheduleTimeout(tx, current, deadline);
        await emit(tx, tenant, 'interview.started', { object: 'interview', id, status: 'in_progress', candidate_id: current.candidate_id });
        return { ...current, ...changes };
      });
      // Back from a pause: the interviewer says what it still owes (a reply cut short by the pause). A first join does not
      // prompt it: the channel's connect does, so the opening streams to a candidate who is listening.
      deps.onTranscriptChange(id, resumed);
      return row;
    },

    /** The candidate steps away: the clock stops until they join again. A repeat answers the same. */
    async pause(tenant: Tenant, id: string): Promise<InterviewRow> {
      await settled(tenant, id);
      const row = await db.transaction().execute(async (tx) => {
        const current = (await repo.locked(tx, (await mustGet(tx, tenant, id)).id))!;
        if (current.status === 'paused') return current;
        if (current.status === 'scheduled') throw new ApiError('session_not_started', { message: 'Join the interview first.' });
        refuseClosed(current, clock.now());
        const now = clock.now();
        const changes = { ...stopClock(current, now), status: 'paused' as const, paused_at: now, updated_at: now };
        await repo.transition(tx, id, ['in_progress'], changes);
        // The clock stops while the candidate is away: each pause is a signal for the reviewer, as a hidden tab is.
        await repo.insertEvents(tx, [{
          id: newId(), organization_id: current.organization_id, livemode: current.livemode, subject_kind: 'interview', subject_id: id,
          type: PAUSE_SIGNAL, meta: null, created_at: now,
        }]);
        return { ...current, ...changes };
      });
      deps.onTranscriptChange(id);
      return row;
    },

    /** The candidate (or the room) closes the interview: `interview.ended`, then processing. A repeat answers as it stands. */
    async end(tenant: Tenant, id: string, reason: EndReason = 'candidate'): Promise<InterviewRow> {
      const before = await settled(tenant, id);
      if (before.status === 'scheduled') throw new ApiError('session_not_started', { message: 'Join the interview first; cancel it instead if it will not happen.' });
      if (CLOSED.has(before.status)) {
        if (before.status === 'cancelled') throw new ApiError('session_cancelled', { message: 'The interview was cancelled.' });
        if (before.status === 'expired') throw neverJoined();
        return before;
      }
      const row = await db.transaction().execute(async (tx) => ending.end(tx, (await repo.locked(tx, id))!, reason));
      deps.onTranscriptChange(id);
      return row;
    },

    async timer(tenant: Tenant, id: string) {
      const row = await settled(tenant, id);
      const now = clock.now();
      return { row, remainingMs: remainingMs(row, now), elapsedMs: elapsedMs(row, now) };
    },

    /** A code snapshot joins the transcript; with `run`, it is executed in the sandbox first (never inside a transaction). */
    async code(tenant: Tenant, id: string, input: CodeInput) {
      const before = await settled(tenant, id);
      assertRunning(before);
      let run: CodeRun | null = null;
      if (input.run) {
        // A snapshot past the cap would be refused after its run: refused before the sandbox spends anything on it.
        await refuseOverCap(db, id, 'code', CODE_SNAPSHOTS_MAX, 'code snapshots');
        await checkSandboxLanguage(sandbox, input.language);
        const plan = fromRows(await repo.questions(db, id));
        const state = JSON.parse(before.interviewer) as { index: number };
        const problem = plan[state.index]?.problem;
        const found = problem ? await repo.problemLimits(db, problem, before.organization_id) : undefined;
        const limits = found ? { timeLimitMs: found.time_limit_ms, memoryLimitMb: found.memory_limit_mb } : CODE_RUN_LIMITS;
        const execution = await sandbox.execute({
          language: input.language, source: input.source, comparator: 'exact', priority: 'interactive', stdoutBytes: 1_048_576, subject: id,
          limits, cases: [{ name: 'run', input: input.stdin ?? '' }],
        }).catch(sandboxError);
        run = runOf(execution);
      }
      const lines = input.source.split('\n').length;
      const turn = await appendArtifact(id, 'code', CODE_SNAPSHOTS_MAX, 'code snapshots',
        `Shared ${input.language} code (${lines} line${lines === 1 ? '' : 's'})${run ? `, ran it: ${run.status}` : ''}.`,
        { language: input.language, source: input.source, run });
      deps.onTranscriptChange(id, true);
      return { turn, run };
    },

    /** A signed PUT for one whiteboard PNG; the image joins the transcript at this turn once uploaded. */
    async boardUploadUrl(tenant: Tenant, id: string) {
      const before = await settled(tenant, id);
      assertRunning(before);
      const key = `${interviewFolder(before)}board/${newId()}.png`;
      const turn = await appendArtifact(id, 'board', BOARD_MAX_IMAGES, 'whiteboard images', 'Shared a whiteboard snapshot.', { key });
      const signed = await storage.signedPutUrl(key, { expiresIn: UPLOAD_URL_TTL_S, maxBytes: BOARD_MAX_BYTES, accept: 'png' });
      deps.onTranscriptChange(id);
      return { key, turn, url: signed.url, expiresIn: signed.expiresIn };
    },

    /**
     * A signed PUT for recording piece `index` (0, 1, 2, … in order), while the interview is live and in live mode
     * only; the pieces are joined into one recording when the interview is processed.
     */
    async recordingChunkUrl(tenant: Tenant, id: string, index: number) {
      const row = await settled(tenant, id);
      if (!tenant.livemode) throw new ApiError('recording_not_ready', { message: 'Test-mode interviews are never recorded.' });
      if (!LIVE.includes(row.status)) refuseClosed(row, clock.now());
      if (!Number.isSafeInteger(index) || index < 0 || index >= RECORDING_CHUNKS_MAX) {
        throw new ApiError('parameter_invalid', { param: 'index', message: `index is 0 to ${RECORDING_CHUNKS_MAX - 1}.` });
      }
      // What the recording may still take: 64 MiB in all, less the other pieces stored (one listing). A full recording
      // takes no more pieces; the local storage also checks the total as each piece is stored (a candidate may hold
      // many links at once).
      const key = recordingChunkKey(row, index);
      const others = await bytesBeside(storage, recordingPiecesPrefix(row), key);
      const left = RECORDING_MAX_BYTES - others;
      if (left <= 0) throw new ApiError('interview_limit_reached', { message: `A recording keeps at most ${RECORDING_MAX_BYTES} bytes; it is full.` });
      const maxBytes = Math.min(RECORDING_CHUNK_MAX_BYTES, left);
      const signed = await storage.signedPutUrl(key, { expiresIn: UPLOAD_URL_TTL_S, maxBytes, accept: 'recording_chunk', folderMaxBytes: RECORDING_MAX_BYTES });
      return { url: signed.url, expiresIn: signed.expiresIn, maxBytes };
    },

    /** Proctoring signals while the interview is live, up to the cap (`meta` is not stored here: the contract). */
    async recordEvents(tenant: Tenant, id: string, types: string[]): Promise<number> {
      await settled(tenant, id);
      return db.transaction().execute(async (tx) => {
        const row = (await repo.locked(tx, (await mustGet(tx, tenant, id)).id))!;
        if (!LIVE.includes(row.status)) return 0;
        const room = Math.max(0, PROCTORING_EVENTS_CAP - (await repo.countEvents(tx, id)));
        const kept = types.slice(0, room);
        if (kept.length === 0) return 0;
        const now = clock.now();
        await repo.insertEvents(tx, kept.map((type) => ({
          id: newId(), organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), subject_kind: 'interview' as const,
          subject_id: id, type, meta: null, created_at: now,
        })));
        return kept.length;
      });
    },

    async transcript(tenant: Tenant, id: string) {
      const row = await settled(tenant, id);
      const stored = await repo.report(db, tenant, id);
      if (!stored) throw new ApiError('transcript_not_ready', notReady(row, 'transcript'));
      return { row, transcript: JSON.parse(stored.transcript) as TranscriptTurn[], createdAt: stored.created_at };
    },

    async report(tenant: Tenant, id: string) {
      const row = await settled(tenant, id);
      const stored = await repo.report(db, tenant, id);
      if (!stored) throw new ApiError('report_not_ready', notReady(row, 'report'));
      return { row, report: JSON.parse(stored.report) as Record<string, unknown>, createdAt: stored.created_at };
    },

    /** A signed, expiring link to the recording (live interviews the room recorded; never in test mode). */
    async recordingUrl(tenant: Tenant, id: string) {
      const row = await settled(tenant, id);
      if (!tenant.livemode) throw new ApiError('recording_not_ready', { message: 'Test-mode interviews are never recorded.' });
      if (!row.recording_key) throw new ApiError('recording_not_ready');
      const format = recordingFormatOfKey(row.recording_key);
      const signed = await storage.signedGetUrl(row.recording_key, { expiresIn: RECORDING_URL_TTL_S, contentType: format.contentType, fileName: `interview-${id}.${format.extension}` });
      return { url: signed.url, expiresIn: signed.expiresIn, contentType: format.contentType };
    },

    /** A whiteboard image's signed link for the transcript's reader. */
    imageUrl: async (key: string) => (await storage.signedGetUrl(key, { expiresIn: RECORDING_URL_TTL_S, contentType: 'image/png' })).url,

    /**
     * Erasure: the candidate's live interviews end (as abandoned) and those not yet joined are cancelled, so nothing
     * of the person can be added after; their words, signals and reports go, and a job deletes their files (whiteboard
     * images, the recording and its pieces) outside the transaction. The interviews stay, anonymous, for the
     * customer's records.
     */
    async eraseCandidate(tx: Kysely<Database>, tenant: Tenant, candidateId: string): Promise<void> {
      const rows = await repo.ofCandidate(tx, tenant, candidateId);
      if (rows.length === 0) return;
      for (const { id } of rows) {
        const row = (await repo.locked(tx, id))!; // as it is now: a join may have committed since the read
        if (LIVE.includes(row.status)) await ending.end(tx, row, 'abandoned');
        else if (row.status === 'scheduled') await cancelScheduled(tx, tenant, row);
      }
      const keys = [...await repo.boardKeys(tx, rows.map((r) => r.id)), ...rows.flatMap((r) => (r.recording_key ? [r.recording_key] : []))];
      // Each interview's folder goes whole: a write cut short by a killed process (local storage's `<key>.<random>.part`
      // of a recording being joined, or of an upload) is in it under a name nothing records.
      const files = { keys, recordings: [], folders: rows.map((r) => ({ organization_id: r.organization_id, id: r.id })) };
      await queue.enqueue(tx, ERASE_FILES_JOB, files, { maxAttempts: PERSISTENT_MAX_ATTEMPTS, organizationId: tenant.organizationId });
      // Upload links handed out before the erasure work until they expire: what is put through them then goes too.
      await queue.enqueue(tx, ERASE_FILES_JOB, files, { runAt: clock.now() + UPLOAD_URL_TTL_S * 1000 + 60_000, maxAttempts: PERSISTENT_MAX_ATTEMPTS, organizationId: tenant.organizationId });
      await forgetSessionReplays(tx, tenant, 'interview', rows.map((r) => r.id)); // code snapshots and their runs' output
      await candidateAccess.endSubjectAccess(tx, tenant, 'interview', rows.map((r) => r.id));
      // A failed send's error names the address it was refused for (mail servers say so): it goes with the invitation.
      await queue.forgetErrors(tx, INVITE_JOB, rows.map((r) => r.id));
      await repo.eraseCandidate(tx, tenant, candidateId);
    },
  };
}

/** A transcript turn as GET …/transcript serves it. */
export interface TranscriptTurn {
  seq: number;
  speaker: 'interviewer' | 'candidate';
  kind: 'text' | 'code' | 'board';
  text: string;
  question_position: number | null;
  at_seconds: number;
  created_at: number;
  code?: { language: string; source: string; run: { status: CodeRun['status']; exit_code: number | null; stdout: string; stderr: string; time_ms: number | null } | null };
  image?: { key: string; uploaded: boolean };
}

function runOf(execution: Awaited<ReturnType<Sandbox['execute']>>): CodeRun {
  // U+0000 (a program may print one) cannot be stored in PostgreSQL text: shown as U+FFFD.
  const clip = (b: Buffer) => (b.length > CODE_OUTPUT_SHOWN ? `${b.subarray(0, CODE_OUTPUT_SHOWN).toString('utf8')}…` : b.toString('utf8')).replaceAll('\u0000', '\uFFFD');
  if (execution.compile && !execution.compile.ok) {
    return { status: 'compile_error', exitCode: null, stdout: '', stderr: execution.compile.output.slice(0, CODE_OUTPUT_SHOWN).replaceAll('\u0000', '\uFFFD'), timeMs: null };
  }
  const c = execution.cases[0];
  const status: CodeRun['status'] = c.verdict === 'TIME_LIMIT_EXCEEDED' ? 'time_limit' : c.verdict === 'MEMORY_LIMIT_EXCEEDED' ? 'memory_limit'
    : c.verdict === 'OUTPUT_LIMIT_EXCEEDED' ? 'output_limit' : c.verdict === 'RUNTIME_ERROR' ? 'runtime_error' : 'ok';
  return { status, exitCode: c.exitCode, stdout: clip(c.stdout), stderr: clip(c.stderr), timeMs: c.timeMs };
}

export type InterviewService = ReturnType<typeof createInterviewService>;
