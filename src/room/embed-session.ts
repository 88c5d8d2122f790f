export type Grant = { session_token: string; refresh_after?: number };

/**
 * The session a page handed over (`POST /v1/sessions`'s answer or its token), or the error its developer needs to
 * see at once: `{}` or a failed mint's error body would otherwise send every call without a token.
 */
export function sessionGrant(session: unknown, where: string): Grant {
  const grant = typeof session === 'string' ? { session_token: session } : session;
  const token = grant !== null && typeof grant === 'object' ? (grant as { session_token?: unknown }).session_token : undefined;
  if (typeof token !== 'string' || token === '') {
    throw new Error(`${where} needs a session: the answer of POST /v1/sessions or its session_token (got ${session === null ? 'null' : typeof session !== 'object' ? typeof session : 'an object without session_token'})`);
  }
  return grant as Grant;
}
