import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { tenantOf, MODULES } from '../../platform/context.js';
import { CREDIT_KINDS } from '../../platform/credits.js';
import { PAGE_LIMIT_MAX } from '../../platform/schemas.js';
import { limitsForKey } from '../../platform/rate-limit.js';
import { operation } from '../../platform/route.js';
import type { Services } from '../../services.js';

const Usage = Type.Object({
  object: Type.Literal('usage'),
  livemode: Type.Boolean(),
  api_enabled: Type.Boolean(),
  credits: Type.Object(Object.fromEntries(CREDIT_KINDS.map((k) => [k, Type.Integer({ description: 'Credits left (reserved ones excluded)' })]))),
  modules: Type.Object(Object.fromEntries(MODULES.map((m) => [m, Type.Boolean()]))),
  limits: Type.Object({
    rate_limit_window_seconds: Type.Number(),
    rate_limit: Type.Integer({ description: 'Requests per window for this key' }),
    rate_limit_model: Type.Integer({ description: 'Requests per window for operations that run a model' }),
    page_size_max: Type.Integer(),
    request_body_max_bytes: Type.Integer(),
  }),
  sandbox_quota: Type.Object({
    period: Type.String({ description: 'Calendar month, UTC (YYYY-MM)' }),
    limit: Type.Integer(),
    used: Type.Integer(),
    remaining: Type.Integer(),
  }),
});

export function usageRoutes(app: App, services: Services): void {
  const { core, credits, organizationRepo } = services;
  const rl = core.config.rateLimit;

  app.route({
    method: 'GET', url: '/v1/usage',
    ...operation({ id: 'getUsage', tag: 'Organization', summary: 'Credits, modules, limits and sandbox quota', auth: 'secret' },
      { response: { 200: Usage } }),
    handler: async (request) => {
      const tenant = tenantOf(request);
      const db = core.db.kysely;
      const [balances, disabled, quota] = await Promise.all([
        credits.balances(db, tenant),
        organizationRepo.disabledModules(tenant.organizationId),
        credits.quota(db, tenant.organizationId),
      ]);
      const limits = limitsForKey(rl, tenant.rateLimit);
      return {
        object: 'usage' as const,
        livemode: tenant.livemode,
        api_enabled: true, // a key of an organisation with the API off is refused before this point
        credits: balances,
        modules: Object.fromEntries(MODULES.map((m) => [m, !disabled.has(m)])),
        limits: {
          rate_limit_window_seconds: rl.windowMs / 1000,
          rate_limit: limits.standard,
          rate_limit_model: limits.model,
          page_size_max: PAGE_LIMIT_MAX,
          request_body_max_bytes: core.config.bodyLimitBytes,
        },
        sandbox_quota: quota,
      };
    },
  });
}
