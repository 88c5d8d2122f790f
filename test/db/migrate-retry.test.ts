import { describe, expect, it, vi } from 'vitest';

// Kysely's migrator reads the whole PostgreSQL catalogue to find its tables, which can fail with 42P01 ("relation …
// does not exist") while another schema's tables are dropped (seen once in CI: `prep` failed to start).
const outcomes: Array<() => unknown> = [];
let calls = 0;
vi.mock('kysely/migration', async (original) => {
  const kysely = await original<typeof import('kysely/migration')>();
  class Migrator {
    async migrateToLatest() {
      calls++;
      return outcomes.shift()!();
    }
  }
  return { ...kysely, Migrator };
});

const { migrateToLatest } = await import('../../src/db/migrate.js');
const db = { kysely: {}, schema: null } as never;
const undefinedTable = () => { throw Object.assign(new Error('relation "t.kysely_migration_lock" does not exist'), { code: '42P01' }); };
// Seen with test files run two at a time: has_schema_privilege() over a schema another file dropped during the read.
const undefinedSchema = () => { throw Object.assign(new Error('schema "t_mwx8620m_k5s1pq" does not exist'), { code: '3F000' }); };

// Seen in CI: the read met a column of another schema's table while that schema was being migrated.
const undefinedColumn = () => { throw Object.assign(new Error('column "completed_at" of relation "interviews" does not exist'), { code: '42703' }); };

describe('migrateToLatest', () => {
  it('reads again after a catalogue race, then reports what it applied', async () => {
    calls = 0;
    outcomes.push(undefinedTable, () => ({ results: [{ migrationName: '0001', status: 'Success' }] }));
    await expect(migrateToLatest(db)).resolves.toEqual(['0001']);
    expect(calls).toBe(2);
  });

  it('reads again after a schema dropped during the read', async () => {
    calls = 0;
    outcomes.push(undefinedSchema, undefinedTable, () => ({ results: [{ migrationName: '0002', status: 'Success' }] }));
    await expect(migrateToLatest(db)).resolves.toEqual(['0002']);
    expect(calls).toBe(3);
  });

  it('reads again after a column changed during the read', async () => {
    calls = 0;
    outcomes.push(undefinedColumn, () => ({ results: [{ migrationName: '0003', status: 'Success' }] }));
    await expect(migrateToLatest(db)).resolves.toEqual(['0003']);
    expect(calls).toBe(2);
  });

  it('gives up after five tries, and never retries any other error', async () => {
    calls = 0;
    outcomes.push(undefinedTable, undefinedSchema, undefinedTable, undefinedTable, undefinedTable);
    await expect(migrateToLatest(db)).rejects.toMatchObject({ code: '42P01' });
    expect(calls).toBe(5);
    calls = 0;
    outcomes.push(() => ({ error: new Error('syntax error') }));
    await expect(migrateToLatest(db)).rejects.toThrow('syntax error');
    expect(calls).toBe(1);
  });
});
