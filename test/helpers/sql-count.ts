import SQLite from 'better-sqlite3';
import { CompiledQuery, sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../src/db/database.js';

/**
 * Counts the SQL statements the process runs, on either engine, below every layer of the service (Kysely, Db.read's
 * query-only connection, the group commit): better-sqlite3's statements and pg's client queries. Transaction control
 * (begin, commit, savepoints) and the read cache's `pragma data_version` are left out: they are not the work a
 * request asks for. A read answered from the read cache runs no statement and is not counted.
 */
const CONTROL = /^\s*(begin|commit|rollback|savepoint|release|pragma data_version)\b/i;
let recording: { statements: string[]; parameters: unknown[][] } | null = null;
let installed = false;

function note(sql: unknown, parameters: unknown) {
  if (!recording || typeof sql !== 'string' || CONTROL.test(sql)) return;
  recording.statements.push(sql);
  recording.parameters.push(Array.isArray(parameters) ? parameters : []);
}

function install() {
  if (installed) return;
  installed = true;
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
  // The probe stays open: a statement outliving its closed database crashes when collected.
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = proto[method]!;
    proto[method] = function (this: { source: string }, ...args: unknown[]) {
      note(this.source, args.length === 1 && Array.isArray(args[0]) ? args[0] : args); // bound as one array or spread
      return original.apply(this, args);
    };
  }
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; values?: unknown[] } | undefined;
    if (typeof first === 'string') note(first, args[1]);
    else note(first?.text, first?.values);
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

/**
 * Runs `work` and returns its result with the statements run meanwhile and the parameters of each (nothing else
 * should run at the same time).
 */
export async function countStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[]; parameters: unknown[][] }> {
  install();
  const recorded = { statements: [] as string[], parameters: [] as unknown[][] };
  recording = recorded;
  try {
    const result = await work();
    return { result, ...recorded };
  } finally {
    recording = null;
  }
}

/**
 * The plan the engine makes for a statement with these parameters, one line per step: SQLite's EXPLAIN QUERY PLAN, or
 * PostgreSQL's EXPLAIN with sequential and bitmap scans and sorts disabled (on a test's few rows it would rather scan
 * and sort than walk an index in order), so a step that still scans a table or sorts shows a filter or an order no
 * index serves.
 */
export async function planOf(db: Db, statement: string, parameters: readonly unknown[]): Promise<string> {
  if (db.dialect === 'sqlite') {
    const { rows } = await db.kysely.executeQuery(CompiledQuery.raw(`explain query plan ${statement}`, [...parameters]));
    return (rows as Array<{ detail: string }>).map((r) => r.detail).join('\n');
  }
  return db.kysely.transaction().execute(async (tx) => {
    for (const off of ['enable_seqscan', 'enable_bitmapscan', 'enable_sort']) await sql`select set_config(${off}, 'off', true)`.execute(tx);
    const { rows } = await tx.executeQuery(CompiledQuery.raw(`explain ${statement}`, [...parameters]));
    return (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
  });
}
