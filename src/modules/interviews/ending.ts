import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { Clock } from '../../platform/clock.js';
import type { Emit } from '../webhooks/service.js';
import { tenantOfRow, type InterviewRepo, type InterviewRow } from './repo.js';
import { elapsedMs, overdueBy, STATUS_CODES, stopClock } from './states.js';

/** Why an interview ended, as its record says. */
export type EndReason = 'candidate' | 'interviewer' | 'time_up' | 'abandoned';

export const PROCESS_JOB = 'interview.process';
export const TIMEOUT_JOB = 'interview.timeout';
/** Deletes an erased candidate's interview files (queued by the erasure, run outside its transaction). */
export const ERASE_FILES_JOB = 'interview.erase-files';

/**
 * Ending an interview, whoever ends it (the candidate, the interviewer's closing, the clock, a pause never resumed):
 * the clock stops, the room closes, `interview.ended` is emitted and the transcript's processing queued, all in one
 * transaction and once (the transition only from a live state).
 */
export function createEnding(deps: { clock: Clock; repo: InterviewRepo; queue: JobQueue; emit: Emit }) {
  const { clock, repo, queue, emit } = deps;

  async function end(tx: Transaction<Database> | Kysely<Database>, row: InterviewRow, reason: EndReason): Promise<InterviewRow> {
    const now = clock.now();
    // Time up: the interview ended at its deadline, not when the sweep noticed.
    const endedAt = reason === 'time_up' && row.deadline_at !== null ? Math.min(now, row.deadline_at) : now;
    const changes = { ...stopClock(row, endedAt), status: 'ended' as const, ended_at: endedAt, end_reason: reason, paused_at: null, updated_at: now };
    if (!(await repo.transition(tx, row.id, ['in_progress', 'paused'], changes))) return (await repo.byId(tx, row.id))!;
    const ended = { ...row, ...changes };
    await emit(tx, tenantOfRow(row), 'interview.ended', {
      object: 'interview', id: row.id, status: 'ended', reason, candidate_id: row.candidate_id, duration_seconds: Math.round(elapsedMs(ended, endedAt) / 1000),
    });
    // The contract's shape, reporting that processing is under way: the raw status (30) and an integer score, 0 until
    // the report exists (interview.summary_available and GET …/report carry the real one).
    await emit(tx, tenantOfRow(row), 'interview.completed', { id: row.id, status: STATUS_CODES.ended, overall_score: 0 });
    await queue.enqueue(tx, PROCESS_JOB, { interview_id: row.id }, { uniqueKey: `${PROCESS_JOB}:${row.id}`, maxAttempts: 8, organizationId: row.organization_id });
    return ended;
  }

  /** Whether a live interview is over by the clock or by a pause never resumed, and why (states.ts; interviewStatusAsReadSql in SQL). */
  const overdue = overdueBy;

  return {
    end,
    overdue,
    /** The interview as it stands now, an overdue end committed first (so a refusal because time is up is not rolled back). */
    async settle(db: Kysely<Database>, row: InterviewRow): Promise<InterviewRow> {
      const now = clock.now();
      if (row.status === 'scheduled' && row.join_by <= now) {
        await repo.transition(db, row.id, ['scheduled'], { status: 'expired', updated_at: now });
        return (await repo.byId(db, row.id))!;
      }
      const reason = overdue(row, now);
      if (!reason) return row;
      return db.transaction().execute(async (tx) => {
        const current = (await repo.locked(tx, row.id))!;
        return overdue(current, clock.now()) ? end(tx, current, reason) : current;
      });
    },
  };
}

export type Ending = ReturnType<typeof createEnding>;
