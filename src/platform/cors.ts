import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { originOfHeader } from './origin.js';

const DECISION_CACHE_MS = 30_000;

/**
 * Cross-origin calls are allowed from any origin some organisation allowlisted (and the service's own), and from one
 * a live session token is bound to (a removed domain's sessions keep working until they expire): a preflight carries
 * no token, so it cannot be narrowed to one organisation; the token's own origin binding is then enforced on the
 * request itself. No cookies are used, so credentials stay off.
 */
export async function registerCors(app: FastifyInstance, deps: {
  publicOrigin: string;
  isAllowlisted: (origin: string) => Promise<boolean>;
  /** Whether a session token bound to the origin is still live (asked only of an origin nobody allowlists). */
  hasLiveSession: (origin: string) => Promise<boolean>;
  /** Changes whenever this process writes the allowlist: its decisions are then forgotten (an origin just added works). */
  allowlistChanges: () => number;
}) {
  const decisions = new Map<string, { allowed: boolean; until: number }>();
  let decidedAt = deps.allowlistChanges();
  const allowed = async (origin: string): Promise<boolean> => {
    const version = deps.allowlistChanges();
    if (version !== decidedAt) {
      decisions.clear();
      decidedAt = version;
    }
    const cached = decisions.get(origin);
    if (cached && cached.until > Date.now()) return cached.allowed;
    const yes = origin === deps.publicOrigin || (await deps.isAllowlisted(origin)) || (await deps.hasLiveSession(origin));
    if (decisions.size > 10_000) decisions.clear();
    // Not kept when the allowlist changed during the read: it may predate the change.
    if (deps.allowlistChanges() === version) decisions.set(origin, { allowed: yes, until: Date.now() + DECISION_CACHE_MS });
    return yes;
  };

  await app.register(cors, {
    origin: async (header: string | undefined) => {
      const origin = originOfHeader(header, deps.publicOrigin);
      return origin !== null && (await allowed(origin));
    },
    methods: ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'], // PUT: the room's uploads to the local store's signed URLs
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    exposedHeaders: ['Request-Id', 'Idempotent-Replay', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
    maxAge: 600,
    credentials: false,
  });
}
