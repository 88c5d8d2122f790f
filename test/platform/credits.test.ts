import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import type { Tenant } from '../../src/platform/context.js';
import { CREDIT_KINDS, quotaPeriod, type CreditKind } from '../../src/platform/credits.js';
import { up as runningBalanceUp } from '../../src/db/migrations/0025_credit_running_balance.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { countStatements } from '../helpers/sql-count.js';

/** The sandbox quota every test here runs with; small so it can be used up. */
const QUOTA = 2;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { PREP_SANDBOX_MONTHLY_QUOTA: String(QUOTA) } });
});
afterAll(() => h.close());

const live = (organizationId: string): Tenant => ({ organizationId, livemode: true });
const test = (organizationId: string): Tenant => ({ organizationId, livemode: false });

/** Runs `work` in its own transaction, as a module's operation would. */
const inTx = <T>(work: (tx: Kysely<Database>) => Promise<T>) => h.db.kysely.transaction().execute(work);

const reserve = (tenant: Tenant, kind: CreditKind = 'coding', amount = 1) =>
  inTx((tx) => h.services.credits.reserve(tx, tenant, kind, `ref-${kind}`, amount));
const commit = (id: string) => inTx((tx) => h.services.credits.commit(tx, id));
const release = (id: string) => inTx((tx) => h.services.credits.release(tx, id));
const balance = (tenant: Tenant, kind: CreditKind = 'coding') => h.services.credits.balance(h.db.kysely, tenant, kind);

async function ledger(tenant: Tenant, kind: CreditKind = 'coding') {
  const rows = await h.db.kysely.selectFrom('credit_ledger').selectAll()
    .where('organization_id', '=', tenant.organizationId).where('livemode', '=', tenant.livemode ? 1 : 0).where('kind', '=', kind)
    .orderBy('id').execute();
  return rows.map((r) => ({ ...r, amount: Number(r.amount), livemode: Number(r.livemode), created_at: Number(r.created_at) }));
}

async function quotaUsed(organizationId: string, period = quotaPeriod(h.clock.now())): Promise<number | undefined> {
  const row = await h.db.kysely.selectFrom('sandbox_quota').select('used')
    .where('organization_id', '=', organizationId).where('period', '=', period).executeTakeFirst();
  return row === undefined ? undefined : Number(row.used);
}

const orgWith = async (credits: number) => (await h.createOrg(`Credits ${credits}`, credits)).id;

/** Milliseconds at 00:00 UTC on the first day of the month after `ms`. */
function nextMonthStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

describe('balances', () => {
  it('reports every kind in each environment, from the grant', async () => {
    const id = await orgWith(10);
    const expected = Object.fromEntries(CREDIT_KINDS.map((k) => [k, 10]));
    expect(await h.services.credits.balances(h.db.kysely, live(id))).toEqual(expected);
    expect(await h.services.credits.balances(h.db.kysely, test(id))).toEqual(expected);
    const empty = await orgWith(0);
    expect(await h.services.credits.balances(h.db.kysely, live(empty))).toEqual(Object.fromEntries(CREDIT_KINDS.map((k) => [k, 0])));
  });

  it('keeps kinds, environments and organisations apart', async () => {
    const id = await orgWith(5);
    const other = await orgWith(5);
    await reserve(live(id), 'coding', 2);
    expect(await balance(live(id), 'coding')).toBe(3);
    expect(await balance(live(id), 'resume')).toBe(5);
    expect(await balance(test(id), 'coding')).toBe(5);
    expect(await balance(live(other), 'coding')).toBe(5);
  });
});

