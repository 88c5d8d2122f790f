import nodemailer from 'nodemailer';
import type { Kysely } from 'kysely';
import type { BackgroundJobsTable, Database } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobHandler } from '../../jobs/worker.js';
import type { Clock } from '../../platform/clock.js';
import type { Tenant } from '../../platform/context.js';
import type { CandidateAccessService } from '../candidate-access/service.js';
import { tenantOfRow, type InterviewRepo, type InterviewRow } from './repo.js';

export const INVITE_JOB = 'interview.invite';
/** An invitation's launch link lives as long as the join window allows, and never more than the contract's 7 days. */
const INVITE_LINK_TTL_S = 7 * 86_400;

/**
 * What became of `send_invitation`: `queued` (live, SMTP configured; then `sent` or `failed`), or `not_sent` with the
 * reason (`test_mode`: the contract's test mode never emails; `smtp_not_configured`) and the message it would have been.
 */
export interface Invitation {
  status: 'queued' | 'sent' | 'failed' | 'not_sent';
  reason: 'test_mode' | 'smtp_not_configured' | 'interview_closed' | null;
  to: string;
  subject: string;
  /** The message's text; the launch link is minted when it is sent, so a described one shows a placeholder. */
  text: string;
  sent_at: number | null;
  error: string | null;
}

/**
 * The invitation as it stands: one still queued when the interview was cancelled or expired will never go (its job
 * sends to scheduled interviews only), so it reads `not_sent`, `interview_closed`.
 */
export function invitationOf(row: Pick<InterviewRow, 'invitation' | 'status'>): Invitation | null {
  if (!row.invitation) return null;
  const invitation = JSON.parse(row.invitation) as Invitation;
  return invitation.status === 'queued' && row.status !== 'scheduled' ? { ...invitation, status: 'not_sent', reason: 'interview_closed' } : invitation;
}

const LINK_PLACEHOLDER = '{launch_link}';

function message(row: Pick<InterviewRow, 'round_name' | 'role' | 'duration_seconds' | 'scheduled_at' | 'join_by'>, candidateName: string, link: string) {
  const minutes = Math.round(row.duration_seconds / 60);
  const when = row.scheduled_at !== null
    ? `It is booked for ${new Date(row.scheduled_at).toUTCString()}; the link opens the room until ${new Date(row.join_by).toUTCString()}.`
    : `Join any time before ${new Date(row.join_by).toUTCString()}.`;
  return {
    subject: `Your ${row.round_name} interview for ${row.role}`,
    text: [
      `Hello ${candidateName},`,
      '',
      `You are invited to a ${minutes}-minute ${row.round_name} interview for the ${row.role} role, held by an AI interviewer.`,
      when,
      '',
      `Open your interview: ${link}`,
      '',
      'The link works once: open it when you are ready to begin. You can answer by voice or by typing.',
    ].join('\n'),
  };
}

/** The invitation asked for at creation: queued to send (live with SMTP), or described (test mode, no SMTP). */
export async function invitationFor(tx: Kysely<Database>, deps: {
  queue: JobQueue; tenant: Tenant; row: InterviewRow; candidate: { name: string; email: string }; smtpConfigured: boolean;
}): Promise<Invitation> {
  const { subject, text } = message(deps.row, deps.candidate.name, LINK_PLACEHOLDER);
  const base = { to: deps.candidate.email, subject, text, sent_at: null, error: null };
  if (!deps.tenant.livemode) return { ...base, status: 'not_sent', reason: 'test_mode' };
  if (!deps.smtpConfigured) return { ...base, status: 'not_sent', reason: 'smtp_not_configured' };
  // Its link lives 7 days at most: an interview whose window closes later is invited 7 days before it closes, so the
  // link still opens the room at the booked time (minted now, it lapsed weeks before).
  const runAt = Math.max(deps.row.created_at, deps.row.join_by - INVITE_LINK_TTL_S * 1000);
  await deps.queue.enqueue(tx, INVITE_JOB, { interview_id: deps.row.id }, { uniqueKey: `${INVITE_JOB}:${deps.row.id}`, maxAttempts: 5, runAt, organizationId: deps.row.organization_id });
  return { ...base, status: 'queued', reason: null };
}

