import type { Kysely } from 'kysely';
import type { BrandingTable, Database } from '../../db/schema.js';
import { toUnixSeconds, type Clock } from '../../platform/clock.js';
import { livemodeFlag, type Tenant } from '../../platform/context.js';

export const BRANDING_DEFAULTS = {
  primary_color: '#4F46E5',
  accent_color: '#0EA5E9',
  background_color: '#FFFFFF',
  text_color: '#111827',
} as const;

type BrandingFields = Pick<BrandingTable, 'company_name' | 'logo_url' | 'primary_color' | 'accent_color' | 'background_color' | 'text_color'>;

/** Per organisation and environment; what the candidate room and the embed widget show. */
export function createBrandingService(db: Kysely<Database>, clock: Clock) {

  async function load(tenant: Tenant) {
    const [row, org] = await Promise.all([
      db.selectFrom('branding').selectAll().where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst(),
      db.selectFrom('organizations').select('name').where('id', '=', tenant.organizationId).executeTakeFirstOrThrow(),
    ]);
    return { row, orgName: org.name };
  }

  function present(tenant: Tenant, row: BrandingTable | undefined, orgName: string) {
    return {
      object: 'branding' as const,
      livemode: tenant.livemode,
      company_name: row?.company_name ?? orgName,
      logo_url: row?.logo_url ?? null,
      primary_color: row?.primary_color ?? BRANDING_DEFAULTS.primary_color,
      accent_color: row?.accent_color ?? BRANDING_DEFAULTS.accent_color,
      background_color: row?.background_color ?? BRANDING_DEFAULTS.background_color,
      text_color: row?.text_color ?? BRANDING_DEFAULTS.text_color,
      updated_at: toUnixSeconds(row?.updated_at ?? null),
    };
  }

  return {
    async get(tenant: Tenant) {
      const { row, orgName } = await load(tenant);
      return present(tenant, row, orgName);
    },

    /** Writes only the fields given, so two changes at once to different fields both stay. */
    async update(tenant: Tenant, changes: Partial<BrandingFields>) {
      const set = { ...changes, updated_at: clock.now() };
      await db.insertInto('branding').values({
        organization_id: tenant.organizationId, livemode: livemodeFlag(tenant), company_name: null, logo_url: null,
        primary_color: null, accent_color: null, background_color: null, text_color: null, ...set,
      }).onConflict((oc) => oc.columns(['organization_id', 'livemode']).doUpdateSet(set)).execute();
      const { row, orgName } = await load(tenant);
      return present(tenant, row, orgName);
    },
  };
}

export type BrandingService = ReturnType<typeof createBrandingService>;
