import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.js';
import { groupCommit, type WritingConnection } from '../../src/db/group-commit.js';

/** A connection that logs what it is asked to do; `fail` decides, per statement, whether and how it fails. */
function fakeConnection(fail: (sql: string) => 'statement' | 'transaction' | null = () => null) {
  const log: string[] = [];
  let open = false;
  let failCommit = false;
  let failUndoUnit = false;
  const connection: WritingConnection & { log: string[]; looks: number; failNextCommit(): void; failNextUndoOfUnit(): void; holdTransaction(held: boolean): void } = {
    log,
    failNextCommit: () => (failCommit = true),
    failNextUndoOfUnit: () => (failUndoUnit = true),
    holdTransaction: (held) => (open = held),
    inTransaction: () => ((connection.looks += 1), open),
    looks: 0,
    run(statement, parameters) {
      const failure = fail(statement);
      if (failure === 'transaction' && open) {
        open = false;
        log.push(`${statement}: failed, transaction rolled back`);
        throw new Error(`${statement} ended the transaction`);
      }
      if (failure === 'statement') {
        log.push(`${statement}: failed`);
        throw new Error(`${statement} failed`);
      }
      log.push(open ? `${statement} (in transaction)` : `${statement} (alone)`);
      return [{ statement, parameters }];
    },
    control(statement) {
      if (statement === 'rollback to grouped' && failUndoUnit) {
        failUndoUnit = false;
        log.push('rollback to grouped: failed');
        throw new Error('cannot roll back to the savepoint');
      }
      if (statement === 'commit' && failCommit) {
        failCommit = false;
        log.push('commit: failed');
        throw new Error('commit failed');
      }
      if (statement === 'begin') open = true;
      if (statement === 'commit' || statement === 'rollback') open = false;
      log.push(statement);
    },
  };
  return connection;
}

