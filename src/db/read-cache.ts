import type SQLite from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';

/**
 * Results of the hot reads (key lookups, list pages) on SQLite, kept until a commit changes a table they read.
 *
 * - This process's own writes all go through one connection, whose statements are observed here (`observe`):
 *   when a transaction commits, the entries that read a table it wrote are dropped, before the commit runs.
 * - Another process sharing the file is seen through `PRAGMA data_version` on that same writing connection, which
 *   changes when any *other* connection commits (never for its own commits): then everything is dropped. The check
 *   (a read transaction, about 2 µs) runs at the start of every HTTP request (`freshen`) and before a read in an
 *   event-loop turn that has not checked yet; a read then uses the turn's check. Every read of a request therefore
 *   follows a check made after the request arrived.
 *
 * So a cached result is always what the query would read now: a revoked key, a new candidate or a cancelled
 * session is seen on the very next request, by every process, while a write to one table (saving answers) leaves
 * the reads of the others (the session token, the module switch) cached. Rows are frozen: callers share them.
 *
 * Which tables a statement touches is read off its SQL against the schema's names, erring wide: any word that
 * names a table counts, a view or virtual table counts as the tables it names, and a write to a table also
 * writes the tables its triggers name and its foreign-key children (cascades). A statement that is not a plain
 * read or write (DDL, a pragma) drops everything and reloads the schema.
 */
export class ReadCache {
  private readonly version: SQLite.Statement;
  // Results per statement, then per parameters: the statement's text is the same string object every time (its hash is
  // kept), so a lookup hashes only the short parameters key. Invalidation drops a statement's results whole.
  private readonly entries = new Map<string, Map<string, readonly unknown[]>>();
  private size = 0;
  private readonly statementsByTable = new Map<string, Set<string>>();
  private seen: unknown = null;
  private checkedThisTurn = false;
  private schema: Schema | null = null;
  // What each statement reads or writes, by its text (the same string object each time a statement repeats).
  private readonly tablesOfSql = { read: new Map<string, readonly string[]>(), write: new Map<string, readonly string[]>() };
  // Tables written by the open transaction; `everything` after DDL in it.
  private pending: Set<string> | 'everything' | null = null;

  constructor(private readonly writer: SQLite.Database, private readonly max = 2000) {
    this.version = writer.prepare('pragma data_version').pluck(true);
  }

  /** The parameters part of a result's key. */
  key(query: CompiledQuery<unknown>): string {
    return JSON.stringify(query.parameters);
  }

  /** Drops everything if another process has committed since the last check. */
  freshen(): void {
    const version = this.version.get();
    if (version !== this.seen) {
      this.clear();
      this.seen = version;
    }
    if (!this.checkedThisTurn) {
      this.checkedThisTurn = true;
      setImmediate(() => (this.checkedThisTurn = false));
    }
  }

  get(sql: string, key: string): readonly unknown[] | undefined {
    if (!this.checkedThisTurn) this.freshen();
    return this.entries.get(sql)?.get(key);
  }

  put<R>(sql: string, key: string, rows: R[]): R[] {
    if (this.size >= this.max) this.clear();
    let results = this.entries.get(sql);
    if (!results) {
      this.entries.set(sql, (results = new Map()));
      for (const table of this.tables(sql, 'read')) {
        let statements = this.statementsByTable.get(table);
        if (!statements) this.statementsByTable.set(table, (statements = new Set()));
        statements.add(sql);
      }
    }
    if (!results.has(key)) this.size++;
    results.set(key, Object.freeze(rows));
    return rows;
  }

