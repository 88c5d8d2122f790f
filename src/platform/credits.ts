import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from './clock.js';
import type { Tenant } from './context.js';
import { ApiError } from './errors.js';
import { newId } from './ids.js';

export const CREDIT_KINDS = ['coding', 'resume', 'interview', 'prompt_engineering', 'psychometric'] as const;
export type CreditKind = (typeof CREDIT_KINDS)[number];

/** The largest amount one ledger entry holds (its column is a 32-bit integer on PostgreSQL). */
export const CREDIT_AMOUNT_MAX = 2_147_483_647;

const flag = (b: boolean) => (b ? 1 : 0) as 0 | 1;

export function quotaPeriod(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/**
 * Credits are an append-only ledger per organisation, environment and kind: the balance is the sum of
 * its entries. A reservation is a negative entry; committing it appends a zero-amount marker, releasing it
 * appends the amount back. The balance is also kept running on its lock row (credit_locks.balance), changed
 * in the transaction of each entry under the lock, so reading it never sums the ledger. Test-mode reservations
 * are also counted against the organisation's monthly sandbox quota (a counter, separate from the ledger).
 * Every method runs inside the caller's transaction.
 */
export function createCredits(deps: { clock: Clock; sandboxMonthlyQuota: number }) {
  const { clock } = deps;

  /**
   * Serialises ledger writes for one balance: PostgreSQL locks the row, SQLite takes its write lock. Returns the
   * balance as it stands under the lock (the row update waits for, then sees, any concurrent writer's commit).
   */
  async function lockBalance(tx: Kysely<Database>, tenant: Tenant, kind: string): Promise<number> {
    const key = { organization_id: tenant.organizationId, livemode: flag(tenant.livemode), kind };
    await tx.insertInto('credit_locks').values({ ...key, version: 0, balance: 0 })
      .onConflict((oc) => oc.columns(['organization_id', 'livemode', 'kind']).doNothing()).execute();
    const row = await tx.updateTable('credit_locks').set({ version: sql`version + 1` })
      .where('organization_id', '=', key.organization_id).where('livemode', '=', key.livemode).where('kind', '=', kind)
      .returning('balance').executeTakeFirstOrThrow();
    return Number(row.balance);
  }

  async function balance(db: Kysely<Database>, tenant: Tenant, kind: string): Promise<number> {
    const row = await db.selectFrom('credit_locks').select('balance')
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', flag(tenant.livemode)).where('kind', '=', kind)
      .executeTakeFirst();
    return Number(row?.balance ?? 0);
  }

  async function quota(db: Kysely<Database>, organizationId: string) {
    const period = quotaPeriod(clock.now());
    const row = await db.selectFrom('sandbox_quota').select('used')
      .where('organization_id', '=', organizationId).where('period', '=', period).executeTakeFirst();
    const used = row?.used ?? 0;
    return { period, limit: deps.sandboxMonthlyQuota, used, remaining: Math.max(0, deps.sandboxMonthlyQuota - used) };
  }

  /** Appends an entry and moves the running balance with it; the caller holds the balance lock. */
  async function append(tx: Kysely<Database>, tenant: Tenant, kind: string, amount: number, entry_type: 'grant' | 'reserve' | 'commit' | 'release', reservation_id: string | null, reference: string | null) {
    await tx.insertInto('credit_ledger').values({
      id: newId(), organization_id: tenant.organizationId, livemode: flag(tenant.livemode), kind, amount, entry_type,
      reservation_id, reference, created_at: clock.now(),
    }).execute();
    if (amount === 0) return;
    await tx.updateTable('credit_locks').set({ balance: sql`balance + ${amount}` })
      .where('organization_id', '=', tenant.organizationId).where('livemode', '=', flag(tenant.livemode)).where('kind', '=', kind)
      .execute();
  }

  async function reservationOf(tx: Kysely<Database>, reservationId: string) {
    const rows = await tx.selectFrom('credit_ledger').selectAll().where('reservation_id', '=', reservationId).execute();
    const reserve = rows.find((r) => r.entry_type === 'reserve');
    if (!reserve) throw new Error(`unknown credit reservation ${reservationId}`);
    const settled = rows.find((r) => r.entry_type === 'commit' || r.entry_type === 'release');
    return { reserve, settled: settled?.entry_type ?? null };
  }

  /** Locks the reservation's balance, then reports it unless it is already settled (so settling is once only). */
  async function settleable(tx: Kysely<Database>, reservationId: string) {
    const { reserve } = await reservationOf(tx, reservationId);
    const tenant = { organizationId: reserve.organization_id, livemode: reserve.livemode === 1 };
    await lockBalance(tx, tenant, reserve.kind);
    const { settled } = await reservationOf(tx, reservationId);
    return { reserve: settled ? null : reserve, tenant, settled };
  }

  return {
    balance,
    quota,
    /**
     * Takes the balance lock for the rest of the transaction. Callers that must decide something before
     * reserving (e.g. "is there already an open assignment?") lock first, so concurrent callers queue.
     */
    lock: lockBalance,

    async balances(db: Kysely<Database>, tenant: Tenant): Promise<Record<CreditKind, number>> {
      const rows = await db.selectFrom('credit_locks').select(['kind', 'balance'])
        .where('organization_id', '=', tenant.organizationId).where('livemode', '=', flag(tenant.livemode)).execute();
      const out = Object.fromEntries(CREDIT_KINDS.map((k) => [k, 0])) as Record<CreditKind, number>;
      for (const r of rows) if (r.kind in out) out[r.kind as CreditKind] = Number(r.balance);
      return out;
    },

    async grant(tx: Kysely<Database>, tenant: Tenant, kind: CreditKind, amount: number, reference: string | null = null) {
      if (!Number.isInteger(amount) || amount <= 0 || amount > CREDIT_AMOUNT_MAX) throw new Error(`a grant is a whole number from 1 to ${CREDIT_AMOUNT_MAX}`);
      await lockBalance(tx, tenant, kind);
      await append(tx, tenant, kind, amount, 'grant', null, reference);
    },

    /** Holds `amount` credits; throws 402 when the balance (or the sandbox quota) cannot cover it. */
    async reserve(tx: Kysely<Database>, tenant: Tenant, kind: CreditKind, reference: string, amount = 1): Promise<string> {
      const available = await lockBalance(tx, tenant, kind);
      if (!tenant.livemode) {
        const period = quotaPeriod(clock.now());
        await tx.insertInto('sandbox_quota').values({ organization_id: tenant.organizationId, period, used: 0 })
          .onConflict((oc) => oc.columns(['organization_id', 'period']).doNothing()).execute();
        const updated = await tx.updateTable('sandbox_quota').set({ used: sql`used + ${amount}` })
          .where('organization_id', '=', tenant.organizationId).where('period', '=', period)
          .where('used', '<=', deps.sandboxMonthlyQuota - amount).executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) throw new ApiError('sandbox_quota_exceeded');
      }
      if (available < amount) {
        throw new ApiError('insufficient_credits', { message: `Not enough ${kind} credits: ${amount} needed.` });
      }
      const reservationId = newId();
      await append(tx, tenant, kind, -amount, 'reserve', reservationId, reference);
      return reservationId;
    },

    /**
     * The reserved credits are spent. Settling twice is a no-op. False when they had been released instead: nothing
     * is spent, and the caller must not go on as if it were paid for.
     */
    async commit(tx: Kysely<Database>, reservationId: string): Promise<boolean> {
      const { reserve, tenant, settled } = await settleable(tx, reservationId);
      if (!reserve) return settled === 'commit';
      await append(tx, tenant, reserve.kind, 0, 'commit', reservationId, reserve.reference);
      return true;
    },

    /** The reserved credits go back (and the sandbox quota with them). Settling twice is a no-op. */
    async release(tx: Kysely<Database>, reservationId: string): Promise<void> {
      const { reserve, tenant } = await settleable(tx, reservationId);
      if (!reserve) return;
      await append(tx, tenant, reserve.kind, -reserve.amount, 'release', reservationId, reserve.reference);
      if (!tenant.livemode) {
        await tx.updateTable('sandbox_quota').set({ used: sql`used - ${-reserve.amount}` })
          .where('organization_id', '=', tenant.organizationId).where('period', '=', quotaPeriod(reserve.created_at))
          .where('used', '>=', -reserve.amount).execute();
      }
    },
  };
}

export type Credits = ReturnType<typeof createCredits>;
