import { sql, type Kysely } from 'kysely';

/**
 * Every reservation summed the organisation's whole ledger for one kind to find the balance: work that grew with every
 * entry ever written. Each balance's lock row (credit_locks, which every ledger write already updates under its lock)
 * now also keeps the running balance, changed in the same transaction as each entry; the ledger stays the record and
 * the balance always equals the sum of its entries. Here it is computed once from the ledger, and a lock row made for
 * any balance that has entries but none yet.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('credit_locks').addColumn('balance', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await sql`insert into credit_locks (organization_id, livemode, kind, version, balance)
    select distinct l.organization_id, l.livemode, l.kind, 0, 0 from credit_ledger l
    where not exists (select 1 from credit_locks k
      where k.organization_id = l.organization_id and k.livemode = l.livemode and k.kind = l.kind)`.execute(db);
  await sql`update credit_locks set balance = (select coalesce(sum(l.amount), 0) from credit_ledger l
    where l.organization_id = credit_locks.organization_id and l.livemode = credit_locks.livemode and l.kind = credit_locks.kind)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('credit_locks').dropColumn('balance').execute();
}
