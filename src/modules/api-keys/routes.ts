import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { tenantOf } from '../../platform/context.js';
import { keysetListRoute, operation } from '../../platform/route.js';
import { IdParams, Nullable, StringEnum, Text, UnixSeconds, Uuid } from '../../platform/schemas.js';
import { ROTATION_GRACE_DEFAULT, ROTATION_GRACE_MAX, type ApiKeyService } from './service.js';

const ApiKey = Type.Object({
  object: Type.Literal('api_key'),
  id: Uuid,
  type: StringEnum(['secret', 'publishable'] as const),
  livemode: Type.Boolean(),
  name: Nullable(Type.String()),
  redacted_key: Type.String({ description: 'Prefix and last four characters; the key itself is never shown again' }),
  status: StringEnum(['active', 'expiring', 'revoked'] as const),
  rate_limit: Nullable(Type.Integer({ description: 'Raised requests-per-window limit, null for the default' })),
  created_at: UnixSeconds,
  expires_at: Nullable(UnixSeconds),
  revoked_at: Nullable(UnixSeconds),
});

const ApiKeyWithSecret = Type.Object({ ...ApiKey.properties, secret: Type.String({ description: 'Shown once' }) });

const Rotation = Type.Object({
  ...ApiKeyWithSecret.properties,
  previous_key_id: Uuid,
  previous_key_expires_at: UnixSeconds,
});

const TAG = 'API keys';

export function apiKeyRoutes(app: App, service: ApiKeyService): void {
  keysetListRoute(app, { url: '/v1/api-keys', id: 'listApiKeys', tag: TAG, summary: 'List the keys of this environment', item: ApiKey, list: service.list, present: service.present });

  app.route({
    method: 'POST', url: '/v1/api-keys',
    ...operation({ id: 'createApiKey', tag: TAG, summary: 'Mint a sibling key in the caller\'s environment', auth: 'secret', idempotent: true, secretResponse: true },
      {
        body: Type.Object({
          type: Type.Optional(StringEnum(['secret', 'publishable'] as const, { default: 'secret' })),
          name: Type.Optional(Text({ max: 100 })),
        }, { additionalProperties: false }),
        response: { 201: ApiKeyWithSecret },
      }),
    handler: async (request, reply) => {
      const body = request.body ?? {};
      const { row, secret } = await service.create(tenantOf(request), { type: body.type ?? 'secret', name: body.name });
      return reply.code(201).send({ ...service.present(row), secret });
    },
  });

  app.route({
    method: 'DELETE', url: '/v1/api-keys/:id',
    ...operation({ id: 'revokeApiKey', tag: TAG, summary: 'Revoke a key at once', auth: 'secret' },
      { params: IdParams, response: { 200: ApiKey } }),
    handler: async (request) => service.present(await service.revoke(tenantOf(request), request.params.id)),
  });

  app.route({
    method: 'POST', url: '/v1/api-keys/:id/rotate',
    ...operation({
      id: 'rotateApiKey', tag: TAG, auth: 'secret', idempotent: true, secretResponse: true,
      summary: 'Replace a key; the old one keeps working for the grace window',
    }, {
      params: IdParams,
      body: Type.Optional(Type.Object({
        grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: ROTATION_GRACE_MAX, default: ROTATION_GRACE_DEFAULT })),
      }, { additionalProperties: false })),
      response: { 201: Rotation },
    }),
    handler: async (request, reply) => {
      const grace = request.body?.grace_seconds ?? ROTATION_GRACE_DEFAULT;
      const result = await service.rotate(tenantOf(request), request.params.id, grace);
      return reply.code(201).send({
        ...service.present(result.replacement.row),
        secret: result.replacement.secret,
        previous_key_id: result.previousKeyId,
        previous_key_expires_at: toUnixSeconds(result.previousKeyExpiresAt),
      });
    },
  });
}
