import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, LaunchLinksTable, SubjectKind } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import { livemodeFlag, type KeyAuth, type SessionTokenAuth, type Tenant } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId, randomToken } from '../../platform/ids.js';
import { parseOrigin } from '../../platform/origin.js';
import type { DomainService } from '../domains/service.js';
import { TOKEN_LIFETIME_SECONDS } from '../signing-keys/service.js';
import type { CandidateAccessRepo } from './repo.js';
import { assertOpen, SUBJECT_FIELDS, type SubjectProvider, type SubjectRegistry } from './subjects.js';
import type { SessionTokens } from './tokens.js';

/** A session can be refreshed for this long after its first token; then the customer mints a new one. */
export const SESSION_TOKEN_CHAIN_MAX_MS = 8 * 3_600_000;
/**
 * Refreshes one session may make: its 8 hours of 15-minute tokens take 32, reloads and retries a few more each; past
 * this, a token held by someone else cannot fill the table with its refreshes (each one a row until a day after it expires).
 */
export const SESSION_REFRESHES_MAX = 400;
export const LAUNCH_TTL_DEFAULT = 86_400;
export const LAUNCH_TTL_MIN = 300;
export const LAUNCH_TTL_MAX = 604_800;
/**
 * How far a token's `exp` may pass the expiry recorded for it. None for tokens signed now (their `exp` is the record's);
 * tokens signed before an upgrade took `exp` from the signing time, a moment after the record.
 */
const RECORDED_EXPIRY_SLACK_MS = 60_000;

export interface IssuedSessionToken {
  token: string;
  jti: string;
  expiresAt: number;
  refreshAfter: number;
  subjectKind: SubjectKind;
  subjectId: string;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Candidate access: session tokens minted from a secret key or a launch link, refreshed by their holder,
 * revoked by the customer; launch links for every subject kind. Subject kinds come from the registry.
 */
export function createCandidateAccessService(deps: {
  db: Kysely<Database>; clock: Clock; repo: CandidateAccessRepo; tokens: SessionTokens; domains: DomainService;
  subjects: SubjectRegistry; publicOrigin: string;
}) {
  const { db, clock, repo, tokens, domains, subjects, publicOrigin } = deps;

  function provider(kind: SubjectKind) {
    const p = subjects.get(kind);
    if (!p) throw new Error(`no subject provider for ${kind}`);
    return p;
  }

  /** Records the token (so it can be revoked and refreshed), then signs it. */
  async function issue(
    tx: Kysely<Database>, tenant: Tenant, subjectKind: SubjectKind, subjectId: string, origin: string,
    source: 'secret_key' | 'launch' | 'refresh', chain: { rootJti: string | null; keyId: string | null } = { rootJti: null, keyId: null },
  ) {
    const jti = newId();
    const now = clock.now();
    const expiresAt = now + TOKEN_LIFETIME_SECONDS * 1000;
    await repo.insertToken(tx, {
      jti, organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), subject_kind: subjectKind, subject_id: subjectId,
      origin, source, root_jti: chain.rootJti, key_id: chain.keyId, created_at: now, expires_at: expiresAt, revoked_at: null,
    });
    return { jti, subjectKind, subjectId, origin, tenant, expiresAt };
  }

  async function sign(issued: Awaited<ReturnType<typeof issue>>): Promise<IssuedSessionToken> {
    const minted = await tokens.mint({
      jti: issued.jti, organizationId: issued.tenant.organizationId, livemode: issued.tenant.livemode,
      subjectKind: issued.subjectKind, subjectId: issued.subjectId, origin: issued.origin, expiresAt: issued.expiresAt,
    });
    return { token: minted.token, jti: issued.jti, expiresAt: minted.expiresAt, refreshAfter: minted.refreshAfter, subjectKind: issued.subjectKind, subjectId: issued.subjectId };
  }

  /**
   * A session for a module switched off could do nothing (every route of its subject refuses it): it is not issued, and a
   * launch link stays unused until the module is on again.
   */
  async function assertModuleEnabled(tx: Kysely<Database>, tenant: Tenant, p: SubjectProvider): Promise<void> {
    if (!(await repo.moduleEnabled(tx, tenant.organizationId, p.module))) {
      throw new ApiError('module_not_enabled', { message: `The ${p.module} module is not enabled for this organisation.` });
    }
  }

