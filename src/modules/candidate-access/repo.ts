import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { prepared } from '../../db/prepared.js';
import type { Database, LaunchLinksTable, SessionTokensTable, SubjectKind } from '../../db/schema.js';
import { livemodeFlag, type ModuleName, type Tenant } from '../../platform/context.js';

export function createCandidateAccessRepo(database: Db) {
  const db = database.kysely;
  /**
   * Checked on every session-token request: what was recorded for the jti (the binding a token must carry), is it (or
   * the original it was refreshed from, or the secret key that minted it) revoked, and is the organisation's API on.
   */
  const tokenState = prepared(database, (jti: string) =>
    db.selectFrom('session_tokens as t')
      .innerJoin('organizations as o', 'o.id', 't.organization_id')
      .leftJoin('session_tokens as root', 'root.jti', 't.root_jti')
      .leftJoin('api_keys as k', 'k.id', 't.key_id')
      .select(['t.organization_id', 't.livemode', 't.subject_kind', 't.subject_id', 't.origin', 't.expires_at',
        't.revoked_at', 't.root_jti', 'root.revoked_at as root_revoked_at', 'k.revoked_at as key_revoked_at', 'o.api_enabled'])
      .where('t.jti', '=', jti));

  // Not cached: stamped with the time (and asked for any origin a request names), each would be an entry of its own.
  const liveTokenFor = prepared(database, (origin: string, now: number) =>
    db.selectFrom('session_tokens').select('jti').where('origin', '=', origin).where('expires_at', '>', now).limit(1), { cached: false });

  return {
    tokenState: async (jti: string) => (await tokenState(jti))[0],
    /** Whether a token bound to this origin is still within its life (revoked or not), in any organisation. */
    liveTokenFor: async (origin: string, now: number) => (await liveTokenFor(origin, now)).length > 0,
    insertToken: (tx: Kysely<Database>, row: SessionTokensTable) => tx.insertInto('session_tokens').values(row).execute(),
    getToken: (tenant: Tenant, jti: string) => db.selectFrom('session_tokens').selectAll()
      .where('jti', '=', jti).where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant)).executeTakeFirst(),
    revokeToken: (jti: string, now: number) => db.updateTable('session_tokens').set({ revoked_at: now })
      .where('jti', '=', jti).where('revoked_at', 'is', null).execute(),
    /** The original a token descends from (itself when it is one), and when that original was minted. */
    chainOf: (jti: string) => db.selectFrom('session_tokens as t').leftJoin('session_tokens as root', 'root.jti', 't.root_jti')
      .select(['t.jti', 't.root_jti', 't.key_id', 't.source', 't.created_at', 'root.created_at as root_created_at', 'root.source as root_source'])
      .where('t.jti', '=', jti).executeTakeFirst(),
    /** How many tokens have been refreshed from the chain that started with `rootJti` (session_tokens_root_idx). */
    refreshesOf: async (tx: Kysely<Database>, rootJti: string) => Number((await tx.selectFrom('session_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n')).where('root_jti', '=', rootJti).executeTakeFirstOrThrow()).n),
    apiEnabled: async (tx: Kysely<Database>, organizationId: string) =>
      (await tx.selectFrom('organizations').select('api_enabled').where('id', '=', organizationId).executeTakeFirst())?.api_enabled === 1,
    /** A module is on unless the organisation switched it off (no row: on). */
    moduleEnabled: async (tx: Kysely<Database>, organizationId: string, module: ModuleName) =>
      (await tx.selectFrom('organization_modules').select('enabled').where('organization_id', '=', organizationId).where('module', '=', module)
        .executeTakeFirst())?.enabled !== 0,

    /** Whether a secret key was revoked (DELETE, or a rotation with no grace) at or before `now`; a rotation's grace ending is not. */
    keyRevoked: async (tx: Kysely<Database>, keyId: string, now: number) => {
      const key = await tx.selectFrom('api_keys').select('revoked_at').where('id', '=', keyId).executeTakeFirst();
      return key?.revoked_at != null && key.revoked_at <= now;
    },
    insertLaunchLink: (tx: Kysely<Database>, row: LaunchLinksTable) => tx.insertInto('launch_links').values(row).execute(),
    /**
     * Marks an unused link used and returns it; undefined when it is unknown or already used (single use).
     * A write as the exchange's first statement: concurrent exchanges queue on the row (PostgreSQL) or on the
     * write lock (SQLite, where a read-then-write transaction fails with SQLITE_BUSY_SNAPSHOT across processes).
     */
    claimLaunchLink: (tx: Kysely<Database>, hash: string, now: number) => tx.updateTable('launch_links').set({ used_at: now })
      .where('token_hash', '=', hash).where('used_at', 'is', null).returningAll().executeTakeFirst(),
    /** A link by its token's hash, used or not, without claiming it (the launch page's preview). */
    findLaunchLink: (hash: string) => db.selectFrom('launch_links').selectAll().where('token_hash', '=', hash).executeTakeFirst(),
    /** Revokes the tokens bound to these subjects and expires their unused launch links (candidate erasure). */
    async endSubjectAccess(tx: Kysely<Database>, tenant: Tenant, kind: SubjectKind, subjectIds: string[], now: number) {
      await tx.updateTable('session_tokens').set({ revoked_at: now })
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
        .where('subject_kind', '=', kind).where('subject_id', 'in', subjectIds).where('revoked_at', 'is', null).execute();
      await tx.updateTable('launch_links').set({ expires_at: now })
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', livemodeFlag(tenant))
        .where('subject_kind', '=', kind).where('subject_id', 'in', subjectIds).where('used_at', 'is', null).where('expires_at', '>', now).execute();
    },
    /** Tokens and links past their expiry, kept a day for support questions, then deleted. */
    async sweep(now: number) {
      const day = 86_400_000;
      await db.deleteFrom('session_tokens').where('expires_at', '<', now - day).execute();
      await db.deleteFrom('launch_links').where('expires_at', '<', now - day).execute();
    },
  };
}

export type CandidateAccessRepo = ReturnType<typeof createCandidateAccessRepo>;
