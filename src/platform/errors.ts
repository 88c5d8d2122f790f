/**
 * The closed set of error codes. Clients branch on `code`; each code has one type and one HTTP status.
 * docs/errors.md documents the same table and the OpenAPI document publishes the codes as an enum.
 */
export const ERROR_TYPES = {
  authentication_error: 401,
  permission_error: 403,
  invalid_request_error: 400,
  not_found_error: 404,
  rate_limit_error: 429,
  idempotency_error: 409,
  insufficient_credits: 402,
  capacity_error: 429,
  api_error: 500,
} as const;

export type ErrorType = keyof typeof ERROR_TYPES;

interface CodeInfo {
  type: ErrorType;
  status: number;
  /** Default human message; call sites may give a more specific one. */
  message: string;
}

function code(type: ErrorType, status: number, message: string): CodeInfo {
  return { type, status, message };
}

export const ERROR_CODES = {
  // From the contract.
  invalid_api_key: code('authentication_error', 401, 'The API key is missing, malformed, or not a key of this service.'),
  revoked_api_key: code('authentication_error', 401, 'This API key has been revoked or has expired; use its replacement.'),
  invalid_session_token: code('authentication_error', 401, 'The session token is invalid or expired; refresh the session.'),
  origin_not_allowed: code('permission_error', 403, 'This origin is not allowlisted; add it with POST /v1/domains.'),
  invalid_origin: code('invalid_request_error', 400, 'The origin is malformed; give scheme, host and optional port only.'),
  invalid_launch_token: code('authentication_error', 401, 'The launch link has expired or was already used.'),
  assignment_expired: code('invalid_request_error', 400, 'The assignment window lapsed before the session was opened.'),
  session_cancelled: code('invalid_request_error', 400, 'The session was cancelled.'),
  session_already_finalized: code('invalid_request_error', 400, 'The session has already finished.'),
  session_already_started: code('invalid_request_error', 400, 'The session has already started and can no longer be cancelled.'),
  session_scope_mismatch: code('permission_error', 403, 'The session token is bound to a different subject.'),
  resume_not_found: code('not_found_error', 404, 'No such resume in this organisation.'),
  unprocessable_resume: code('invalid_request_error', 422, 'The file could not be read as a resume.'),
  invalid_round_type: code('invalid_request_error', 400, 'Unknown round type.'),
  report_not_ready: code('invalid_request_error', 400, 'The report is not ready yet; retry later.'),
  transcript_not_ready: code('invalid_request_error', 400, 'The transcript is still being processed; retry later.'),
  recording_not_ready: code('not_found_error', 404, 'No recording exists for this interview.'),
  public_api_not_enabled: code('permission_error', 403, 'The public API is not enabled for this organisation.'),
  module_not_enabled: code('permission_error', 403, 'This feature is not enabled for this organisation.'),
  insufficient_credits: code('insufficient_credits', 402, 'The organisation is out of credits for this operation.'),
  sandbox_quota_exceeded: code('insufficient_credits', 402, 'The sandbox monthly quota is used up.'),
  capacity_unavailable: code('capacity_error', 429, 'The platform is at capacity; back off and retry after the Retry-After interval.'),
  idempotency_key_reuse: code('idempotency_error', 409, 'This Idempotency-Key was already used with a different request.'),
  idempotency_in_progress: code('idempotency_error', 409, 'A request with this Idempotency-Key is still in progress; retry shortly.'),
  event_not_replayable: code('invalid_request_error', 400, 'Only an event that failed every attempt can be redelivered.'),

  // Defined by this service for conditions the contract does not name.
  parameter_missing: code('invalid_request_error', 400, 'A required parameter is missing.'),
  parameter_invalid: code('invalid_request_error', 400, 'A parameter is invalid.'),
  parameter_unknown: code('invalid_request_error', 400, 'The request has a parameter this operation does not accept.'),
  invalid_cursor: code('invalid_request_error', 400, 'The cursor is malformed; pass back next_cursor unmodified.'),
  invalid_json: code('invalid_request_error', 400, 'The request body is not valid JSON.'),
  malformed_request: code('invalid_request_error', 400, 'The HTTP request is malformed.'),
  range_not_satisfiable: code('invalid_request_error', 416, 'The Range header asks for bytes the file does not have.'),
  unsupported_media_type: code('invalid_request_error', 400, 'Request bodies must be JSON (Content-Type: application/json).'),
  body_too_large: code('invalid_request_error', 400, 'The request body is too large.'),
  idempotency_key_invalid: code('idempotency_error', 400, 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.'),
  resource_not_found: code('not_found_error', 404, 'No such resource.'),
  route_not_found: code('not_found_error', 404, 'Unrecognized request URL.'),
  email_is_platform_account: code('invalid_request_error', 400, 'This email address belongs to a platform account and cannot be a candidate.'),
  candidate_email_taken: code('invalid_request_error', 400, 'A candidate with this email address already exists.'),
  api_key_self_revocation: code('invalid_request_error', 400, 'A key cannot revoke itself without a grace window.'),
  session_not_started: code('invalid_request_error', 400, 'The session has not started yet; start it first.'),
  answers_incomplete: code('invalid_request_error', 400, 'Some items are unanswered; answer every item before submitting.'),
  interview_paused: code('invalid_request_error', 400, 'The interview is paused; join again to resume it.'),
  interview_limit_reached: code('invalid_request_error', 400, 'This interview has reached a limit (turns, code snapshots or whiteboard images).'),
  attempts_exhausted: code('invalid_request_error', 400, 'Every attempt at this problem has been used.'),
  secret_rotation_limit: code('invalid_request_error', 400, 'Too many rotated secrets are still inside their grace window.'),
  domain_limit: code('invalid_request_error', 400, 'This environment allowlists the most origins it may; delete one first.'),
  api_key_limit: code('invalid_request_error', 400, 'This environment holds the most API keys it may; revoke one first.'),
  webhook_endpoint_limit: code('invalid_request_error', 400, 'This environment has the most webhook endpoints it may have; delete one first.'),
  api_key_inactive: code('invalid_request_error', 400, 'This key is revoked or already rotated.'),
  rate_limited: code('rate_limit_error', 429, 'Too many requests; back off and retry after the Retry-After interval.'),
  internal_error: code('api_error', 500, 'Something went wrong on our side; retry, and contact support with the request_id if it persists.'),
  service_unavailable: code('api_error', 503, 'The service is temporarily unavailable; retry shortly.'),
  execution_unavailable: code('api_error', 503, 'Code execution is not available on this server.'),
  file_url_invalid: code('permission_error', 403, 'The file URL is not valid: it was changed or was not issued by this service.'),
  file_url_expired: code('permission_error', 403, 'The file URL has expired; request a new one.'),
  file_too_large: code('invalid_request_error', 413, 'The file is larger than this upload allows.'),
  unsupported_file_type: code('invalid_request_error', 415, 'The file type is not accepted here; upload a PDF, DOCX or plain-text file.'),
  file_not_found: code('not_found_error', 404, 'No file at this URL.'),
  resume_already_registered: code('invalid_request_error', 400, 'This upload key is already registered as a resume.'),
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ALL_ERROR_CODES = Object.keys(ERROR_CODES) as ErrorCode[];

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly type: ErrorType;
  readonly status: number;
  readonly param: string | null;
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, options: { message?: string; param?: string | null; headers?: Record<string, string> } = {}) {
    const info = ERROR_CODES[code];
    super(options.message ?? info.message);
    this.name = 'ApiError';
    this.code = code;
    this.type = info.type;
    this.status = info.status;
    this.param = options.param ?? null;
    const headers = options.headers ?? {};
    // Every 429 says when to come back (the contract's Retry-After); a thrower names its own interval, else 1 second.
    const says = Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after');
    this.headers = info.status === 429 && !says ? { 'Retry-After': '1', ...headers } : headers;
  }
}

export function notFound(what: string, id?: string): ApiError {
  return new ApiError('resource_not_found', { message: id ? `No such ${what}: '${id}'.` : `No such ${what}.`, param: id ? 'id' : null });
}

/** Each code's documentation, served by the service itself (GET /docs/errors). */
export function docUrl(publicUrl: string, code: string): string {
  return `${publicUrl}/docs/errors#${code}`;
}