  /**
   * The exchange's refusals for an unused link, in its order; the link's tenant when none applies. The subject's
   * state comes before the link's expiry: a link capped at the end of an assignment window expires with it, and
   * the holder should learn that the assignment lapsed, not that the link is invalid.
   */
  async function usableLink(tx: Kysely<Database>, link: LaunchLinksTable, now: number): Promise<Tenant> {
    const tenant = { organizationId: link.organization_id, livemode: link.livemode === 1 };
    if (!(await repo.apiEnabled(tx, tenant.organizationId))) throw new ApiError('public_api_not_enabled');
    if (link.key_id !== null && (await repo.keyRevoked(tx, link.key_id, now))) throw new ApiError('invalid_launch_token');
    await assertModuleEnabled(tx, tenant, provider(link.subject_kind));
    const state = await provider(link.subject_kind).state(tx, tenant, link.subject_id);
    if (state === null) throw new ApiError('invalid_launch_token');
    assertOpen(state);
    if (link.expires_at <= now) throw new ApiError('invalid_launch_token');
    return tenant;
  }

  return {
    /** POST /v1/sessions: exactly one subject field, an allowlisted origin, a subject that is open. */
    async mint(tenant: KeyAuth, body: { origin: string } & Partial<Record<string, string>>): Promise<IssuedSessionToken> {
      const origin = parseOrigin(body.origin);
      const given = (Object.entries(SUBJECT_FIELDS) as Array<[SubjectKind, string]>).filter(([, field]) => body[field] !== undefined);
      if (given.length !== 1) {
        throw new ApiError(given.length === 0 ? 'parameter_missing' : 'parameter_invalid', {
          param: given[1]?.[1] ?? 'interview_id', // none given: the contract's own field names what is missing
          message: `Bind the session to exactly one subject: one of ${Object.values(SUBJECT_FIELDS).join(', ')}.`,
        });
      }
      const [kind, field] = given[0];
      const id = body[field]!.toLowerCase();
      const p = subjects.get(kind);
      const issued = await db.transaction().execute(async (tx) => {
        if (p) await assertModuleEnabled(tx, tenant, p);
        await domains.assertAllowlisted(tx, tenant, origin);
        const state = p ? await p.state(tx, tenant, id) : null;
        if (state === null) throw new ApiError('resource_not_found', { param: field, message: `No such ${kind.replace('_', '-')} subject: '${id}'.` });
        assertOpen(state);
        return issue(tx, tenant, kind, id, origin, 'secret_key', { rootJti: null, keyId: tenant.keyId });
      });
      return sign(issued);
    },

    /**
     * A fresh token with the same binding, for a holder whose token is still valid. It descends from the
     * original token, so revoking the original (the jti the customer was given) revokes every refresh too.
     */
    async refresh(session: SessionTokenAuth): Promise<IssuedSessionToken> {
      const chain = await repo.chainOf(session.jti);
      if (!chain) throw new ApiError('invalid_session_token');
      if ((chain.root_created_at ?? chain.created_at) + SESSION_TOKEN_CHAIN_MAX_MS <= clock.now()) {
        throw new ApiError('invalid_session_token', { message: 'This session reached its maximum lifetime; mint a new one.' });
      }
      const issued = await db.transaction().execute(async (tx) => {
        const state = await provider(session.subjectKind).state(tx, session, session.subjectId);
        if (state === null) throw new ApiError('invalid_session_token');
        assertOpen(state);
        // A launch-link session is bound to the service's own origin, which needs no allowlisting; any other, a token a
        // secret key minted for that origin included, holds only while its origin is allowlisted.
        const launched = (chain.root_source ?? chain.source) === 'launch';
        if (!launched) await domains.assertAllowlisted(tx, session, session.origin);
        const rootJti = chain.root_jti ?? session.jti;
        if (await repo.refreshesOf(tx, rootJti) >= SESSION_REFRESHES_MAX) {
          throw new ApiError('invalid_session_token', { message: `This session was refreshed ${SESSION_REFRESHES_MAX} times, the most it may; mint a new one.` });
        }
        return issue(tx, session, session.subjectKind, session.subjectId, session.origin, 'refresh', { rootJti, keyId: chain.key_id });
      });
      return sign(issued);
    },

    /**
     * Ends the session the token belongs to: the token and the original of its chain, so every refresh of it (made
     * from any token of the chain) is refused too. A refreshed token's jti is the one a leak shows.
     */
    async revoke(tenant: Tenant, jti: string): Promise<void> {
      const row = await repo.getToken(tenant, jti);
      if (!row) throw notFound('session', jti);
      await repo.revokeToken(jti, clock.now());
      if (row.root_jti) await repo.revokeToken(row.root_jti, clock.now());
    },

    /**
     * Candidate erasure: every session token bound to these subjects (refreshes too) is revoked and every unused
     * launch link for them expires, in the erasure's transaction, so nothing handed to the person still opens them.
     */
    async endSubjectAccess(tx: Kysely<Database>, tenant: Tenant, kind: SubjectKind, subjectIds: string[]): Promise<void> {
      if (subjectIds.length > 0) await repo.endSubjectAccess(tx, tenant, kind, subjectIds, clock.now());
    },

    /**
     * Verification for the auth hook: signature (cached), then, on every request, the recorded token (a signed token must
     * carry the binding and at most the life recorded for its jti, so that even the signing key cannot re-bind one),
     * revocation (of the token, its chain's original or the key that minted it) and the API switch.
     */
    async resolve(token: string): Promise<SessionTokenAuth> {
      const claims = await tokens.verify(token);
      const state = await repo.tokenState(claims.jti);
      if (state && (state.organization_id !== claims.organizationId || state.livemode !== livemodeFlag(claims)
        || state.subject_kind !== claims.subjectKind || state.subject_id !== claims.subjectId || state.origin !== claims.origin
        || claims.expiresAt > state.expires_at + RECORDED_EXPIRY_SLACK_MS)) {
        throw new ApiError('invalid_session_token');
      }
      const revokedAt = state ? Math.min(state.revoked_at ?? Infinity, state.root_revoked_at ?? Infinity, state.key_revoked_at ?? Infinity) : 0;
      if (!state || revokedAt <= clock.now()) {
        throw new ApiError('invalid_session_token', { message: 'This session has been revoked.' });
      }
      if (state.api_enabled !== 1) throw new ApiError('public_api_not_enabled');
      return claims;
    },

    /**
     * A single-use link; `capAt` (epoch ms) bounds its expiry, e.g. the end of an assignment window. `keyId`: the secret
     * key that asked for it (revoking the key ends the link); none for the links the service sends itself.
     */
    async createLaunchLink(tx: Kysely<Database>, tenant: Tenant, kind: SubjectKind, subjectId: string, options: { ttlSeconds?: number; redirectUrl?: string; capAt?: number; keyId?: string }) {
      const token = randomToken(32);
      const now = clock.now();
      const expiresAt = Math.min(now + (options.ttlSeconds ?? LAUNCH_TTL_DEFAULT) * 1000, options.capAt ?? Infinity);
      await repo.insertLaunchLink(tx, {
        id: newId(), organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), subject_kind: kind, subject_id: subjectId,
        token_hash: hashToken(token), redirect_url: options.redirectUrl ?? null, key_id: options.keyId ?? null, created_at: now, expires_at: expiresAt, used_at: null,
      });
      return { url: `${publicOrigin}/launch#token=${token}`, expiresAt, redirectUrl: options.redirectUrl ?? null };
    },

