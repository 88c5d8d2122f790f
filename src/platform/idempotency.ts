import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from './clock.js';
import { tenantOf, livemodeFlag } from './context.js';
import type { Encryption } from './encryption.js';
import { ApiError } from './errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim older than this is taken to belong to a process that died mid-request. */
export const IDEMPOTENCY_LOCK_MS = 5 * 60 * 1000;

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** Stored responses that carry a secret (a new API key, a session token, a launch link) are encrypted. */
const SEALED = 'sealed:';

interface Claim {
  organizationId: string;
  livemode: 0 | 1;
  key: string;
  /** When this request claimed the key: tells its claim from a later one that took over a stale claim. */
  createdAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

/** Same request = same method, path and JSON body (key order ignored). */
function requestHash(request: FastifyRequest): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
    }
    return value;
  };
  const path = request.url.split('?')[0];
  return createHash('sha256').update(`${request.method} ${path}\n${JSON.stringify(canonical(request.body ?? null))}`).digest('hex');
}

/**
 * Idempotency-Key on creates (routes with config.idempotent), shared by every server process through
 * the database: the first request claims the key with an insert (the primary key makes the claim atomic),
 * a success stores the exact response, a failure releases the key.
 */
export function registerIdempotency(app: FastifyInstance, deps: { db: Kysely<Database>; clock: Clock; encryption: Encryption }): void {
  const { db, clock, encryption } = deps;
  app.decorateRequest('idempotencyClaim', null);

  const claimOrReplay = async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) throw new ApiError('idempotency_key_invalid', { param: 'Idempotency-Key' });
    const hash = requestHash(request);
    const now = clock.now();
    const claim: Claim = { ...scopeOf(request, header), createdAt: now };

    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await db.insertInto('idempotency_keys')
        .values({
          organization_id: claim.organizationId, livemode: claim.livemode, key: claim.key, request_hash: hash,
          state: 'in_progress', response_status: null, response_body: null, response_content_type: null,
          created_at: now, locked_until: now + IDEMPOTENCY_LOCK_MS,
        })
        .onConflict((oc) => oc.columns(['organization_id', 'livemode', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
        request.idempotencyClaim = claim;
        return;
      }
      const existing = await db.selectFrom('idempotency_keys').selectAll()
        .where('organization_id', '=', claim.organizationId).where('livemode', '=', claim.livemode).where('key', '=', claim.key)
        .executeTakeFirst();
      if (!existing) continue; // released between our insert and read: claim again
      const stale = existing.created_at + IDEMPOTENCY_TTL_MS <= now || (existing.state === 'in_progress' && existing.locked_until <= now);
      if (stale) {
        // Forget it only if nobody changed it meanwhile, then claim again.
        await db.deleteFrom('idempotency_keys')
          .where('organization_id', '=', claim.organizationId).where('livemode', '=', claim.livemode).where('key', '=', claim.key)
          .where('created_at', '=', existing.created_at).where('state', '=', existing.state).execute();
        continue;
      }
      if (existing.request_hash !== hash) {
        throw new ApiError('idempotency_key_reuse', { param: 'Idempotency-Key', message: 'This Idempotency-Key was used with a different request; use a new key for a new request.' });
      }
      if (existing.state === 'in_progress') throw new ApiError('idempotency_in_progress', { param: 'Idempotency-Key', headers: { 'Retry-After': '1' } });
      reply.header('Idempotent-Replay', 'true');
      reply.header('content-type', existing.response_content_type ?? 'application/json; charset=utf-8');
      reply.code(existing.response_status ?? 200);
      // Sent as stored bytes: the serializer does not run again.
      const body = existing.response_body ?? '';
      // Sent as stored bytes: the serializer does not run again. Responses that carry a secret were sealed.
      return reply.serializer((payload: unknown) => payload as string).send(body.startsWith(SEALED) ? encryption.decrypt(body.slice(SEALED.length)) : body);
    }
    throw new ApiError('idempotency_in_progress', { param: 'Idempotency-Key', headers: { 'Retry-After': '1' } });
  };

  const storeOrRelease = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      const store = (tx: Kysely<Database>) => tx.updateTable('idempotency_keys').set({
        state: 'completed', response_status: reply.statusCode,
        response_body: request.routeOptions.config.secretResponse ? SEALED + encryption.encrypt(payload) : payload,
        response_content_type: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      })
        .where('organization_id', '=', claim.organizationId).where('livemode', '=', claim.livemode).where('key', '=', claim.key)
        .where('created_at', '=', claim.createdAt).where('state', '=', 'in_progress') // still ours, not taken over
        .execute();
      const named = candidatesNamed(payload);
      if (named.length === 0) await store(db);
      else {
        // An erasure forgets the stored responses naming the candidate, but not one still being made: this one is
        // stored only under the candidates' row locks (which erasure takes), and only while they all exist.
        await db.transaction().execute(async (tx) => (await lockCandidates(tx, claim, named)) ? store(tx) : releaseClaim(tx, claim));
      }
    } else {
      await releaseClaim(db, claim);
    }
    return payload;
  };

  // A request that dies before onSend (client gone, error thrown before a reply) must not keep the key.
  const releaseLeftover = async (request: FastifyRequest) => {
    if (request.idempotencyClaim) await releaseClaim(db, request.idempotencyClaim);
  };

  // Only creates pay for this: the hooks are attached to routes with `config.idempotent`.
  app.addHook('onRoute', (route) => {
    if (!(route.config as { idempotent?: boolean } | undefined)?.idempotent) return;
    route.preHandler = [...asArray(route.preHandler), claimOrReplay];
    route.onSend = [...asArray(route.onSend), storeOrRelease];
    route.onResponse = [...asArray(route.onResponse), releaseLeftover];
  });
}

