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

export function remainingMs(row: Pick<InterviewRow, 'elapsed_ms' | 'running_since' | 'duration_seconds' | 'status'>, now: number): number {
  if (CLOSED.has(row.status)) return 0;
  return Math.max(0, row.duration_seconds * 1000 - elapsedMs(row, now));
}

/** The clock stopped at `now`: what a pause or the end writes. */
export function stopClock(row: Pick<InterviewRow, 'elapsed_ms' | 'running_since' | 'duration_seconds'>, now: number) {
  return { elapsed_ms: Math.min(row.duration_seconds * 1000, elapsedMs(row, now)), running_since: null, deadline_at: null };
}
