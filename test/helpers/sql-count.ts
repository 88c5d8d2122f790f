import SQLite from 'better-sqlite3';
import pg from 'pg';

/**
 * Counts the SQL statements the process runs, on either engine, below every layer of the service (Kysely, Db.read's
 * query-only connection, the group commit): better-sqlite3's statements and pg's client queries. Transaction control
 * (begin, commit, savepoints) and the read cache's `pragma data_version` are left out: they are not the work a
 * request asks for. A read answered from the read cache runs no statement and is not counted.
 */
const CONTROL = /^\s*(begin|commit|rollback|savepoint|release|pragma data_version)\b/i;
let recording: string[] | null = null;
let installed = false;

function note(sql: unknown) {
  if (recording && typeof sql === 'string' && !CONTROL.test(sql)) recording.push(sql);
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
      note(this.source);
      return original.apply(this, args);
    };
  }
  const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    note(typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text);
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
}

/** Runs `work` and returns its result with the statements run meanwhile (nothing else should run at the same time). */
export async function countStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  install();
  const statements: string[] = [];
  recording = statements;
  try {
    const result = await work();
    return { result, statements };
  } finally {
    recording = null;
  }
}