describe('reserve, commit and release', () => {
  it('a reservation lowers the balance and a commit keeps it spent', async () => {
    const t = live(await orgWith(10));
    const id = await reserve(t);
    expect(await balance(t)).toBe(9);
    await commit(id);
    expect(await balance(t)).toBe(9);
    expect((await ledger(t)).map((r) => [r.entry_type, r.amount, r.reservation_id])).toEqual([
      ['grant', 10, null], ['reserve', -1, id], ['commit', 0, id],
    ]);
  });

  it('a release gives the credits back as a third, appended row', async () => {
    const t = live(await orgWith(10));
    const id = await reserve(t, 'coding', 3);
    expect(await balance(t)).toBe(7);
    await release(id);
    expect(await balance(t)).toBe(10);
    const rows = await ledger(t);
    expect(rows.map((r) => [r.entry_type, r.amount])).toEqual([['grant', 10], ['reserve', -3], ['release', 3]]);
    expect(rows[1].reference).toBe('ref-coding');
    expect(rows[2].reservation_id).toBe(id);
  });

  it('settling twice is a no-op, whichever way round', async () => {
    const t = live(await orgWith(10));
    const spent = await reserve(t);
    await commit(spent);
    await commit(spent);
    await release(spent); // too late: already committed
    const returned = await reserve(t);
    await release(returned);
    await release(returned);
    await commit(returned); // too late: already released
    expect(await balance(t)).toBe(9);
    expect((await ledger(t)).map((r) => r.entry_type)).toEqual(['grant', 'reserve', 'commit', 'reserve', 'release']);
  });

  it('concurrent settlements of one reservation settle it once', async () => {
    const t = live(await orgWith(10));
    const id = await reserve(t);
    await Promise.all(Array.from({ length: 6 }, () => release(id)));
    expect(await balance(t)).toBe(10);
    expect((await ledger(t)).filter((r) => r.entry_type === 'release')).toHaveLength(1);
  });

  it('refuses to reserve beyond the balance with insufficient_credits (402) and writes nothing', async () => {
    const t = live(await orgWith(1));
    const before = await ledger(t);
    await expect(reserve(t, 'coding', 2)).rejects.toMatchObject({ code: 'insufficient_credits', status: 402, type: 'insufficient_credits' });
    expect(await ledger(t)).toEqual(before);
    await reserve(t);
    await expect(reserve(t)).rejects.toMatchObject({ code: 'insufficient_credits', status: 402 });
    expect((await ledger(t)).map((r) => r.entry_type)).toEqual(['grant', 'reserve']);
    expect(await balance(t)).toBe(0);
  });

  it('a failure later in the caller\'s transaction rolls the reservation back', async () => {
    const t = test(await orgWith(5));
    await expect(inTx(async (tx) => {
      await h.services.credits.reserve(tx, t, 'coding', 'doomed');
      throw new Error('the operation failed after reserving');
    })).rejects.toThrow('the operation failed');
    expect(await balance(t)).toBe(5);
    expect((await ledger(t)).map((r) => r.entry_type)).toEqual(['grant']);
    expect(await quotaUsed(t.organizationId) ?? 0).toBe(0);
  });

  it('the ledger is append-only: rows only grow and earlier rows never change', async () => {
    const t = live(await orgWith(10));
    let seen = await ledger(t);
    const steps: Array<() => Promise<unknown>> = [];
    let a = '';
    let b = '';
    steps.push(async () => { a = await reserve(t, 'coding', 2); });
    steps.push(async () => { b = await reserve(t); });
    steps.push(() => release(a));
    steps.push(() => commit(b));
    steps.push(() => inTx((tx) => h.services.credits.grant(tx, t, 'coding', 4, 'top-up')));
    for (const step of steps) {
      await step();
      const now = await ledger(t);
      expect(now).toHaveLength(seen.length + 1);
      expect(now.slice(0, seen.length)).toEqual(seen);
      seen = now;
    }
    expect(await balance(t)).toBe(10 - 1 + 4);
    expect(seen.reduce((sum, r) => sum + r.amount, 0)).toBe(13);
  });

  it('never overspends under concurrent reservations: exactly the balance succeeds', async () => {
    const t = live(await orgWith(3));
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => inTx((tx) => h.services.credits.reserve(tx, t, 'coding', `race-${i}`))));
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(3);
    for (const r of lost) expect(r.reason).toMatchObject({ code: 'insufficient_credits' });
    expect(await balance(t)).toBe(0);
    expect((await ledger(t)).filter((r) => r.entry_type === 'reserve')).toHaveLength(3);
  });
});

