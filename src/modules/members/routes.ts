import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { tenantOf } from '../../platform/context.js';
import { listEnvelope, pageRequest } from '../../platform/pagination.js';
import { operation } from '../../platform/route.js';
import { ListOf, ListQuery, UnixSeconds, Uuid } from '../../platform/schemas.js';
import type { OrganizationRepo } from '../organizations/repo.js';

const Member = Type.Object({
  object: Type.Literal('member'),
  id: Uuid,
  email: Type.String(),
  name: Type.String(),
  role: Type.String(),
  created_at: UnixSeconds,
});

/** The organisation's staff (platform accounts); the same in both environments. */
export function memberRoutes(app: App, organizations: OrganizationRepo): void {
  app.route({
    method: 'GET', url: '/v1/members',
    ...operation({ id: 'listMembers', tag: 'Organization', summary: 'List the organisation\'s staff', auth: 'secret' },
      { querystring: ListQuery, response: { 200: ListOf(Member) } }),
    handler: async (request) => {
      const page = await organizations.listMembers(tenantOf(request).organizationId, pageRequest(request.query));
      return listEnvelope(page, (m) => ({
        object: 'member' as const, id: m.id, email: m.email, name: m.name, role: m.role, created_at: toUnixSeconds(m.created_at),
      }));
    },
  });
}
