import type { Kysely } from 'kysely';
import { lockOrganization } from '../../db/locks.js';
import type { Database } from '../../db/schema.js';
import { toUnixSeconds, type Clock } from '../../platform/clock.js';
import { livemodeFlag, type KeyAuth, type Tenant } from '../../platform/context.js';
import { ApiError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { generateKey, hashKey, parseKey, type KeyType } from './key-material.js';
import type { ApiKeyRepo, ApiKeyRow } from './repo.js';

export const ROTATION_GRACE_DEFAULT = 86_400;
/**
 * Keys an environment may hold unrevoked and unexpired: each has a rate limit of its own, so minting keys without
 * end would make an organisation's limits mean nothing. Rotation replaces a key and is never refused for it.
 */
export const API_KEYS_MAX = 50;
export const ROTATION_GRACE_MAX = 604_800;

export interface IssueKeyInput extends Tenant {
  type: KeyType;
  name?: string | null;
  rateLimit?: number | null;
  createdByKeyId?: string | null;
}

function statusOf(row: Pick<ApiKeyRow, 'revoked_at' | 'expires_at'>, now: number): 'active' | 'expiring' | 'revoked' {
  if ((row.revoked_at !== null && row.revoked_at <= now) || (row.expires_at !== null && row.expires_at <= now)) return 'revoked';
  return row.expires_at !== null ? 'expiring' : 'active';
}

export function createApiKeyService(deps: { db: Kysely<Database>; clock: Clock; repo: ApiKeyRepo }) {
  const { db, clock, repo } = deps;

  function present(row: ApiKeyRow) {
    return {
      object: 'api_key' as const,
      id: row.id,
      type: row.type,
      livemode: row.livemode === 1,
      name: row.name,
      redacted_key: row.key_hint,
      status: statusOf(row, clock.now()),
      rate_limit: row.rate_limit,
      created_at: toUnixSeconds(row.created_at),
      expires_at: toUnixSeconds(row.expires_at),
      revoked_at: toUnixSeconds(row.revoked_at),
    };
  }

  async function issue(tx: Kysely<Database>, input: IssueKeyInput) {
    const material = generateKey(input.type, input.livemode);
    const row: ApiKeyRow = {
      id: newId(),
      organization_id: input.organizationId,
      livemode: livemodeFlag(input),
      type: input.type,
      name: input.name ?? null,
      key_hash: material.hash,
      key_hint: material.hint,
      rate_limit: input.rateLimit ?? null,
      created_at: clock.now(),
      expires_at: null,
      revoked_at: null,
      replaced_by: null,
      created_by_key_id: input.createdByKeyId ?? null,
    };
    await repo.insert(tx, row);
    return { row, secret: material.secret };
  }

  /** A presented key of the expected type, never echoed back in an error. */
  async function resolveKey(raw: string, type: KeyType): Promise<KeyAuth> {
    const parsed = parseKey(raw);
    if (!parsed || parsed.type !== type) {
      throw new ApiError('invalid_api_key', {
        param: type === 'publishable' ? 'pk' : null,
        message: !parsed ? 'Invalid API key provided.'
          : type === 'secret' ? 'A publishable key cannot call this operation; use a secret key.'
            : 'pk must be a publishable key (svc_pk_…). Never put a secret key in a page.',
      });
    }
    const key = await repo.findForAuth(hashKey(raw));
    if (!key) throw new ApiError('invalid_api_key', { param: type === 'publishable' ? 'pk' : null, message: 'Invalid API key provided.' });
    if (statusOf(key, clock.now()) === 'revoked') throw new ApiError('revoked_api_key');
    if (key.api_enabled !== 1) throw new ApiError('public_api_not_enabled');
    return { organizationId: key.organization_id, livemode: key.livemode === 1, keyId: key.id, keyType: key.type, rateLimit: key.rate_limit };
  }

  async function mustGet(tx: Kysely<Database>, tenant: Tenant, id: string) {
    const row = await repo.get(tx, tenant, id);
    if (!row) throw notFound('api key', id);
    return row;
  }

  return {
    present,
    issue,

    resolveSecretKey: (raw: string) => resolveKey(raw, 'secret'),
    resolvePublishableKey: (raw: string) => resolveKey(raw, 'publishable'),

    async list(tenant: Tenant, page: PageRequest) {
      return repo.list(tenant, page);
    },

    async get(tenant: Tenant, id: string) {
      return mustGet(db, tenant, id);
    },

    /** A sibling key of the caller's environment. */
    async create(caller: KeyAuth, input: { type: KeyType; name?: string }) {
      return db.transaction().execute(async (tx) => {
        // Counted under the organisation's lock, so that concurrent mints cannot pass the limit together.
        await lockOrganization(tx, caller.organizationId);
        if (await repo.countLive(tx, caller, clock.now()) >= API_KEYS_MAX) {
          throw new ApiError('api_key_limit', { message: `This environment holds ${API_KEYS_MAX} keys, the most it may; revoke one first.` });
        }
        return issue(tx, { organizationId: caller.organizationId, livemode: caller.livemode, type: input.type, name: input.name, createdByKeyId: caller.keyId });
      });
    },

    async revoke(caller: KeyAuth, id: string) {
      if (id === caller.keyId) {
        throw new ApiError('api_key_self_revocation', { param: 'id', message: 'A key cannot revoke itself; revoke it with another key, or rotate it with a grace window.' });
      }
      return db.transaction().execute(async (tx) => {
        const row = await mustGet(tx, caller, id);
        if (row.revoked_at === null || row.revoked_at > clock.now()) {
          row.revoked_at = clock.now();
          await repo.update(tx, id, { revoked_at: row.revoked_at });
        }
        return row;
      });
    },

    /** A replacement of the same type and limit; the old key works until the grace ends (at once for 0). */
    async rotate(caller: KeyAuth, id: string, graceSeconds: number) {
      if (id === caller.keyId && graceSeconds === 0) {
        throw new ApiError('api_key_self_revocation', { param: 'grace_seconds', message: 'A key cannot revoke itself: rotate it with a grace window greater than 0.' });
      }
      return db.transaction().execute(async (tx) => {
        const old = await mustGet(tx, caller, id);
        if (statusOf(old, clock.now()) !== 'active') {
          throw new ApiError('api_key_inactive', { param: 'id', message: 'This key is revoked or already being rotated; rotate its replacement instead.' });
        }
        const replacement = await issue(tx, {
          organizationId: old.organization_id, livemode: old.livemode === 1, type: old.type, name: old.name,
          rateLimit: old.rate_limit, createdByKeyId: caller.keyId,
        });
        // On a whole second, so the key stops exactly at the previous_key_expires_at the caller is shown.
        const endsAt = (toUnixSeconds(clock.now()) + graceSeconds) * 1000;
        // Only while it is still active: of rotations racing, one replaces the key; the others roll their keys back.
        const claimed = await repo.retireIfActive(tx, id, graceSeconds === 0
          ? { revoked_at: endsAt, replaced_by: replacement.row.id }
          : { expires_at: endsAt, replaced_by: replacement.row.id });
        if (!claimed) throw new ApiError('api_key_inactive', { param: 'id', message: 'This key is revoked or already being rotated; rotate its replacement instead.' });
        return { replacement, previousKeyId: id, previousKeyExpiresAt: endsAt };
      });
    },

    /** Raises (or resets with null) one key's per-window limit; operators only (CLI). */
    async setRateLimit(organizationId: string, id: string, limit: number | null) {
      const row = await db.selectFrom('api_keys').select('id').where('id', '=', id).where('organization_id', '=', organizationId).executeTakeFirst();
      if (!row) throw notFound('api key', id);
      await repo.update(db, id, { rate_limit: limit });
    },
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
