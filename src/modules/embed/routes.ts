import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { tenantOf, type Tenant } from '../../platform/context.js';
import { operation } from '../../platform/route.js';
import { Text } from '../../platform/schemas.js';
import { Branding } from '../branding/routes.js';

const EmbedConfig = Type.Object({
  object: Type.Literal('embed_config'),
  livemode: Type.Boolean(),
  allowed_origins: Type.Array(Type.String()),
  branding: Branding,
});

/** What a page holding only the publishable key may learn: where the widget may run, and how it looks. */
export function embedRoutes(app: App, deps: { origins: (tenant: Tenant) => Promise<string[]>; branding: (tenant: Tenant) => Promise<unknown> }): void {
  app.route({
    method: 'GET', url: '/v1/embed-config',
    ...operation({ id: 'getEmbedConfig', tag: 'Sessions and embedding', summary: 'Origin allowlist and branding for the embed widget', auth: 'publishable' },
      {
        querystring: Type.Object({ pk: Text({ min: 1, max: 200, description: 'Publishable key (svc_pk_live_… or svc_pk_test_…)' }) }, { additionalProperties: false }),
        response: { 200: EmbedConfig },
      }),
    handler: async (request) => {
      const tenant = tenantOf(request);
      const [allowed_origins, branding] = await Promise.all([deps.origins(tenant), deps.branding(tenant)]);
      return { object: 'embed_config' as const, livemode: tenant.livemode, allowed_origins, branding: branding as never };
    },
  });
}
