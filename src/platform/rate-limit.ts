import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { ApiError } from './errors.js';

/**
 * Per-key limits (never per IP): each authenticated request counts against its key's window, in a bucket
 * for its rate class, so operations that run a model have their own, tighter ceiling. A key with a raised
 * limit gets it for standard operations and the same multiple of the model ceiling.
 * Counters live in process memory, or in Redis when REDIS_URL is set (shared by every server process).
 */
export function limitsForKey(config: Config['rateLimit'], raised: number | null): { standard: number; model: number } {
  if (raised === null) return { standard: config.standard, model: config.model };
  return { standard: raised, model: Math.max(1, Math.floor((raised * config.model) / config.standard)) };
}

export async function registerRateLimit(app: FastifyInstance, config: Config['rateLimit'], redis: Redis | null): Promise<void> {
  const limitFor = (request: FastifyRequest): number =>
    limitsForKey(config, request.auth?.rateLimit ?? null)[request.routeOptions.config.rateClass === 'model' ? 'model' : 'standard'];

  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest', // route-level, so it runs after the global auth hook has identified the key
    timeWindow: config.windowMs,
    max: (request) => limitFor(request),
    // A key is counted per key, a session token per subject (a candidate's room), and a launch-token
    // exchange (no credential until it succeeds) per client address. Credential-free routes are not limited.
    keyGenerator: (request) => {
      const who = request.auth ? request.auth.keyId : request.sessionToken ? `session:${request.sessionToken.subjectId}` : `ip:${request.ip}`;
      return `${who}:${request.routeOptions.config.rateClass ?? 'standard'}`;
    },
    allowList: (request) => request.routeOptions.config.auth === undefined || request.routeOptions.config.auth === 'none',
    // With Redis down, serve rather than fail every request: limits are protection, not correctness.
    ...(redis ? { redis, nameSpace: 'prep-rl:', skipOnError: true } : {}),
    addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true },
    addHeaders: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': true, 'x-ratelimit-reset': true, 'retry-after': true },
    errorResponseBuilder: (_request, context) => {
      const reset = String(Math.max(1, Math.ceil(context.ttl / 1000)));
      return new ApiError('rate_limited', {
        message: `Too many requests for this key: the limit is ${context.max} per window. Retry after ${reset} s.`,
        headers: { 'X-RateLimit-Limit': String(context.max), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset, 'Retry-After': reset },
      });
    },
  });
}
