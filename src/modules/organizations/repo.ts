import type { Insertable, Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepared } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { ModuleName } from '../../platform/context.js';
import { keysetPager, type PageRequest } from '../../platform/pagination.js';

export function createOrganizationRepo(database: Db) {
  const db = database.kysely;
  const membersPage = keysetPager(database, (organizationId: string) => db.selectFrom('members').selectAll().where('organization_id', '=', organizationId));
  /** Read on every request to a module's operations: compiled once, answered from the read cache until a commit. */
  const moduleSwitch = prepared(database, (organizationId: string, module: string) =>
    db.selectFrom('organization_modules').select('enabled').where('organization_id', '=', organizationId).where('module', '=', module));

  return {
    async insert(tx: Kysely<Database>, row: Insertable<Database['organizations']>) {
      await tx.insertInto('organizations').values(row).execute();
    },
    async get(id: string) {
      return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async count(): Promise<number> {
      const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async setApiEnabled(id: string, enabled: boolean) {
      const r = await db.updateTable('organizations').set({ api_enabled: enabled ? 1 : 0 }).where('id', '=', id).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Switched-off modules; a module without a row is on. */
    async disabledModules(organizationId: string): Promise<Set<string>> {
      const rows = await db.selectFrom('organization_modules').select('module')
        .where('organization_id', '=', organizationId).where('enabled', '=', 0).execute();
      return new Set(rows.map((r) => r.module));
    },
    async isModuleEnabled(organizationId: string, module: ModuleName): Promise<boolean> {
      const [row] = await moduleSwitch(organizationId, module);
      return !row || row.enabled === 1;
    },
    async setModule(organizationId: string, module: ModuleName, enabled: boolean, now: number) {
      await db.insertInto('organization_modules')
        .values({ organization_id: organizationId, module, enabled: enabled ? 1 : 0, updated_at: now })
        .onConflict((oc) => oc.columns(['organization_id', 'module']).doUpdateSet({ enabled: enabled ? 1 : 0, updated_at: now }))
        .execute();
    },
    /** False when the organisation already has a member with this (normalised) address. */
    async insertMember(row: Database['members']): Promise<boolean> {
      const r = await db.insertInto('members').values(row)
        .onConflict((oc) => oc.columns(['organization_id', 'email']).doNothing()).executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    listMembers: (organizationId: string, page: PageRequest) => membersPage(page, organizationId),
    /** Whether any organisation has a member with this (normalised) address. */
    async isMemberEmail(tx: Kysely<Database>, email: string): Promise<boolean> {
      const row = await tx.selectFrom('members').select('id').where('email', '=', email).limit(1).executeTakeFirst();
      return row !== undefined;
    },
    /** A settings marker written once; false when another process wrote it first. */
    async claimSetting(tx: Kysely<Database>, key: string, value: string, now: number): Promise<boolean> {
      const r = await tx.insertInto('settings').values({ key, value, created_at: now })
        .onConflict((oc) => oc.column('key').doNothing()).executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
  };
}

export type OrganizationRepo = ReturnType<typeof createOrganizationRepo>;