describe('the running balance', () => {
  /** Every kind's balance in one environment, summed from the ledger itself (the record the balance must equal). */
  async function ledgerSums(tenant: Tenant): Promise<Record<CreditKind, number>> {
    const out = Object.fromEntries(CREDIT_KINDS.map((k) => [k, 0])) as Record<CreditKind, number>;
    for (const kind of CREDIT_KINDS) out[kind] = (await ledger(tenant, kind)).reduce((sum, r) => sum + r.amount, 0);
    return out;
  }

  it('reserving, settling and reading never sum the ledger: the work does not grow with it', async () => {
    const t = live(await orgWith(500));
    for (let i = 0; i < 20; i++) await release(await reserve(t));
    const { statements, result: id } = await countStatements(() => reserve(t));
    const { statements: settling } = await countStatements(() => commit(id));
    const { statements: reading } = await countStatements(async () => {
      await balance(t);
      await h.services.credits.balances(h.db.kysely, t);
    });
    // Writes to the ledger are inserts; a settlement reads its own reservation's rows (by reservation_id), nothing more.
    for (const s of [...statements, ...settling]) if (/credit_ledger/.test(s)) expect(s).toMatch(/^\s*insert|"reservation_id" = /);
    for (const s of reading) expect(s).not.toMatch(/credit_ledger/);
    expect(await balance(t)).toBe(499);
  });

  it('equals the sum of the ledger after many entries, concurrent ones included, in every kind and environment', async () => {
    const id = await orgWith(40);
    const tenants = [live(id), test(id)];
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 60; i++) {
      const t = tenants[i % 2]!;
      const kind = CREDIT_KINDS[i % CREDIT_KINDS.length]!;
      work.push((async () => {
        const r = await inTx((tx) => h.services.credits.reserve(tx, t, kind, `many-${i}`, 1 + (i % 3)));
        if (i % 4 === 0) await release(r);
        else await commit(r);
      })().catch((e: { type?: string }) => {
        if (e.type !== 'insufficient_credits') throw e; // a sandbox quota or a balance run out is fine
      }));
      if (i % 7 === 0) work.push(inTx((tx) => h.services.credits.grant(tx, t, kind, 1 + i, `top-up-${i}`)));
    }
    await Promise.all(work);
    for (const t of tenants) {
      const sums = await ledgerSums(t);
      expect(await h.services.credits.balances(h.db.kysely, t)).toEqual(sums);
      for (const kind of CREDIT_KINDS) expect(await balance(t, kind)).toBe(sums[kind]);
    }
    expect(Object.values(await ledgerSums(live(id))).some((n) => n !== 40)).toBe(true); // the work did change balances
  });

  it('the migration computes it from an existing ledger, a balance with entries but no lock row included', async () => {
    const id = await orgWith(9);
    await reserve(live(id), 'resume', 4);
    await release(await reserve(test(id), 'coding', 2));
    await reserve(test(id), 'coding', 1);
    await h.db.kysely.deleteFrom('credit_locks').where('organization_id', '=', id).where('kind', '=', 'psychometric').execute();
    await h.db.kysely.schema.alterTable('credit_locks').dropColumn('balance').execute();
    await runningBalanceUp(h.db.kysely);
    expect(await h.services.credits.balances(h.db.kysely, live(id))).toEqual({ ...Object.fromEntries(CREDIT_KINDS.map((k) => [k, 9])), resume: 5 });
    expect(await h.services.credits.balances(h.db.kysely, test(id))).toEqual({ ...Object.fromEntries(CREDIT_KINDS.map((k) => [k, 9])), coding: 8 });
    await reserve(live(id), 'psychometric', 9);
    await expect(reserve(live(id), 'psychometric')).rejects.toMatchObject({ code: 'insufficient_credits' });
  });
});

describe('sandbox monthly quota', () => {
  it('counts test reservations: the third is sandbox_quota_exceeded with credits left, and writes nothing', async () => {
    const t = test(await orgWith(10));
    await reserve(t, 'coding');
    await reserve(t, 'resume'); // one quota for the organisation, across kinds
    expect(await quotaUsed(t.organizationId)).toBe(2);
    const before = await ledger(t);
    await expect(reserve(t, 'coding')).rejects.toMatchObject({ code: 'sandbox_quota_exceeded', status: 402, type: 'insufficient_credits' });
    expect(await balance(t, 'coding')).toBe(9);
    expect(await ledger(t)).toEqual(before);
    expect(await quotaUsed(t.organizationId)).toBe(2);
  });

  it('a release gives the quota back', async () => {
    const t = test(await orgWith(10));
    const first = await reserve(t);
    await reserve(t);
    await expect(reserve(t)).rejects.toMatchObject({ code: 'sandbox_quota_exceeded' });
    await release(first);
    expect(await quotaUsed(t.organizationId)).toBe(1);
    await reserve(t);
    expect(await quotaUsed(t.organizationId)).toBe(2);
    // A commit keeps the quota used.
    await expect(reserve(t)).rejects.toMatchObject({ code: 'sandbox_quota_exceeded' });
  });

  it('running out of test credits does not use quota', async () => {
    const t = test(await orgWith(0));
    await expect(reserve(t)).rejects.toMatchObject({ code: 'insufficient_credits' });
    expect(await quotaUsed(t.organizationId) ?? 0).toBe(0);
  });

  it('is fresh in the next UTC month, and a late release returns quota to its own month', async () => {
    const t = test(await orgWith(10));
    const lastMonth = quotaPeriod(h.clock.now());
    const early = await reserve(t);
    await reserve(t);
    await expect(reserve(t)).rejects.toMatchObject({ code: 'sandbox_quota_exceeded' });

    h.clock.set(nextMonthStart(h.clock.now()) - 1000);
    await expect(reserve(t)).rejects.toMatchObject({ code: 'sandbox_quota_exceeded' }); // still the same month
    h.clock.advance(1000);
    const thisMonth = quotaPeriod(h.clock.now());
    expect(thisMonth).not.toBe(lastMonth);
    expect(await quotaUsed(t.organizationId) ?? 0).toBe(0);
    await reserve(t);
    expect(await quotaUsed(t.organizationId, thisMonth)).toBe(1);

    await release(early);
    expect(await quotaUsed(t.organizationId, lastMonth)).toBe(1);
    expect(await quotaUsed(t.organizationId, thisMonth)).toBe(1);
  });

  it('concurrent test reservations never exceed the quota', async () => {
    const t = test(await orgWith(10));
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => reserve(t)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(QUOTA);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'sandbox_quota_exceeded' });
    expect(await quotaUsed(t.organizationId)).toBe(QUOTA);
    expect(await balance(t)).toBe(10 - QUOTA);
  });

  it('live reservations never touch the quota', async () => {
    const id = await orgWith(10);
    for (let i = 0; i < QUOTA + 3; i++) await reserve(live(id));
    expect(await balance(live(id))).toBe(10 - QUOTA - 3);
    expect(await h.db.kysely.selectFrom('sandbox_quota').selectAll().where('organization_id', '=', id).execute()).toEqual([]);
    // ...and a live release does not give any back either.
    const r = await reserve(live(id));
    await reserve(test(id));
    await release(r);
    expect(await quotaUsed(id)).toBe(1);
  });
});

