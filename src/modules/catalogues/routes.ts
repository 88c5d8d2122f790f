import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { tenantOf } from '../../platform/context.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { keysetListRoute, operation } from '../../platform/route.js';
import { ListOf, ListQueryWith, Nullable, UnixSeconds, Uuid } from '../../platform/schemas.js';
import type { Core } from '../../services.js';
import { createCatalogueRepo } from './repo.js';

const common = { id: Uuid, slug: Type.String(), custom: Type.Boolean({ description: "true for the organisation's own entries" }), created_at: UnixSeconds };

const RoundType = Type.Object({
  object: Type.Literal('round_type'), ...common,
  name: Type.String(), description: Type.String(), duration_minutes: Type.Integer(),
});
const Company = Type.Object({
  object: Type.Literal('company'), ...common,
  name: Type.String(), industry: Type.String(), size: Type.String(), headquarters: Nullable(Type.String()),
});
const Job = Type.Object({
  object: Type.Literal('job'), ...common,
  title: Type.String(), company_id: Nullable(Uuid), level: Type.String(), location: Nullable(Type.String()),
  employment_type: Type.String(), description: Type.String(), skills: Type.Array(Type.String()),
});

const TAG = 'Catalogues';

/** Bookable round types, companies and job descriptions: the shared catalogue plus the organisation's own. */
export function catalogueRoutes(app: App, core: Core): void {
  const repo = createCatalogueRepo(core.db);
  const base = <R extends { id: string; slug: string; organization_id: string | null; created_at: number }>(r: R) =>
    ({ id: r.id, slug: r.slug, custom: r.organization_id !== null, created_at: toUnixSeconds(r.created_at) });

  keysetListRoute(app, {
    url: '/v1/round-types', id: 'listRoundTypes', tag: TAG, summary: 'Bookable interview round types', item: RoundType, module: 'interviews',
    list: (tenant, page) => repo.roundTypes(tenant.organizationId, page),
    present: (r) => ({ object: 'round_type' as const, ...base(r), name: r.name, description: r.description, duration_minutes: r.duration_minutes }),
  });

  keysetListRoute(app, {
    url: '/v1/companies', id: 'listCompanies', tag: TAG, summary: 'Companies available to the organisation', item: Company,
    list: (tenant, page) => repo.companies(tenant.organizationId, page),
    present: (c) => ({ object: 'company' as const, ...base(c), name: c.name, industry: c.industry, size: c.size, headquarters: c.headquarters }),
  });

  app.route({
    method: 'GET', url: '/v1/jobs',
    ...operation({ id: 'listJobs', tag: TAG, summary: 'Job descriptions available to the organisation', auth: 'secret' },
      { querystring: ListQueryWith({ company_id: Type.Optional(Uuid) }), response: { 200: ListOf(Job) } }),
    handler: async (request) => {
      const page = await repo.jobs(tenantOf(request).organizationId, pageRequest(request.query), request.query.company_id);
      return listEnvelope(page, (j) => ({
        object: 'job' as const, ...base(j), title: j.title, company_id: j.company_id, level: j.level, location: j.location,
        employment_type: j.employment_type, description: j.description, skills: JSON.parse(j.skills) as string[],
      }));
    },
  });
}
