import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { KeyAuth, ModuleName } from './context.js';
import { ApiError } from './errors.js';

export interface KeyResolver {
  /** The key's tenant, or an ApiError (invalid_api_key / revoked_api_key / public_api_not_enabled). */
  resolveSecretKey(raw: string): Promise<KeyAuth>;
  isModuleEnabled(organizationId: string, module: ModuleName): Promise<boolean>;
}

/** The key a request carries: `Authorization: Bearer <key>`, else `X-API-KEY: <key>`. */
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
 * Authentication and the organisation-level gates (public API switch, module switches), in one place
 * for every route: each route names its credential in `config.auth` and its module in `config.module`.
 */
export function registerAuth(app: FastifyInstance, resolver: KeyResolver): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (request) => {
    const { auth, module } = request.routeOptions.config;
    if (auth !== 'secret') return;
    const raw = presentedKey(request);
    if (raw === null) {
      throw new ApiError('invalid_api_key', { message: 'No API key provided. Send it as "Authorization: Bearer <secret key>".' });
    }
    request.auth = await resolver.resolveSecretKey(raw);
    if (module && !(await resolver.isModuleEnabled(request.auth.organizationId, module))) {
      throw new ApiError('module_not_enabled', { message: `The ${module} module is not enabled for this organisation.` });
    }
  });
}
