/** What a candidate reads for each way a room can end or fail: from the service's error code, never a stack trace. */

export interface Notice { title: string; body: string }

const BY_CODE: Record<string, Notice> = {
  invalid_launch_token: {
    title: 'This link can no longer be used',
    body: 'Assessment links work once and for a limited time. This one has expired or has already been opened. Ask the company that sent it for a new link.',
  },
  assignment_expired: {
    title: 'This assessment has expired',
    body: 'The window for taking this assessment has closed. If you still want to take it, contact the company that invited you.',
  },
  session_cancelled: {
    title: 'This assessment was cancelled',
    body: 'The company that invited you cancelled this assessment, so there is nothing to do here. Contact them if you think this is a mistake.',
  },
  session_already_finalized: {
    title: 'You have already finished this assessment',
    body: 'Your answers were submitted and cannot be changed. The company that invited you will be in touch.',
  },
  invalid_session_token: {
    title: 'Your session has ended',
    body: 'For your security, sessions expire. Reopen the assessment from the page or email that brought you here; your submitted work is saved.',
  },
  origin_not_allowed: {
    title: 'This page cannot host the assessment',
    body: 'The assessment is not enabled for this website. If you run this site, add its origin to your allowlist.',
  },
  public_api_not_enabled: {
    title: 'Assessments are unavailable right now',
    body: 'The company that invited you has paused assessments. Please try again later or contact them.',
  },
  module_not_enabled: {
    title: 'Assessments are unavailable right now',
    body: 'This kind of assessment is not enabled for the company that invited you. Please contact them.',
  },
  network_error: {
    title: 'We could not reach the assessment service',
    body: 'Check your internet connection and try again.',
  },
};

export function noticeFor(code: string): Notice {
  return BY_CODE[code] ?? { title: 'Something went wrong', body: 'The assessment could not be opened. Please try again in a moment; if it keeps happening, contact the company that invited you.' };
}

/** The pages a room shows when the session is over. */
export const TERMINAL: Record<'completed' | 'timed_out' | 'cancelled' | 'expired', Notice> = {
  completed: {
    title: 'Thank you — you are done',
    body: 'Your work has been submitted. The company that invited you will receive your results and be in touch about next steps.',
  },
  timed_out: {
    title: 'Time is up',
    body: 'The time for this assessment has run out. Everything you submitted before the end has been kept and will be scored.',
  },
  cancelled: BY_CODE.session_cancelled!,
  expired: BY_CODE.assignment_expired!,
};

/** Plain words for a verdict code. */
export const VERDICT_LABELS: Record<string, string> = {
  ACCEPTED: 'Accepted', WRONG_ANSWER: 'Wrong answer', TIME_LIMIT_EXCEEDED: 'Time limit exceeded',
  MEMORY_LIMIT_EXCEEDED: 'Memory limit exceeded', RUNTIME_ERROR: 'Runtime error', COMPILE_ERROR: 'Compilation error',
  OUTPUT_LIMIT_EXCEEDED: 'Output limit exceeded', COMPLETED: 'Ran', PENDING: 'Judging…',
};
