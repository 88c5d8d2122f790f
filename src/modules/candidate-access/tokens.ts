import { errors as joseErrors, jwtVerify, SignJWT, type JWTHeaderParameters } from 'jose';
import type { SubjectKind } from '../../db/schema.js';
import { BoundedMap } from '../../platform/bounded-map.js';
import type { Clock } from '../../platform/clock.js';
import { ApiError } from '../../platform/errors.js';
import { TOKEN_LIFETIME_SECONDS, type SigningKeys } from '../signing-keys/service.js';
import { SUBJECT_KIND_NAMES } from '../../platform/kinds.js';

/** Clients refresh this long before expiry (refresh_after = expires_at - 300 s). */
export const REFRESH_MARGIN_SECONDS = 300;
export const AUDIENCE = 'prep:session';

export interface SessionClaims {
  jti: string;
  organizationId: string;
  livemode: boolean;
  subjectKind: SubjectKind;
  subjectId: string;
  origin: string;
  /** Epoch ms. */
  expiresAt: number;
}

const SUBJECT_KINDS = new Set<SubjectKind>(SUBJECT_KIND_NAMES);
const REFUSED_HEADERS = ['jwk', 'jku', 'x5u', 'x5c', 'x5t', 'x5t#S256'] as const;
const VERIFIED_CACHE_MAX = 10_000;

const invalid = (message = 'The session token is invalid or expired; refresh the session.') => new ApiError('invalid_session_token', { message });

/**
 * Session tokens: EdDSA JWTs binding organisation, environment, one subject and one origin.
 * Verification pins the algorithm, issuer and audience, takes `kid` only as a key into our own set, and
 * refuses embedded or remote keys. A verified token is remembered until it expires, so the signature is
 * checked once per token per process; revocation is checked by the caller on every request.
 */
export function createSessionTokens(deps: { signingKeys: SigningKeys; clock: Clock; issuer: string }) {
  const { signingKeys, clock, issuer } = deps;
  const verified = new BoundedMap<string, SessionClaims>(VERIFIED_CACHE_MAX);

  return {
    /** `expiresAt` is the expiry recorded for the jti: the token's `exp` never passes it (verification refuses one that does). */
    async mint(claims: SessionClaims): Promise<{ token: string; expiresAt: number; refreshAfter: number }> {
      const { kid, key } = await signingKeys.signingKey();
      const exp = Math.floor(claims.expiresAt / 1000);
      const iat = exp - TOKEN_LIFETIME_SECONDS;
      const token = await new SignJWT({
        org: claims.organizationId,
        livemode: claims.livemode,
        subject_kind: claims.subjectKind,
        origin: claims.origin,
      })
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .setSubject(claims.subjectId)
        .setJti(claims.jti)
        .setIssuedAt(iat)
        .setExpirationTime(exp)
        .sign(key);
      return { token, expiresAt: exp * 1000, refreshAfter: (exp - REFRESH_MARGIN_SECONDS) * 1000 };
    },

    async verify(token: string): Promise<SessionClaims> {
      const now = clock.now();
      const hit = verified.get(token);
      if (hit) {
        if (hit.expiresAt > now) return hit;
        verified.delete(token);
        throw invalid('The session token has expired; refresh the session.');
      }
      let payload;
      try {
        ({ payload } = await jwtVerify(token, async (header: JWTHeaderParameters) => {
          for (const name of REFUSED_HEADERS) if (name in header) throw invalid();
          if (header.alg !== 'EdDSA' || typeof header.kid !== 'string') throw invalid();
          const key = await signingKeys.verificationKey(header.kid);
          if (!key) throw invalid();
          return key;
        }, { algorithms: ['EdDSA'], issuer, audience: AUDIENCE, currentDate: new Date(now), typ: 'JWT', requiredClaims: ['exp', 'jti', 'sub'] }));
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (error instanceof joseErrors.JWTExpired) throw invalid('The session token has expired; refresh the session.');
        throw invalid();
      }
      const { org, livemode, subject_kind: kind, origin, jti, sub, exp } = payload as Record<string, unknown>;
      if (typeof org !== 'string' || typeof livemode !== 'boolean' || typeof origin !== 'string' || typeof jti !== 'string'
        || typeof sub !== 'string' || typeof exp !== 'number' || !SUBJECT_KINDS.has(kind as SubjectKind)) throw invalid();
      const claims: SessionClaims = {
        jti, organizationId: org, livemode, subjectKind: kind as SubjectKind, subjectId: sub, origin, expiresAt: exp * 1000,
      };
      verified.set(token, claims);
      return claims;
    },
  };
}

export type SessionTokens = ReturnType<typeof createSessionTokens>;