/**
 * Where a key is remembered: the organisation and environment for a key-authenticated create (the contract's scope);
 * a candidate's session for a session-token create (a submission, an attempt), so a candidate's keys can never
 * collide with, or take up, the customer's own.
 */
function scopeOf(request: FastifyRequest, header: string): Omit<Claim, 'createdAt'> {
  if (request.sessionToken) {
    const session = request.sessionToken;
    return { organizationId: session.organizationId, livemode: livemodeFlag(session), key: sessionScopedKey(session.subjectKind, session.subjectId, header) };
  }
  const tenant = tenantOf(request);
  return { organizationId: tenant.organizationId, livemode: livemodeFlag(tenant), key: header };
}

function asArray<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
}

/** The candidates a create's response names (`candidate_id`, or a candidate itself). */
function candidatesNamed(payload: string): string[] {
  if (!payload.includes('candidate')) return [];
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return [];
  }
  if (!body || typeof body !== 'object') return [];
  const { object, id, candidate_id: candidateId } = body as Record<string, unknown>;
  return [...new Set([object === 'candidate' ? id : undefined, candidateId].filter((v): v is string => typeof v === 'string'))];
}

/** Locks the candidates' rows (as erasure does, candidates repo `lock`); false when one no longer exists. */
async function lockCandidates(tx: Kysely<Database>, claim: Claim, ids: string[]): Promise<boolean> {
  const locked = await tx.updateTable('candidates').set({ updated_at: sql`updated_at` })
    .where('organization_id', '=', claim.organizationId).where('livemode', '=', claim.livemode).where('id', 'in', ids).executeTakeFirst();
  return Number(locked.numUpdatedRows) === ids.length;
}

async function releaseClaim(db: Kysely<Database>, claim: Claim): Promise<void> {
  await db.deleteFrom('idempotency_keys')
    .where('organization_id', '=', claim.organizationId).where('livemode', '=', claim.livemode).where('key', '=', claim.key)
    .where('created_at', '=', claim.createdAt).where('state', '=', 'in_progress').execute();
}

/** The stored form of a candidate's key: spaces cannot occur in a key a client sends, so no customer key can spell it. */
const sessionScopedKey = (subjectKind: string, subjectId: string, header: string) => `session ${subjectKind} ${subjectId} ${header}`;

/**
 * Forgets the responses remembered for a candidate's own creates in these sessions (a code run's output, an attempt):
 * part of erasing the candidate, as the responses naming them are.
 */
export async function forgetSessionReplays(tx: Kysely<Database>, tenant: { organizationId: string; livemode: boolean }, subjectKind: string, subjectIds: string[]): Promise<void> {
  for (const id of subjectIds) {
    await tx.deleteFrom('idempotency_keys').where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
      .where('key', 'like', `${sessionScopedKey(subjectKind, id, '')}%`).execute();
  }
}

/** Deletes remembered keys past their 24 hours. */
export async function sweepIdempotencyKeys(db: Kysely<Database>, now: number): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('created_at', '<=', now - IDEMPOTENCY_TTL_MS).executeTakeFirst();
  return Number(r.numDeletedRows);
}