const settled = (promise: Promise<unknown>) => promise.then((rows) => ({ rows }), (error: Error) => ({ error: error.message }));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('group commit', () => {
  it('runs the writes of one turn in one transaction and settles each only after the commit', async () => {
    const connection = fakeConnection();
    const writes = groupCommit(connection);
    const order: string[] = [];
    const done = ['a', 'b', 'c'].map((s) => writes.write(s, [s]).then((rows) => order.push(`${s} settled after ${connection.log.at(-1)}`) && rows));
    expect(connection.log).toEqual([]); // nothing runs before the end of the turn
    expect(await Promise.all(done)).toEqual([[{ statement: 'a', parameters: ['a'] }], [{ statement: 'b', parameters: ['b'] }], [{ statement: 'c', parameters: ['c'] }]]);
    expect(connection.log).toEqual(['begin', 'a (in transaction)', 'b (in transaction)', 'c (in transaction)', 'commit']);
    expect(order).toEqual(['a settled after commit', 'b settled after commit', 'c settled after commit']);

    // The next turn's writes are the next transaction; one write alone is not wrapped in one.
    connection.log.length = 0;
    await writes.write('d', []);
    expect(connection.log).toEqual(['d (alone)']);
  });

  it('a statement that fails on its own fails only its caller, and the others commit', async () => {
    const connection = fakeConnection((s) => (s === 'bad' ? 'statement' : null));
    const writes = groupCommit(connection);
    const results = await Promise.all(['a', 'bad', 'c'].map((s) => settled(writes.write(s, []))));
    expect(results).toEqual([{ rows: [{ statement: 'a', parameters: [] }] }, { error: 'bad failed' }, { rows: [{ statement: 'c', parameters: [] }] }]);
    expect(connection.log).toEqual(['begin', 'a (in transaction)', 'bad: failed', 'c (in transaction)', 'commit']);
  });

  it('a failure that ends the transaction undoes the batch, and each write runs again on its own', async () => {
    const connection = fakeConnection((s) => (s === 'fatal' ? 'transaction' : null));
    const writes = groupCommit(connection);
    const results = await Promise.all(['a', 'fatal', 'c'].map((s) => settled(writes.write(s, []))));
    expect(results).toEqual([{ rows: [{ statement: 'a', parameters: [] }] }, { rows: [{ statement: 'fatal', parameters: [] }] }, { rows: [{ statement: 'c', parameters: [] }] }]);
    expect(connection.log).toEqual(['begin', 'a (in transaction)', 'fatal: failed, transaction rolled back', 'a (alone)', 'fatal (alone)', 'c (alone)']);
  });

  it('a commit that fails is rolled back and each write runs again on its own', async () => {
    const connection = fakeConnection();
    const writes = groupCommit(connection);
    connection.failNextCommit();
    const results = await Promise.all(['a', 'b'].map((s) => settled(writes.write(s, []))));
    expect(results).toEqual([{ rows: [{ statement: 'a', parameters: [] }] }, { rows: [{ statement: 'b', parameters: [] }] }]);
    expect(connection.log).toEqual(['begin', 'a (in transaction)', 'b (in transaction)', 'commit: failed', 'rollback', 'a (alone)', 'b (alone)']);
  });

  it('runs a unit under a savepoint in a batch and in a transaction alone; a unit that fails or is undone leaves the others', async () => {
    const connection = fakeConnection((s) => (s === 'bad' ? 'statement' : null));
    const writes = groupCommit(connection);
    const results = await Promise.all([
      settled(writes.write('a', [])),
      settled(writes.unit([{ sql: 'u1', parameters: [] }, { sql: 'u2', parameters: [] }])),
      settled(writes.unit([{ sql: 'v1', parameters: [], proceed: () => false }, { sql: 'v2', parameters: [] }])),
      settled(writes.unit([{ sql: 'w1', parameters: [] }, { sql: 'bad', parameters: [] }])),
    ]);
    expect(results).toEqual([
      { rows: [{ statement: 'a', parameters: [] }] },
      { rows: [[{ statement: 'u1', parameters: [] }], [{ statement: 'u2', parameters: [] }]] },
      { rows: null }, // undone by its condition: v2 never ran
      { error: 'bad failed' },
    ]);
    expect(connection.log).toEqual([
      'begin', 'a (in transaction)',
      'savepoint grouped', 'u1 (in transaction)', 'u2 (in transaction)', 'release grouped',
      'savepoint grouped', 'v1 (in transaction)', 'rollback to grouped', 'release grouped',
      'savepoint grouped', 'w1 (in transaction)', 'bad: failed', 'rollback to grouped', 'release grouped',
      'commit',
    ]);

    connection.log.length = 0;
    expect(await writes.unit([{ sql: 'x1', parameters: [] }, { sql: 'x2', parameters: [], proceed: (rows) => rows.length === 1 }])).toHaveLength(2);
    expect(await writes.unit([{ sql: 'y1', parameters: [], proceed: () => false }])).toBeNull();
    expect(connection.log).toEqual(['begin', 'x1 (in transaction)', 'x2 (in transaction)', 'commit', 'begin', 'y1 (in transaction)', 'rollback']);
  });

  it('a unit that cannot be undone alone undoes the batch, and each write runs again on its own', async () => {
    const connection = fakeConnection((s) => (s === 'bad' ? 'statement' : null));
    const writes = groupCommit(connection);
    connection.failNextUndoOfUnit();
    const results = await Promise.all([settled(writes.write('a', [])), settled(writes.unit([{ sql: 'w1', parameters: [] }, { sql: 'bad', parameters: [] }]))]);
    expect(results).toEqual([{ rows: [{ statement: 'a', parameters: [] }] }, { error: 'bad failed' }]);
    expect(connection.log).toEqual([
      'begin', 'a (in transaction)', 'savepoint grouped', 'w1 (in transaction)', 'bad: failed', 'rollback to grouped: failed', 'rollback',
      'a (alone)', 'begin', 'w1 (in transaction)', 'bad: failed', 'rollback',
    ]);
  });

  it('waits while another transaction holds the connection, never joining it, without spinning; its end wakes the batch', async () => {
    const connection = fakeConnection();
    const writes = groupCommit(connection);
    connection.holdTransaction(true);
    let done = false;
    const write = writes.write('a', []).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 100)); // a transaction awaiting I/O
    expect(done).toBe(false);
    expect(connection.log).toEqual([]);
    expect(connection.looks).toBeLessThan(40); // a look every few milliseconds, not one every turn of the loop
    connection.holdTransaction(false);
    writes.transactionEnded();
    await nextTurn();
    await nextTurn();
    expect(done).toBe(true);
    await write;
    expect(connection.log).toEqual(['a (alone)']);
  });

  it('on close, runs what is queued, and refuses what a transaction that never ends keeps waiting', async () => {
    const connection = fakeConnection();
    const writes = groupCommit(connection);
    const queued = writes.write('a', []);
    await writes.close(50);
    expect(await queued).toEqual([{ statement: 'a', parameters: [] }]);
    connection.holdTransaction(true);
    const stuck = settled(writes.write('b', []));
    await writes.close(30);
    expect(await stuck).toEqual({ error: 'the database closed before this write could run' });
    expect(connection.log).toEqual(['a (alone)']);
  });
});

