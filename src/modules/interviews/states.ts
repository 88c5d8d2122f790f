import { sql, type RawBuilder } from 'kysely';
import type { InterviewStatus } from '../../db/schema.js';
import type { InterviewRow } from './repo.js';

/**
 * An interview's states and the raw numeric code each carries (the contract's webhook shape has the number; the
 * API gives both). The numbers are stable: clients may branch on them. See docs/interviews.md.
 */
export const STATUS_CODES: Record<InterviewStatus, number> = {
  scheduled: 10,
  in_progress: 20,
  paused: 25,
  ended: 30,
  completed: 40,
  failed: 50,
  cancelled: 60,
  expired: 70,
};

export const INTERVIEW_STATUSES = Object.keys(STATUS_CODES) as InterviewStatus[];
/** The candidate is in the room or may come back to it. */
export const LIVE: InterviewStatus[] = ['in_progress', 'paused'];
/** Over for the candidate: nothing more is said. */
export const CLOSED = new Set<InterviewStatus>(['ended', 'completed', 'failed', 'cancelled', 'expired']);

/** A test-mode interview's length (the contract: sandbox interviews are capped at five minutes). */
export const TEST_MODE_MAX_SECONDS = 300;
/** An interview without `scheduled_at` can be joined for 7 days (as a coding assignment); a booked one within an hour of its slot. */
export const UNSCHEDULED_JOIN_WINDOW_MS = 7 * 86_400_000;
export const SCHEDULED_JOIN_WINDOW_MS = 3_600_000;
/** A paused interview whose candidate does not come back within this ends (its transcript is scored as it stands). */
export const PAUSE_LIMIT_MS = 30 * 60_000;

/** Interview time used so far, ms: the clock runs only while the interview is in progress. */
export function elapsedMs(row: Pick<InterviewRow, 'elapsed_ms' | 'running_since'>, now: number): number {
  return row.elapsed_ms + (row.running_since === null ? 0 : Math.max(0, now - row.running_since));
}

/**
 * However it was paused, a joined interview is over twice its length and a pause's limit after its first join (null
 * before the join).
 */
export function closesBy(row: Pick<InterviewRow, 'joined_at' | 'duration_seconds'>): number | null {
  return row.joined_at === null ? null : row.joined_at + 2 * row.duration_seconds * 1000 + PAUSE_LIMIT_MS;
}

/** Interview time left: what its clock has not used, and never past closesBy (a resume near it gets only the time to it). */
export function remainingMs(row: Pick<InterviewRow, 'elapsed_ms' | 'running_since' | 'duration_seconds' | 'status' | 'joined_at'>, now: number): number {
  if (CLOSED.has(row.status)) return 0;
  const left = row.duration_seconds * 1000 - elapsedMs(row, now);
  const limit = closesBy(row);
  return Math.max(0, limit === null ? left : Math.min(left, limit - now));
}

/** The clock stopped at `now`: what a pause or the end writes. */
export function stopClock(row: Pick<InterviewRow, 'elapsed_ms' | 'running_since' | 'duration_seconds'>, now: number) {
  return { elapsed_ms: Math.min(row.duration_seconds * 1000, elapsedMs(row, now)), running_since: null, deadline_at: null };
}

/** Whether a live interview is over by the clock, by a pause never resumed or by its overall limit (closesBy), and why. */
export function overdueBy(row: InterviewRow, now: number): 'time_up' | 'abandoned' | null {
  if (row.status === 'in_progress' && row.deadline_at !== null && row.deadline_at <= now) return 'time_up';
  // Pauses stop the clock, but not for ever: twice the interview's length and a pause's limit after the join, it is over.
  const limit = closesBy(row);
  if ((row.status === 'in_progress' || row.status === 'paused') && limit !== null && limit <= now) return 'abandoned';
  if (row.status === 'paused' && row.paused_at !== null && row.paused_at + PAUSE_LIMIT_MS <= now) return 'abandoned';
  return null;
}

/**
 * The status a read of an interview shows at `now`, as SQL over its row (for counts that must agree with reads):
 * `settle`'s rule, which commits it before answering while the stored row waits for its job: a scheduled interview
 * past its join-by is expired; a live one `overdue` (its deadline, twice its length and a pause's limit after the
 * join, a pause never resumed) is ended. Change it with `overdueBy` above and ending.ts `settle`.
 */
export function interviewStatusAsReadSql(now: number): RawBuilder<InterviewStatus> {
  return sql<InterviewStatus>`case
    when status = 'scheduled' and join_by <= ${now} then 'expired'
    when status = 'in_progress' and deadline_at <= ${now} then 'ended'
    when status in ('in_progress', 'paused') and joined_at + 2 * duration_seconds * 1000 + ${PAUSE_LIMIT_MS} <= ${now} then 'ended'
    when status = 'paused' and paused_at + ${PAUSE_LIMIT_MS} <= ${now} then 'ended'
    else status end`;
}