describe('GET /v1/usage', () => {
  const usage = async (key: string) => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/usage', headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('reports balances, quota, modules and limits for the key\'s environment', async () => {
    const org = await h.createOrg('Usage Co', 10);
    await reserve(test(org.id), 'coding', 1);
    await reserve(live(org.id), 'resume', 4);

    const sandbox = await usage(org.keys.secret_test);
    expect(sandbox).toMatchObject({ object: 'usage', livemode: false, api_enabled: true });
    expect(sandbox.credits).toEqual({ ...Object.fromEntries(CREDIT_KINDS.map((k) => [k, 10])), coding: 9 });
    expect(sandbox.sandbox_quota).toEqual({ period: quotaPeriod(h.clock.now()), limit: QUOTA, used: 1, remaining: QUOTA - 1 });
    expect(sandbox.limits).toEqual({
      rate_limit_window_seconds: h.config.rateLimit.windowMs / 1000,
      rate_limit: h.config.rateLimit.standard,
      rate_limit_model: h.config.rateLimit.model,
      page_size_max: 100,
      request_body_max_bytes: h.config.bodyLimitBytes,
    });

    const production = await usage(org.keys.secret_live);
    expect(production.livemode).toBe(true);
    expect(production.credits).toEqual({ ...Object.fromEntries(CREDIT_KINDS.map((k) => [k, 10])), resume: 6 });
  });

  it('follows the quota as it is used up and given back', async () => {
    const org = await h.createOrg('Quota Co', 10);
    const a = await reserve(test(org.id));
    await reserve(test(org.id));
    expect((await usage(org.keys.secret_test)).sandbox_quota).toMatchObject({ used: 2, remaining: 0 });
    await release(a);
    expect((await usage(org.keys.secret_test)).sandbox_quota).toMatchObject({ used: 1, remaining: 1 });
  });

  it('lists every module, a disabled one as false rather than omitted', async () => {
    const org = await h.createOrg('Modules Co', 1);
    const before = (await usage(org.keys.secret_test)).modules;
    expect(Object.keys(before).sort()).toEqual(['coding', 'interviews', 'prompt_engineering', 'psychometric', 'question_bank', 'resumes']);
    expect(Object.values(before).every((v) => v === true)).toBe(true);

    await h.services.organizations.setModule(org.id, 'coding', false);
    const after = (await usage(org.keys.secret_live)).modules;
    expect(after).toEqual({ ...before, coding: false });
    await h.services.organizations.setModule(org.id, 'coding', true);
    expect((await usage(org.keys.secret_live)).modules.coding).toBe(true);
  });

  it('needs a secret key', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/usage', headers: bearer(h.org.keys.publishable_test) });
    expect(res.statusCode).toBe(401);
    expect((await h.app.inject({ method: 'GET', url: '/v1/usage' })).statusCode).toBe(401);
  });
});
