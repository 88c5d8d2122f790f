import type { SubjectKind } from '../db/schema.js';

/** Request-scoped facts every module relies on, and the per-route options the platform reads. */

export const MODULES = ['interviews', 'resumes', 'coding', 'prompt_engineering', 'psychometric', 'question_bank'] as const;
export type ModuleName = (typeof MODULES)[number];

/** The credential a route takes: the spec's Auth column. */
export type AuthKind = 'none' | 'secret' | 'publishable' | 'session' | 'launch';
export type RateClass = 'standard' | 'model';

/** Which organisation and environment a request acts in; every repository query is scoped by it. */
export interface Tenant {
  organizationId: string;
  livemode: boolean;
}

/** The environment as the tables store it: 1 live, 0 test. */
export const livemodeFlag = (t: { livemode: boolean }): 0 | 1 => (t.livemode ? 1 : 0);

export interface KeyAuth extends Tenant {
  keyId: string;
  keyType: 'secret' | 'publishable';
  /** A raised per-window limit for this key, or null for the configured default. */
  rateLimit: number | null;
}

/** A verified, unrevoked session token whose origin matched the request's. */
export interface SessionTokenAuth extends Tenant {
  jti: string;
  subjectKind: SubjectKind;
  subjectId: string;
  origin: string;
  /** Epoch ms. */
  expiresAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on routes that take a key; null elsewhere. */
    auth: KeyAuth | null;
    /** Set by the auth hook on routes that take a session token; null elsewhere. */
    sessionToken: SessionTokenAuth | null;
  }
  interface FastifyContextConfig {
    auth?: AuthKind;
    module?: ModuleName;
    /** Creates a record: takes an Idempotency-Key. */
    idempotent?: boolean;
    /** Its response carries a secret shown once: a remembered copy for replays is stored encrypted. */
    secretResponse?: boolean;
    rateClass?: RateClass;
    /** Session routes: the subject kind the token must be bound to; a route `:id` must be that subject. */
    subject?: SubjectKind;
  }
}

/** The session token of a session-token route. */
export function sessionTokenOf(request: { sessionToken: SessionTokenAuth | null }): SessionTokenAuth {
  if (!request.sessionToken) throw new Error('sessionTokenOf called on a route without session auth');
  return request.sessionToken;
}

/** The tenant of an authenticated request (routes that take a key only). */
export function tenantOf(request: { auth: KeyAuth | null }): KeyAuth {
  if (!request.auth) throw new Error('tenantOf called on a route without key auth');
  return request.auth;
}
