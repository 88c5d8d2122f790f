/** The room's one HTTP client: JSON in and out, the service's error envelope turned into RoomError. */

export class RoomError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }

  /** Worth retrying: no answer, rate limited, or a server fault. */
  get transient(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown, options?: { keepalive?: boolean }): Promise<T>;
}

const REQUEST_TIMEOUT_MS = 20_000;

/**
 * PUTs bytes to a signed storage URL (the signature is the grant: no token, no cookies), giving up after `timeoutMs`
 * so a stalled upload cannot hold what waits for it (End waits for the last whiteboard image and recording piece).
 */
export const putSigned = (url: string, body: Blob, contentType: string, timeoutMs: number): Promise<Response> =>
  fetch(url, { method: 'PUT', body, headers: { 'content-type': contentType }, credentials: 'omit', signal: AbortSignal.timeout(timeoutMs) });

/**
 * `token()` is read on every call, so a refreshed session token is used from the next request on. A call that
 * hangs (a laptop changing networks) gives up after 20 s as a network error, which callers treat as transient.
 */
export function createApi(base: string, token: () => string | null): Api {
  async function request<T>(method: 'GET' | 'POST', path: string, body: unknown, keepalive = false): Promise<T> {
    const headers: Record<string, string> = {};
    const bearer = token();
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(base + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body), keepalive, credentials: 'omit', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch {
      throw new RoomError(0, 'network_error', 'The assessment service could not be reached. Check your connection; your work is kept.');
    }
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: reported below by status
    }
    if (!response.ok) {
      const error = (json as { error?: { code?: string; message?: string } } | null)?.error;
      throw new RoomError(response.status, error?.code ?? 'api_error', error?.message ?? `The service answered ${response.status}.`);
    }
    return json as T;
  }
  return {
    get: (path) => request('GET', path, undefined),
    post: (path, body, options) => request('POST', path, body, options?.keepalive),
  };
}
