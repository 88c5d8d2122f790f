import { createApi, RoomError } from './api.js';
import type { SessionGrant } from './types.js';

/** The claims the room reads from its own token (it never verifies it: the service does). */
export function tokenClaims(token: string): { iat: number; exp: number } | null {
  try {
    const payload = token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const claims = JSON.parse(atob(payload)) as { iat?: unknown; exp?: unknown };
    return typeof claims.iat === 'number' && typeof claims.exp === 'number' ? { iat: claims.iat, exp: claims.exp } : null;
  } catch {
    return null;
  }
}

/**
 * How long after receiving a token to refresh it, measured from the token's own issue time rather than the
 * browser's clock (which may be off by minutes): refresh_after − iat. Without refresh_after (a bare token
 * handed to the widget), five minutes before exp, as the service sets it.
 */
export function refreshDelayMs(token: string, refreshAfter?: number): number {
  const claims = tokenClaims(token);
  if (!claims) return 0;
  const at = refreshAfter ?? claims.exp - 300;
  return Math.max(0, (at - claims.iat) * 1000);
}

export function lifetimeMs(token: string): number {
  const claims = tokenClaims(token);
  return claims ? Math.max(0, (claims.exp - claims.iat) * 1000) : 0;
}

export interface KeeperEvents {
  refreshed(grant: SessionGrant, receivedAt: number): void;
  /** The token can no longer be refreshed (revoked, finished, past its chain's lifetime). */
  lost(error: RoomError): void;
}

/**
 * Holds the session token and refreshes it at refresh_after, so a test longer than one token's 15 minutes
 * keeps working. Checks once a second against the wall clock, which also covers a laptop that slept
 * through the moment; a failed refresh is retried every 10 s until the token expires, and a token that expired
 * unrefreshed (the service unreachable) is lost as `invalid_session_token`.
 */
export class SessionKeeper {
  private current: string;
  private refreshAt = 0;
  private expiresAt = 0;
  private retryAt = 0;
  private inFlight = false;
  /** Bumped by stop() and replace(): a refresh in flight from before answers into nothing. */
  private generation = 0;
  private interval: ReturnType<typeof setInterval> | null = null;

  /** `receivedAt`: when this browser received the token (a grant kept across a reload is older than now). */
  constructor(private readonly base: string, grant: { session_token: string; refresh_after?: number }, private readonly events: KeeperEvents, receivedAt = Date.now()) {
    this.current = grant.session_token;
    this.schedule(grant.session_token, grant.refresh_after, receivedAt);
  }

  token = (): string => this.current;

  start(): void {
    this.interval ??= setInterval(() => void this.tick(), 1000);
  }

  stop(): void {
    this.generation++;
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
  }

  /** A token handed over from outside (the customer's page minted a new one). */
  replace(grant: { session_token: string; refresh_after?: number }): void {
    this.generation++;
    this.current = grant.session_token;
    this.schedule(grant.session_token, grant.refresh_after);
  }

  private schedule(token: string, refreshAfter?: number, receivedAt = Date.now()) {
    this.refreshAt = receivedAt + refreshDelayMs(token, refreshAfter);
    this.expiresAt = receivedAt + lifetimeMs(token);
    this.retryAt = 0;
  }

  async tick(): Promise<void> {
    const now = Date.now();
    if (this.inFlight || now < this.refreshAt || now < this.retryAt) return;
    this.inFlight = true;
    const generation = this.generation;
    try {
      const api = createApi(this.base, this.token);
      const grant = await api.post<SessionGrant>('/v1/sessions/refresh');
      if (generation !== this.generation) return; // stopped (the room ended) or handed a new token meanwhile
      this.current = grant.session_token;
      this.schedule(grant.session_token, grant.refresh_after);
      this.events.refreshed(grant, Date.now());
    } catch (error) {
      if (generation !== this.generation) return;
      const e = error instanceof RoomError ? error : new RoomError(0, 'network_error', String(error));
      if (e.transient && Date.now() < this.expiresAt) {
        this.retryAt = Date.now() + 10_000;
      } else {
        this.stop();
        // Past its expiry a token is dead whatever kept the refresh from answering: say so with the code a page
        // re-mints on (a laptop waking from a long sleep often asks before its network is back).
        this.events.lost(e.transient ? new RoomError(401, 'invalid_session_token', 'The session token expired before the service could be reached to refresh it.') : e);
      }
    } finally {
      this.inFlight = false;
    }
  }
}
