import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { prepared, preparedStatement } from '../../src/db/prepared.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;

/** A promise and the function that settles it: a step one side waits for and the other takes. */
function signal() {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire, fired };
}

/** A transaction that renames the harness's organisation, then holds its connection until released; it commits or rolls back. */
async function heldRename(name: string, commit: boolean) {
  const gate = signal();
  const held = signal();
  const done = h.db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('organizations').set({ name }).where('id', '=', h.org.id).execute();
    held.fire();
    await gate.fired;
    if (!commit) throw new Error('roll back');
  }).then(() => 'committed', (error: Error) => error.message);
  await held.fired;
  return { release: gate.fire, done };
}

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('prepared queries', () => {
  it('binds fresh values on every run, keeps literal values, and compiles one shape per set of present arguments', async () => {
    const db = h.db.kysely;
    let builds = 0;
    const byName = prepared(h.db, (name: string | undefined, limit: number) => {
      builds++;
      const q = db.selectFrom('organizations').select(['id', 'name']).where('api_enabled', '=', 1);
      return (name === undefined ? q : q.where('name', '=', name)).orderBy('id').limit(limit);
    });
    const other = await h.createOrg('Prepared Inc');
    expect((await byName('Prepared Inc', 5)).map((r) => r.id)).toEqual([other.id]);
    expect((await byName('Acme', 5)).map((r) => r.id)).toEqual([h.org.id]);
    expect(await byName('Nobody', 5)).toEqual([]);
    expect((await byName(undefined, 1)).length).toBe(1);
    expect((await byName(undefined, 10)).length).toBe(2);
    expect(builds).toBe(2);
  });

  it('reads only committed data: a write still in its transaction is not seen, and is seen once committed', async () => {
    const db = h.db.kysely;
    const names = prepared(h.db, (id: string) => db.selectFrom('organizations').select('name').where('id', '=', id));
    const tx = await heldRename('Renamed', true);
    expect(await names(h.org.id)).toEqual([{ name: 'Acme' }]);
    tx.release();
    expect(await tx.done).toBe('committed');
    expect(await names(h.org.id)).toEqual([{ name: 'Renamed' }]);
  });

  it('a statement run on its own commits at once, and one that meets an open transaction runs after it, never in it', async () => {
    const db = h.db.kysely;
    const names = prepared(h.db, (id: string) => db.selectFrom('organizations').select('name').where('id', '=', id));
    const rename = preparedStatement(h.db, (id: string, name: string) => db.updateTable('organizations').set({ name }).where('id', '=', id).returning('name'));
    const org = await h.createOrg('On Its Own');
    expect(await names(org.id)).toEqual([{ name: 'On Its Own' }]);
    expect(await rename.run(org.id, 'Renamed Alone')).toEqual([{ name: 'Renamed Alone' }]);
    // The read cache saw the write: the next read is fresh.
    expect(await names(org.id)).toEqual([{ name: 'Renamed Alone' }]);

    // A transaction holds the connection while it awaits, then rolls back: the statement run meanwhile must keep
    // its own effect (it would be undone had it joined the transaction).
    const untouched = await names(h.org.id);
    const tx = await heldRename('Never Committed', false);
    let done = false;
    const alone = rename.run(org.id, 'Renamed After').then((rows) => ((done = true), rows));
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (h.db.dialect === 'sqlite') expect(done).toBe(false); // one connection: it waits for the transaction
    tx.release();
    expect(await tx.done).toBe('roll back');
    expect(await alone).toEqual([{ name: 'Renamed After' }]);
    expect(await names(org.id)).toEqual([{ name: 'Renamed After' }]);
    expect(await names(h.org.id)).toEqual(untouched);
    // And in a transaction given to it, it is part of that transaction.
    await db.transaction().execute(async (trx) => {
      await rename.in(trx, org.id, 'Inside');
      throw new Error('undo');
    }).catch(() => undefined);
    expect(await names(org.id)).toEqual([{ name: 'Renamed After' }]);
  });

  it('executeAll runs its statements as one transaction: all of them stay, or none when a condition or a statement says no', async () => {
    const db = h.db.kysely;
    const org = await h.createOrg('All Or Nothing');
    const rename = (name: string) => db.updateTable('organizations').set({ name }).where('id', '=', org.id).returning('name').compile();
    const name = async () => (await db.selectFrom('organizations').select('name').where('id', '=', org.id).executeTakeFirstOrThrow()).name;
    expect(await h.db.executeAll([{ query: rename('First') }, { query: rename('Second') }])).toEqual([[{ name: 'First' }], [{ name: 'Second' }]]);
    expect(await name()).toBe('Second');
    expect(await h.db.executeAll([{ query: rename('Third'), proceed: (rows) => rows.length === 0 }, { query: rename('Fourth') }])).toBeNull();
    expect(await name()).toBe('Second');
    await expect(h.db.executeAll([{ query: rename('Fifth') }, { query: sql`select * from no_such_table`.compile(db) }])).rejects.toThrow();
    expect(await name()).toBe('Second');
    expect(await h.db.executeAll([])).toEqual([]);
  });

  it('a repeated read answers from memory until anything is committed, by this connection or another process\'s', async () => {
    const db = h.db.kysely;
    const names = prepared(h.db, (id: string) => db.selectFrom('organizations').select('name').where('id', '=', id));
    const org = await h.createOrg('Cached Ltd');
    const first = await names(org.id);
    expect(first).toEqual([{ name: 'Cached Ltd' }]);
    expect(await names(org.id)).toEqual(first);
    // Shared results are frozen: a caller cannot change what the next caller reads.
    expect(() => { (first[0] as { name: string }).name = 'x'; }).toThrow(TypeError);

    await db.updateTable('organizations').set({ name: 'Written Here' }).where('id', '=', org.id).execute();
    expect(await names(org.id)).toEqual([{ name: 'Written Here' }]);

    // Another connection to the same database (as another server process would have) writes: seen by the next
    // request (the app checks as each arrives).
    const other = openDatabase(h.config);
    try {
      await other.kysely.updateTable('organizations').set({ name: 'Written Elsewhere' }).where('id', '=', org.id).execute();
    } finally {
      await other.close();
    }
    h.db.freshen();
    expect(await names(org.id)).toEqual([{ name: 'Written Elsewhere' }]);
  });
});
