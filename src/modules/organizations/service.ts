import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import type { ModuleName } from '../../platform/context.js';
import { CREDIT_KINDS, type CreditKind, type Credits } from '../../platform/credits.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { ApiKeyService } from '../api-keys/service.js';
import type { OrganizationRepo } from './repo.js';

export interface OrganizationKeys {
  secret_live: string;
  secret_test: string;
  publishable_live: string;
  publishable_test: string;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Organisations, their switches and staff: operated from the CLI, read by the API. */
export function createOrganizationService(deps: {
  db: Kysely<Database>; clock: Clock; repo: OrganizationRepo; apiKeys: ApiKeyService; credits: Credits;
}) {
  const { db, clock, repo, apiKeys, credits } = deps;

  async function mustExist(id: string) {
    const org = await repo.get(id);
    if (!org) throw notFound('organization', id);
    return org;
  }

  async function create(tx: Kysely<Database>, name: string, grant: number) {
    const organization = { id: newId(), name, api_enabled: 1 as const, created_at: clock.now() };
    await repo.insert(tx, organization);
    const keys = {} as OrganizationKeys;
    for (const livemode of [true, false]) {
      for (const type of ['secret', 'publishable'] as const) {
        const { secret } = await apiKeys.issue(tx, { organizationId: organization.id, livemode, type, name: 'default' });
        keys[`${type}_${livemode ? 'live' : 'test'}`] = secret;
      }
      if (grant > 0) {
        for (const kind of CREDIT_KINDS) await credits.grant(tx, { organizationId: organization.id, livemode }, kind, grant, 'initial grant');
      }
    }
    return { organization: { id: organization.id, name }, keys };
  }

  return {
    /** A new organisation with a secret and a publishable key per environment, and `credits` of every kind in both. */
    async create(name: string, grant = 0) {
      return db.transaction().execute((tx) => create(tx, name, grant));
    },

    /**
     * On the first start with an empty database: a default organisation, once, even when several
     * processes start together (the settings marker decides). Returns its keys, or null if it existed.
     */
    async bootstrapDefault(sandboxCredits: number) {
      if ((await repo.count()) > 0) return null;
      return db.transaction().execute(async (tx) => {
        if (!(await repo.claimSetting(tx, 'default_organization', 'created', clock.now()))) return null;
        return create(tx, 'Default organization', sandboxCredits);
      });
    },

    async grantCredits(organizationId: string, kind: CreditKind, amount: number, environments: boolean[]) {
      await mustExist(organizationId);
      await db.transaction().execute(async (tx) => {
        for (const livemode of environments) await credits.grant(tx, { organizationId, livemode }, kind, amount, 'operator grant');
      });
    },

    async setModule(organizationId: string, module: ModuleName, enabled: boolean) {
      await mustExist(organizationId);
      await repo.setModule(organizationId, module, enabled, clock.now());
    },

    async setApiEnabled(organizationId: string, enabled: boolean) {
      await mustExist(organizationId);
      await repo.setApiEnabled(organizationId, enabled);
    },

    async addMember(organizationId: string, input: { email: string; name: string; role?: string }) {
      await mustExist(organizationId);
      const email = normaliseEmail(input.email);
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw new ApiError('parameter_invalid', { param: 'email', message: 'Not an email address.' });
      if (!input.name.trim() || input.name.length > 255) throw new ApiError('parameter_invalid', { param: 'name', message: 'A name is 1 to 255 characters.' });
      const member = { id: newId(), organization_id: organizationId, email, name: input.name.trim(), role: input.role ?? 'member', created_at: clock.now() };
      if (!(await repo.insertMember(member))) {
        throw new ApiError('parameter_invalid', { param: 'email', message: `${email} is already a member of this organisation.` });
      }
      return member;
    },
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