    /** POST /v1/launch/exchange: the one use of a link, bound to the service's own origin. */
    async exchange(token: string): Promise<IssuedSessionToken & { redirectUrl: string | null }> {
      const issued = await db.transaction().execute(async (tx) => {
        const now = clock.now();
        // Claimed first; any refusal below throws, which rolls the claim back.
        const link = await repo.claimLaunchLink(tx, hashToken(token), now);
        if (!link) throw new ApiError('invalid_launch_token');
        const tenant = await usableLink(tx, link, now);
        const issued = await issue(tx, tenant, link.subject_kind, link.subject_id, publicOrigin, 'launch', { rootJti: null, keyId: link.key_id });
        return { ...issued, redirectUrl: link.redirect_url };
      });
      return { ...(await sign(issued)), redirectUrl: issued.redirectUrl };
    },

    /**
     * What the launch page shows before the candidate clicks Start: who sent the link and what it opens.
     * Reads only; the link stays unused (link scanners fetch pages, and must not burn tokens). A link the
     * exchange would refuse shows nothing: the same refusal, so an old link in a forwarded mail or a browser's
     * history no longer tells who was invited to what.
     */
    async previewLaunch(token: string) {
      const link = await repo.findLaunchLink(hashToken(token));
      if (!link || link.used_at !== null) throw new ApiError('invalid_launch_token');
      const tenant = await usableLink(db, link, clock.now());
      const context = await provider(link.subject_kind).context(tenant, link.subject_id);
      if (!context) throw new ApiError('invalid_launch_token');
      return { tenant, subjectKind: link.subject_kind, context };
    },

    /** Whether a session token bound to `origin` may still be presented (CORS serves it after its domain is removed). */
    originInUse: (origin: string) => repo.liveTokenFor(origin, clock.now()),

    /** Retention: expired tokens and links are deleted a day after they expire. */
    sweep: () => repo.sweep(clock.now()),

    async context(session: SessionTokenAuth) {
      const ctx = await provider(session.subjectKind).context(session, session.subjectId);
      if (!ctx) throw notFound(session.subjectKind.replace('_', '-') + ' subject', session.subjectId);
      return ctx;
    },
  };
}

export type CandidateAccessService = ReturnType<typeof createCandidateAccessService>;
