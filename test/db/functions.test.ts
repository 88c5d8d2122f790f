import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const merge = async (saved: string, page: string) => (await sql<{ merged: string }>`select merge_marks(${saved}, ${page}) as merged`.execute(h.db.kysely)).rows[0]!.merged;

describe('merge_marks (registered on SQLite, a function of migration 0015 on PostgreSQL)', () => {
  it('puts each character of the page other than . in its place', async () => {
    expect(await merge('0000', '.3.1')).toBe('0301');
    expect(await merge('1234', '....')).toBe('1234');
    expect(await merge('1234', '5555')).toBe('5555');
    expect(await merge('0', '4')).toBe('4');
  });

  it('refuses strings of different lengths', async () => {
    // SQLite's function throws; PostgreSQL's gives null, which the answers column refuses in the statement that uses it.
    const result = await merge('000', '..1.').catch((error: Error) => error);
    if (result instanceof Error) expect(result.message).toMatch(/one length/);
    else expect(result).toBeNull();
  });
});