describe('group commit on SQLite', () => {
  let dir: string;
  let db: Db;
  let k: Kysely<any>;
  const insert = (id: number, name: string) => db.execute(sql`insert into item (id, name) values (${id}, ${name}) returning id`.compile(k));
  const names = async () => (await db.read<{ name: string }>(sql<{ name: string }>`select name from item order by id`.compile(k))).map((r) => r.name);

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'prep-group-commit-'));
    db = openDatabase({ databaseUrl: null, dataDir: dir });
    k = db.kysely as unknown as Kysely<any>;
    await sql`create table item (id integer primary key, name text not null unique)`.execute(k);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('commits concurrent writes together; a constraint failure fails only its own caller', async () => {
    const results = await Promise.all([insert(1, 'one'), insert(2, 'two'), insert(3, 'one'), insert(4, 'four')].map(settled));
    expect(results[0]).toEqual({ rows: [{ id: 1 }] });
    expect(results[1]).toEqual({ rows: [{ id: 2 }] });
    expect(results[2]).toMatchObject({ error: expect.stringMatching(/UNIQUE constraint failed/) });
    expect(results[3]).toEqual({ rows: [{ id: 4 }] });
    expect(await names()).toEqual(['one', 'two', 'four']);
  });

  it('a cached read made while a write waits for its turn is dropped when the write commits', async () => {
    await insert(1, 'before');
    const write = db.execute(sql`update item set name = 'after' where id = 1`.compile(k));
    expect(await names()).toEqual(['before']); // read (and cached) before the write's commit
    await write;
    expect(await names()).toEqual(['after']);
  });

  it('a write queued before a transaction took the connection runs after it, never in it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let done = false;
    const write = insert(11, 'on its own').then((rows) => ((done = true), rows));
    const rolledBack = k.transaction().execute(async (tx) => {
      await sql`insert into item (id, name) values (10, 'in the transaction')`.execute(tx);
      entered();
      await held;
      throw new Error('roll back');
    }).catch((error: Error) => error.message);
    await inside;
    for (let turn = 0; turn < 3; turn++) await nextTurn();
    expect(done).toBe(false);
    release();
    expect(await rolledBack).toBe('roll back');
    expect(await write).toEqual([{ id: 11 }]);
    expect(await names()).toEqual(['on its own']);
  });

  it('a unit of statements stands or falls as one, beside single writes of the same turn', async () => {
    const unit = (id: number, name: string, proceed?: (rows: unknown[]) => boolean) => db.executeAll([
      { query: sql`insert into item (id, name) values (${id}, ${name}) returning id`.compile(k), proceed },
      { query: sql`insert into item (id, name) values (${id + 100}, ${name + ' too'})`.compile(k) },
    ]);
    const results = await Promise.all([
      settled(unit(1, 'one')), settled(insert(2, 'two')), settled(unit(3, 'three', () => false)),
      settled(unit(4, 'one')), // its first insert clashes with unit 1's name: none of it stays
      settled(unit(5, 'five')),
    ]);
    expect(results[0]).toEqual({ rows: [[{ id: 1 }], []] });
    expect(results[1]).toEqual({ rows: [{ id: 2 }] });
    expect(results[2]).toEqual({ rows: null });
    expect(results[3]).toMatchObject({ error: expect.stringMatching(/UNIQUE constraint failed/) });
    expect(results[4]).toEqual({ rows: [[{ id: 5 }], []] });
    expect(await names()).toEqual(['one', 'two', 'five', 'one too', 'five too']);
    // Alone, the same.
    expect(await unit(6, 'six', () => false)).toBeNull();
    expect(await unit(7, 'seven')).toEqual([[{ id: 7 }], []]);
    expect(await names()).toEqual(['one', 'two', 'five', 'seven', 'one too', 'five too', 'seven too']);
  });

  it('a batch that a statement rolled back is run again write by write, and the read cache follows what they commit', async () => {
    await insert(1, 'before');
    expect(await names()).toEqual(['before']); // cached
    const results = await Promise.all([
      settled(db.execute(sql`update item set name = 'after' where id = 1`.compile(k))),
      settled(db.execute(sql`insert or rollback into item (id, name) values (1, 'clash')`.compile(k))), // ends the batch's transaction
    ]);
    expect(results[0]).toEqual({ rows: [] });
    expect(results[1]).toMatchObject({ error: expect.stringMatching(/UNIQUE constraint failed/) });
    expect(await names()).toEqual(['after']);
    expect(await db.executeAll([])).toEqual([]);
  });

  it('a read on the writing connection runs at once and sees every commit before it', async () => {
    await insert(1, 'one');
    const now = await db.execute<{ n: number }>(sql<{ n: number }>`select count(*) as n from item`.compile(k));
    expect(now).toEqual([{ n: 1 }]);
  });
});
