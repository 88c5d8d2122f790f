import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { tenantOf } from '../../platform/context.js';
import { operation } from '../../platform/route.js';
import { HexColor, HttpsUrl, Nullable, Text, UnixSeconds } from '../../platform/schemas.js';
import type { BrandingService } from './service.js';

export const Branding = Type.Object({
  object: Type.Literal('branding'),
  livemode: Type.Boolean(),
  company_name: Type.String(),
  logo_url: Nullable(Type.String({ format: 'uri' })),
  primary_color: Type.String(),
  accent_color: Type.String(),
  background_color: Type.String(),
  text_color: Type.String(),
  updated_at: Nullable(UnixSeconds),
});

const TAG = 'Branding';

export function brandingRoutes(app: App, service: BrandingService): void {
  app.route({
    method: 'GET', url: '/v1/branding',
    ...operation({ id: 'getBranding', tag: TAG, summary: 'The branding candidates see in this environment', auth: 'secret' },
      { response: { 200: Branding } }),
    handler: async (request) => service.get(tenantOf(request)),
  });

  app.route({
    method: 'PATCH', url: '/v1/branding',
    ...operation({
      id: 'updateBranding', tag: TAG, auth: 'secret',
      summary: 'Change branding; a field set to null goes back to its default',
    }, {
      body: Type.Object({
        company_name: Type.Optional(Nullable(Text({ min: 1, max: 100, pattern: '\\S' }))),
        logo_url: Type.Optional(Nullable(HttpsUrl)),
        primary_color: Type.Optional(Nullable(HexColor)),
        accent_color: Type.Optional(Nullable(HexColor)),
        background_color: Type.Optional(Nullable(HexColor)),
        text_color: Type.Optional(Nullable(HexColor)),
      }, { additionalProperties: false }),
      response: { 200: Branding },
    }),
    handler: async (request) => service.update(tenantOf(request), request.body),
  });
}
