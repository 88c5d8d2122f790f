import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';

/**
 * Failed credential checks counted per client address, in fixed windows. Past `limit` failures in a window the
 * address's failed checks answer 429 until the window ends; a credential that checks out is served whatever its
 * address did (the contract limits per key, not per address). Only failures are counted.
 * Counters live in process memory, or in Redis when REDIS_URL is set, so every server process sees the same count.
 */
export interface AuthFailureLimiter {
  /** Throws 429 rate_limit_error (with Retry-After) while the address is over the limit. */
  assertAllowed(address: string): Promise<void>;
  recordFailure(address: string): Promise<void>;
}

export interface AuthFailureOptions {
  limit: number;
  windowMs: number;
  clock: Clock;
}

interface CounterStore {
  get(key: string): Promise<number>;
  increment(key: string, ttlMs: number): Promise<void>;
}

function memoryStore(clock: Clock): CounterStore {
  const counts = new Map<string, { n: number; expires: number }>();
  let nextSweep = 0;
  return {
    async get(key) {
      const entry = counts.get(key);
      return entry && entry.expires > clock.now() ? entry.n : 0;
    },
    async increment(key, ttlMs) {
      const now = clock.now();
      if (now >= nextSweep) {
        for (const [k, v] of counts) if (v.expires <= now) counts.delete(k);
        nextSweep = now + ttlMs;
      }
      const entry = counts.get(key);
      if (entry && entry.expires > now) entry.n += 1;
      else counts.set(key, { n: 1, expires: now + ttlMs });
    },
  };
}

function redisStore(redis: Redis): CounterStore {
  return {
    async get(key) {
      return Number((await redis.get(key)) ?? 0);
    },
    async increment(key, ttlMs) {
      await redis.multi().incr(key).pexpire(key, ttlMs).exec();
    },
  };
}

export function createAuthFailureLimiter(options: AuthFailureOptions, redis: Redis | null): AuthFailureLimiter {
  const store = redis ? redisStore(redis) : memoryStore(options.clock);
  const window = () => Math.floor(options.clock.now() / options.windowMs);
  const keyOf = (address: string, w: number) => `prep-af:${address}:${w}`;
  return {
    async assertAllowed(address) {
      const w = window();
      // With Redis down, serve rather than refuse: this is protection, not correctness.
      const failures = await store.get(keyOf(address, w)).catch(() => 0);
      if (failures < options.limit) return;
      const retryAfter = String(Math.max(1, Math.ceil(((w + 1) * options.windowMs - options.clock.now()) / 1000)));
      throw new ApiError('rate_limited', {
        message: `Too many failed authentication attempts from this address; retry after ${retryAfter} s.`,
        headers: { 'X-RateLimit-Limit': String(options.limit), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': retryAfter, 'Retry-After': retryAfter },
      });
    },
    async recordFailure(address) {
      await store.increment(keyOf(address, window()), options.windowMs).catch(() => undefined);
    },
  };
}