  /** Called with every statement the writing connection is about to run, in the same tick as it runs. */
  observe(sql: string): void {
    const verb = /^\s*([a-z]+)(\s+to\b)?/i.exec(sql);
    const word = verb ? verb[1].toLowerCase() : '';
    if (word === 'select') return;
    if (word === 'begin') { this.pending = new Set(); return; }
    if (word === 'savepoint' || word === 'release' || (word === 'rollback' && verb![2])) return;
    if (word === 'rollback') { this.pending = null; return; }
    if (word === 'commit' || word === 'end') {
      const written = this.pending;
      this.pending = null;
      if (written) this.written(written);
      return;
    }
    const written = (word === 'insert' || word === 'update' || word === 'delete' || word === 'replace' || word === 'with')
      ? this.tables(sql, 'write')
      : 'everything';
    // Outside a transaction this statement commits on its own: a transaction that ended unseen (a BEGIN that failed,
    // a statement that rolled it back) has nothing left to wait for.
    if (!this.writer.inTransaction) this.pending = null;
    if (this.pending === null) this.written(written);
    else if (written === 'everything' || this.pending === 'everything') this.pending = 'everything';
    else for (const table of written) this.pending.add(table);
  }

  private written(tables: Iterable<string> | 'everything'): void {
    if (tables === 'everything') {
      this.clear();
      this.schema = null;
      this.tablesOfSql.read.clear();
      this.tablesOfSql.write.clear();
      return;
    }
    for (const table of tables) {
      const statements = this.statementsByTable.get(table);
      if (!statements) continue;
      for (const sql of statements) {
        this.size -= this.entries.get(sql)?.size ?? 0;
        this.entries.delete(sql);
      }
      this.statementsByTable.delete(table);
    }
  }

  private clear(): void {
    this.entries.clear();
    this.statementsByTable.clear();
    this.size = 0;
  }

  private tables(sql: string, use: 'read' | 'write'): readonly string[] {
    const memo = this.tablesOfSql[use];
    let tables = memo.get(sql);
    if (!tables) {
      const schema = (this.schema ??= loadSchema(this.writer));
      const out = new Set<string>();
      for (const name of namesIn(sql, schema.names)) for (const t of schema.closure(name, use)) out.add(t);
      tables = [...out];
      if (memo.size >= this.max) memo.clear();
      memo.set(sql, tables);
    }
    return tables;
  }
}

interface Schema {
  names: ReadonlySet<string>;
  closure(name: string, use: 'read' | 'write'): Iterable<string>;
}

function namesIn(sql: string, names: ReadonlySet<string>): Set<string> {
  const found = new Set<string>();
  for (const word of sql.toLowerCase().match(/[a-z_][a-z0-9_]*/g) ?? []) if (names.has(word)) found.add(word);
  return found;
}

function loadSchema(connection: SQLite.Database): Schema {
  const objects = connection.prepare("select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_%'").all() as
    Array<{ type: string; name: string; tbl_name: string; sql: string | null }>;
  const names = new Set(objects.filter((o) => o.type === 'table' || o.type === 'view').map((o) => o.name.toLowerCase()));
  // What a name stands for when read (a view or virtual table: the tables it names) and what else a write to it
  // writes (its triggers' tables and its foreign-key children).
  const readsAlso = new Map<string, Set<string>>();
  const writesAlso = new Map<string, Set<string>>();
  const add = (map: Map<string, Set<string>>, from: string, to: Iterable<string>) => {
    let set = map.get(from);
    if (!set) map.set(from, (set = new Set()));
    for (const t of to) if (t !== from) set.add(t);
  };
  for (const o of objects) {
    const name = o.name.toLowerCase();
    if (o.type === 'view' || (o.type === 'table' && /^\s*create\s+virtual/i.test(o.sql ?? ''))) {
      add(readsAlso, name, namesIn(o.sql ?? '', names));
      add(writesAlso, name, namesIn(o.sql ?? '', names));
    }
    if (o.type === 'trigger') add(writesAlso, o.tbl_name.toLowerCase(), namesIn(o.sql ?? '', names));
    if (o.type === 'table') {
      for (const fk of connection.prepare('select "table" as parent from pragma_foreign_key_list(?)').all(o.name) as Array<{ parent: string }>) {
        add(writesAlso, fk.parent.toLowerCase(), [name]);
      }
    }
  }
  return {
    names,
    closure(name, use) {
      const map = use === 'read' ? readsAlso : writesAlso;
      const out = new Set([name]);
      const queue = [name];
      while (queue.length > 0) for (const next of map.get(queue.pop()!) ?? []) if (!out.has(next)) { out.add(next); queue.push(next); }
      return out;
    },
  };
}
