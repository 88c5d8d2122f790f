import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SubjectKind } from '../db/schema.js';
import type { KeyAuth, ModuleName, SessionTokenAuth } from './context.js';
import type { AuthFailureLimiter } from './auth-failures.js';
import { ApiError } from './errors.js';
import { originOfHeader } from './origin.js';
import { SUBJECT_KINDS } from './kinds.js';

export interface Authenticator {
  /** The key's tenant, or an ApiError (invalid_api_key / revoked_api_key / public_api_not_enabled). */
  resolveSecretKey(raw: string): Promise<KeyAuth>;
  /** The same for a publishable key (passed as `pk`). */
  resolvePublishableKey(raw: string): Promise<KeyAuth>;
  /** A verified, unrevoked session token of an organisation with the API on, or an ApiError. */
  resolveSessionToken(token: string): Promise<SessionTokenAuth>;
  isModuleEnabled(organizationId: string, module: ModuleName): Promise<boolean>;
  /** The service's own origin: sessions from a launch link are bound to it. */
  publicOrigin: string;
  failures: AuthFailureLimiter;
}

/** Checks a session token presented by a request (in its header, or in the first message of the interview channel). */
export type SessionAuthenticator = (request: FastifyRequest, token: string | null,
  scope?: { subject?: SubjectKind; subjectId?: string; module?: ModuleName }) => Promise<SessionTokenAuth>;

/** Session routes that serve every kind (refresh, context) are gated by the module of the token's subject. */
const MODULE_OF_SUBJECT = Object.fromEntries(Object.entries(SUBJECT_KINDS).map(([kind, k]) => [kind, k.module])) as Record<SubjectKind, ModuleName>;

/** The credential a request carries: `Authorization: Bearer <x>`, else `X-API-KEY: <x>`. */
export function presentedKey(request: FastifyRequest): string | null {
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.length > 0) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return m ? m[1] : '';
  }
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header.trim();
  return null;
}

/**
 * The origin a request comes from. Browsers send Origin on every cross-origin call and every POST; a same-origin
 * GET carries none, and is recognised by Sec-Fetch-Site, or by the absence of both headers (browsers before
 * Fetch Metadata, e.g. Safari < 16.4). Either way it can only stand for the service's own origin.
 */
function requestOrigin(request: FastifyRequest, publicOrigin: string): string | null {
  if (request.headers.origin !== undefined) return originOfHeader(request.headers.origin, publicOrigin);
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' ? publicOrigin : null;
}

async function checkModule(auth: Authenticator, organizationId: string, module: ModuleName | undefined) {
  if (module && !(await auth.isModuleEnabled(organizationId, module))) {
    throw new ApiError('module_not_enabled', { message: `The ${module} module is not enabled for this organisation.` });
  }
}

/**
 * Authentication and the organisation-level gates (public API switch, module switches), in one place
 * for every route: each route names its credential in `config.auth` and its module in `config.module`.
 */
export function registerAuth(app: FastifyInstance, auth: Authenticator): { authenticateSession: SessionAuthenticator } {
  app.decorateRequest('auth', null);
  app.decorateRequest('sessionToken', null);

  /**
   * A credential check, counted against the client's address when it fails; past the limit a failed check answers
   * 429 instead of 401. A credential that checks out is always served: the contract limits requests per key, not per
   * address, and one address may be a whole office behind NAT.
   */
  async function checked<T>(request: FastifyRequest, resolve: () => Promise<T>): Promise<T> {
    try {
      return await resolve();
    } catch (error) {
      if (error instanceof ApiError && error.type === 'authentication_error') {
        await auth.failures.assertAllowed(request.ip);
        await auth.failures.recordFailure(request.ip);
      }
      throw error;
    }
  }

  /** A session token as every session request checks it: signature, revocation, the request's origin, its subject, the module. */
  const authenticateSession: SessionAuthenticator = async (request, token, { subject, subjectId, module } = {}) => {
    const session = await checked(request, async () => {
      if (!token) throw new ApiError('invalid_session_token', { message: 'A session token is required: "Authorization: Bearer <session token>".' });
      return auth.resolveSessionToken(token);
    });
    if (requestOrigin(request, auth.publicOrigin) !== session.origin) {
      throw new ApiError('origin_not_allowed', { message: 'This session token is bound to another origin.' });
    }
    if (subject && (session.subjectKind !== subject || (subjectId !== undefined && subjectId.toLowerCase() !== session.subjectId))) {
      throw new ApiError('session_scope_mismatch');
    }
    await checkModule(auth, session.organizationId, module ?? MODULE_OF_SUBJECT[session.subjectKind]);
    return session;
  };

  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    switch (config.auth) {
      case 'secret': {
        const raw = presentedKey(request);
        request.auth = await checked(request, async () => {
          if (raw === null) throw new ApiError('invalid_api_key', { message: 'No API key provided. Send it as "Authorization: Bearer <secret key>".' });
          return auth.resolveSecretKey(raw);
        });
        return checkModule(auth, request.auth.organizationId, config.module);
      }
      case 'publishable': {
        const pk = (request.query as Record<string, unknown> | undefined)?.pk;
        request.auth = await checked(request, async () => {
          if (typeof pk !== 'string' || pk.length === 0) throw new ApiError('invalid_api_key', { param: 'pk', message: 'Pass your publishable key as the pk query parameter.' });
          return auth.resolvePublishableKey(pk);
        });
        return;
      }
      case 'session': {
        request.sessionToken = await authenticateSession(request, presentedKey(request), {
          subject: config.subject, subjectId: (request.params as Record<string, string> | undefined)?.id, module: config.module,
        });
        return;
      }
      default:
        return;
    }
  });
  return { authenticateSession };
}