/**
 * The invitation job: mints a launch link (committed first, so the link in the message exists), then sends over SMTP
 * outside any transaction. A retry after a failed send mints a fresh link; the unused one simply expires.
 */
export function invitationJobs(deps: {
  db: Kysely<Database>; clock: Clock; repo: InterviewRepo; candidateAccess: CandidateAccessService; smtp: { url: string; from: string } | null;
}): JobHandler[] {
  // A stalled relay fails the send (and the job retries) in seconds, not after nodemailer's default of minutes.
  const transport = deps.smtp ? nodemailer.createTransport({ url: deps.smtp.url, connectionTimeout: 20_000, greetingTimeout: 20_000, socketTimeout: 30_000 }) : null;
  // Written only while the invitation is still on the record: an erasure of the candidate during the send removed it.
  const record = (row: InterviewRow, invitation: Invitation) => deps.repo.recordInvitation(deps.db, row.id, row.candidate_id!, JSON.stringify(invitation));
  /** The outcome onto an invitation still `queued` (a later run, or the erasure, may have settled it already). */
  const settleQueued = async (interviewId: string, outcome: Partial<Invitation>) => {
    const row = await deps.repo.byId(deps.db, interviewId);
    if (!row?.invitation || row.candidate_id === null) return;
    const invitation = JSON.parse(row.invitation) as Invitation;
    if (invitation.status === 'queued') await record(row, { ...invitation, ...outcome });
  };
  /** One try; `sent.at` is stamped once the relay took the message. */
  async function send(interviewId: string, job: BackgroundJobsTable, sent: { at: number | null }): Promise<void> {
    const row = await deps.repo.byId(deps.db, interviewId);
    if (!row || !row.invitation || row.status !== 'scheduled' || row.candidate_id === null) return;
    const invitation = JSON.parse(row.invitation) as Invitation;
    if (invitation.status !== 'queued') return;
    const tenant = tenantOfRow(row);
    const candidate = await deps.repo.candidate(deps.db, tenant, row.candidate_id);
    if (!candidate) return;
    // A worker without SMTP (a `prep worker` configured apart from the API that queued it): retried, then failed.
    if (!transport) throw new Error('SMTP is not configured on the worker that took the invitation');
    const link = await deps.db.transaction().execute((tx) => deps.candidateAccess.createLaunchLink(tx, tenant, 'interview', row.id, {
      ttlSeconds: INVITE_LINK_TTL_S, capAt: row.join_by,
    }));
    const { subject, text } = message(row, candidate.name, link.url);
    try {
      await transport.sendMail({ from: deps.smtp!.from, to: candidate.email, subject, text });
    } catch (error) {
      if (job.attempts >= job.max_attempts) { // the last try: say so on the record
        await record(row, { ...invitation, status: 'failed', error: (error as Error).message.slice(0, 300) });
        return;
      }
      throw error;
    }
    sent.at = deps.clock.now();
    await record(row, { ...invitation, status: 'sent', sent_at: sent.at });
  }
  return [{
    kind: INVITE_JOB,
    run: async (payload, job) => {
      const { interview_id } = payload as { interview_id: string };
      const sent: { at: number | null } = { at: null };
      try {
        await send(interview_id, job, sent);
      } catch (error) {
        // The last try failed outside the send (a database error before it, or recording after it): the record says
        // what became of the message, rather than queued for ever. Best effort: the database may still be failing.
        if (job.attempts >= job.max_attempts) {
          await settleQueued(interview_id, sent.at === null ? { status: 'failed', error: 'sending stopped: its last try failed before the message went' } : { status: 'sent', sent_at: sent.at })
            .catch(() => undefined);
        }
        throw error;
      }
    },
    // The worker died on every try: the record says failed, as after a last failed send, rather than queued for ever.
    abandoned: (payload) => settleQueued((payload as { interview_id: string }).interview_id, { status: 'failed', error: 'sending stopped: its worker stopped on every try' }),
  }];
}
