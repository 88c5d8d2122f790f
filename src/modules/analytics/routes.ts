import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { tenantOf } from '../../platform/context.js';
import { ApiError } from '../../platform/errors.js';
import { operation } from '../../platform/route.js';
import { Nullable, UnixSeconds } from '../../platform/schemas.js';
import type { Core } from '../../services.js';
import { activitySources, countActivity } from './service.js';

const Activity = Type.Object({
  object: Type.Literal('activity'),
  livemode: Type.Boolean(),
  since: Nullable(UnixSeconds),
  until: Nullable(UnixSeconds),
  data: Type.Array(Type.Object({
    type: Type.String({ description: 'Assessment type (candidates are counted as the pipeline entry)' }),
    total: Type.Integer(),
    stages: Type.Record(Type.String(), Type.Integer()),
  })),
});

export function analyticsRoutes(app: App, core: Core): void {
  app.route({
    method: 'GET', url: '/v1/analytics/activity',
    ...operation({ id: 'getActivity', tag: 'Organization', summary: 'Counts by assessment type and stage', auth: 'secret' }, {
      querystring: Type.Object({
        since: Type.Optional(UnixSeconds),
        until: Type.Optional(UnixSeconds),
      }, { additionalProperties: false }),
      response: { 200: Activity },
    }),
    handler: async (request) => {
      const tenant = tenantOf(request);
      const { since, until } = request.query;
      // [since, until) is half-open: an end at or before the start is a mistake, not a request for nothing.
      if (since !== undefined && until !== undefined && until <= since) throw new ApiError('parameter_invalid', { param: 'until', message: 'until must be after since.' });
      const range = { since: since === undefined ? null : since * 1000, until: until === undefined ? null : until * 1000 };
      return {
        object: 'activity' as const,
        livemode: tenant.livemode,
        since: since ?? null,
        until: until ?? null,
        data: await countActivity(core.db.kysely, tenant, range, activitySources, core.clock.now()),
      };
    },
  });
}
