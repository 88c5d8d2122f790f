import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { tenantOf } from '../../platform/context.js';
import { keysetListRoute, operation } from '../../platform/route.js';
import { Deleted, IdParams, Nullable, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { presentDomain, type DomainService } from './service.js';

const Domain = Type.Object({
  object: Type.Literal('domain'),
  id: Uuid,
  origin: Type.String({ description: 'scheme://host[:port]' }),
  livemode: Type.Boolean(),
  created_by_key_id: Nullable(Uuid),
  created_at: UnixSeconds,
});

const TAG = 'Sessions and embedding';

export function domainRoutes(app: App, service: DomainService): void {
  keysetListRoute(app, { url: '/v1/domains', id: 'listDomains', tag: TAG, summary: 'Allowlisted origins of this environment', item: Domain, list: service.list, present: presentDomain });

  app.route({
    method: 'POST', url: '/v1/domains',
    ...operation({ id: 'createDomain', tag: TAG, summary: 'Allowlist an origin (200 with the existing record if it already is)', auth: 'secret', idempotent: true },
      {
        // Bounded loosely so that every malformed origin, an overlong one included, answers invalid_origin (parseOrigin allows 255).
        body: Type.Object({ origin: Text({ max: 2048, description: 'scheme://host[:port], at most 255 characters' }) }, { additionalProperties: false }),
        response: { 200: Domain, 201: Domain },
      }),
    handler: async (request, reply) => {
      const { row, created } = await service.add(tenantOf(request), request.body.origin);
      return reply.code(created ? 201 : 200).send(presentDomain(row));
    },
  });

  app.route({
    method: 'DELETE', url: '/v1/domains/:id',
    ...operation({ id: 'deleteDomain', tag: TAG, summary: 'Remove an origin; sessions already minted keep working until they expire', auth: 'secret' },
      { params: IdParams, response: { 200: Deleted('domain') } }),
    handler: async (request) => {
      const row = await service.remove(tenantOf(request), request.params.id);
      return { object: 'domain' as const, id: row.id, deleted: true as const };
    },
  });
}
