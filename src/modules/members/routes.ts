import { Type } from 'typebox';
import type { App } from '../../app-types.js';
import { toUnixSeconds } from '../../platform/clock.js';
import { keysetListRoute } from '../../platform/route.js';
import { UnixSeconds, Uuid } from '../../platform/schemas.js';
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
  keysetListRoute(app, {
    url: '/v1/members', id: 'listMembers', tag: 'Organization', summary: 'List the organisation\'s staff', item: Member,
    list: (tenant, page) => organizations.listMembers(tenant.organizationId, page),
    present: (m) => ({ object: 'member' as const, id: m.id, email: m.email, name: m.name, role: m.role, created_at: toUnixSeconds(m.created_at) }),
  });
}
