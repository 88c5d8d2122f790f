import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteAdapter, SqliteDialect, type CompiledQuery, type DialectAdapter } from 'kysely';
import pg from 'pg';
import { BoundedMap } from '../platform/bounded-map.js';
import { makeDirectory } from '../platform/directories.js';
import { startCheckpointer } from './checkpointer.js';
import { groupCommit } from './group-commit.js';
import { mergeMarks } from './functions.js';
import { ReadCache } from './read-cache.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL: the schema the tables live in. */
  schema: string | null;
  /**
   * Runs a compiled read outside any transaction. On SQLite it uses a separate read-only connection, so hot
   * reads never queue behind (or see into) an open write transaction on the main one, and results are kept until
   * a commit changes what they read (ReadCache); on PostgreSQL the pool. Rows are frozen: callers share them.
   * `cached: false` for a read whose parameters change every time (a poll stamped with the time): it would only fill
   * the cache, whose every 2,000th entry empties it.
   */
  read<R>(query: CompiledQuery<R>, options?: { cached?: boolean }): Promise<R[]>;
  /**
   * Runs one statement on its own (autocommit, a write or a read that must see the latest commit) and returns its
   * rows once it is committed. On SQLite, on the writing connection: a read at once; a write with the others of this
   * turn of the event loop, in one transaction at its end (group-commit.ts). When a transaction holds the connection,
   * the statement runs after it, through Kysely: handing the connection over through Kysely costs about as much as a
   * small write.
   */
  execute<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * Runs statements in order as one transaction of their own and returns each one's rows; a step's `proceed`, when
   * given, decides whether it goes on: if not, everything of it is undone and the answer is null. On SQLite it is
   * committed with the other writes of its turn of the event loop, as `execute` is.
   */
  executeAll(steps: ReadonlyArray<{ query: CompiledQuery; proceed?: (rows: unknown[]) => boolean }>): Promise<unknown[][] | null>;
  /** SQLite: checks now for other processes' commits (the app calls it as each request arrives); PostgreSQL: nothing. */
  freshen(): void;
  /**
   * Runs `work` while no other process (or Db) runs its own `exclusive` work on this database, waiting for one that
   * does: preparing the database (migrations, catalogue loads) is done once, however many processes start at once. On
   * SQLite a lock on a file beside the database (`<file>.prepare-lock`), on PostgreSQL an advisory lock per schema.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// bigint (int8) columns hold epoch milliseconds and counts: read them as numbers, not strings.
pg.types.setTypeParser(20, (value) => Number(value));

export interface DatabaseOptions {
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL only: the schema to use (tests give each suite its own). */
  databaseSchema?: string | null;
  /** SQLite only: file name inside dataDir. */
  sqliteFile?: string;
  poolSize?: number;
  /**
   * PostgreSQL only: the longest opening one connection may take (TCP, TLS, start-up, authentication) before it fails
   * with `DatabaseConnectTimeout`; waiting for a free connection of the pool is not bounded by it. Default 10 s.
   */
  databaseConnectTimeoutMs?: number;
  /** SQLite only: WAL checkpoints on a thread of their own (checkpointer.ts), for a long-running server. */
  backgroundCheckpoints?: boolean;
}

export function openDatabase(options: DatabaseOptions): Db {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      // Not the pool's connectionTimeoutMillis: that bounds waiting for a pooled connection too (a busy pool would
      // fail requests); the client's bounds opening a connection only (a host that drops packets hung for minutes).
      Client: boundedClient(options.databaseConnectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
      ...(options.databaseSchema ? { options: `-c search_path=${options.databaseSchema}` } : {}),
    });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely, dialect: 'postgres', schema: options.databaseSchema ?? 'public',
      // Frozen as on SQLite, where results are shared between callers.
      read: async <R>(query: CompiledQuery<R>) => (await kysely.executeQuery(query)).rows.map((row) => Object.freeze(row)),
      execute: async <R>(query: CompiledQuery<R>) => (await kysely.executeQuery(query)).rows,
      executeAll: (steps) => executeAllThrough(kysely, steps),
      freshen: () => {},
      // A session lock held on one pooled connection while `work` uses the others (Kysely's migration lock is another key).
      exclusive: <T>(work: () => Promise<T>) => kysely.connection().execute(async (connection) => {
        const schema = options.databaseSchema ?? 'public';
        await sql`select pg_advisory_lock(${PREPARE_LOCK_KEY}, hashtext(${schema}))`.execute(connection);
        try {
          return await work();
        } finally {
          await sql`select pg_advisory_unlock(${PREPARE_LOCK_KEY}, hashtext(${schema}))`.execute(connection);
        }
      }),
      close: () => kysely.destroy(),
    };
  }
  // Owner-only: the database holds candidates' data and key hashes. SQLite gives its WAL and shared-memory files the
  // database file's mode, so the file is made here (empty: a valid database) rather than by SQLite under the umask.
  makeDirectory(options.dataDir, 'PREP_DATA_DIR');
  const file = path.join(options.dataDir, options.sqliteFile ?? 'prep.sqlite');
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Several processes may share the file (serve + worker): wait for a writer rather than fail.
  sqlite.pragma('busy_timeout = 5000');
  sqlite.function('merge_marks', { deterministic: true }, mergeMarks); // PostgreSQL: migration 0015
  // No memory map on the writing connection: with one, each write to a 60 MB database cost 13 µs more (30 against
  // 17 µs for a page of answers, run in a loop on bench/psychometric-progress.mjs's database). The reading connection
  // keeps its map.
  const checkpointer = options.backgroundCheckpoints ? startCheckpointer(sqlite, file) : null;
  const results = new ReadCache(sqlite);
  const writeStatements = withStatementCache(sqlite, {
    immediateTransactions: true,
    observe(sql) {
      results.observe(sql);
      if (sql === 'commit' || sql === 'rollback') writes.transactionEnded(); // Kysely's, or a batch's own: runs after it
    },
  });
  const kysely = new Kysely<Database>({ dialect: new TransactionalDdlSqliteDialect({ database: writeStatements }) });
  const writes = groupCommit({
    inTransaction: () => sqlite.inTransaction,
    run: (sql, parameters) => runStatement(writeStatements.prepare(sql), parameters),
    control: (statement) => void writeStatements.prepare(statement).run(),
  });
  const reader = new SQLite(file); // not opened readonly: a readonly connection may rebuild the WAL index on every read
  reader.pragma('busy_timeout = 5000');
  reader.pragma('query_only = ON');
  reader.pragma('mmap_size = 268435456'); // pages read through a memory map instead of read(2) calls
  const readStatements = withStatementCache(reader);
  const columnsOf = new WeakMap<SQLite.Statement, string[]>();
  return {
    kysely, dialect: 'sqlite', schema: null,
    freshen: () => results.freshen(),
    exclusive: (work) => withFileLock(`${file}.prepare-lock`, work),
    async execute<R>(query: CompiledQuery<R>): Promise<R[]> {
      // Kysely holds the connection across a transaction's awaits; a statement run now would join that transaction.
      // Outside one, a read runs now (better-sqlite3 is synchronous: nothing comes between) and a write is queued for
      // this turn's group commit, which never joins a transaction either.
      if (sqlite.inTransaction) return (await kysely.executeQuery(query)).rows;
      const statement = writeStatements.statement(query.sql);
      if (statement.readonly) return runStatement(statement, query.parameters) as R[];
      return writes.write(query.sql, query.parameters) as Promise<R[]>;
    },
    async executeAll(steps) {
      if (steps.length === 0) return [];
      if (sqlite.inTransaction) return executeAllThrough(kysely, steps); // after the transaction that holds the connection
      return writes.unit(steps.map(({ query, proceed }) => ({ sql: query.sql, parameters: query.parameters, proceed })));
    },
    async read<R>(query: CompiledQuery<R>, options?: { cached?: boolean }): Promise<R[]> {
      const cached = options?.cached !== false;
      const key = cached ? results.key(query) : '';
      const hit = cached ? results.get(query.sql, key) : undefined;
      if (hit) return hit as R[];
      const statement = readStatements.prepare(query.sql);
      let columns = columnsOf.get(statement);
      if (!columns) {
        statement.raw(true);
        columns = statement.columns().map((c) => c.name);
        columnsOf.set(statement, columns);
      }
      // Rows as arrays, made into objects here: cheaper than better-sqlite3 building each object.
      const rows = statement.all(...(query.parameters as unknown[])) as unknown[][];
      const objects = rows.map((row) => {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < columns.length; i++) out[columns[i]] = row[i];
        return Object.freeze(out) as R;
      });
      return cached ? results.put(query.sql, key, objects) : objects;
    },
    close: async () => {
      await writes.close();
      await checkpointer?.stop();
      reader.close();
      await kysely.destroy();
    },
  };
}

/**
 * SQLite's dialect with an adapter that says what SQLite does: schema changes (CREATE, DROP, ALTER) are undone with the
 * transaction they ran in. Kysely's own adapter says not (kysely-org/kysely#56), and its Migrator then ran each
 * migration's statements one by one, outside any transaction; told so, it runs in the transaction migrate.ts gives it.
 * Nothing else of Kysely reads this flag.
 */
class TransactionalDdlSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** How long opening one PostgreSQL connection may take by default (PREP_DATABASE_CONNECT_TIMEOUT_MS). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** Opening a PostgreSQL connection took longer than its time-out: the host does not answer (or drops packets). */
export class DatabaseConnectTimeout extends Error {
  /** A network error's code, so that callers (the CLI) tell it from a failed query. */
  readonly code = 'ETIMEDOUT';
  constructor(ms: number, cause: unknown) {
    super(`no answer within ${ms / 1000} s (PREP_DATABASE_CONNECT_TIMEOUT_MS)`, { cause });
  }
}

/**
 * pg's Client with its connect time-out set (node-postgres's connectionTimeoutMillis, which bounds only the connect:
 * it ends the socket once the time is up), its failure said as a DatabaseConnectTimeout.
 */
function boundedClient(ms: number): typeof pg.Client {
  return class BoundedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({ ...(typeof config === 'string' ? { connectionString: config } : config), connectionTimeoutMillis: ms });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error | null, client?: pg.Client) => void): void;
    override connect(callback?: (err: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
      const started = performance.now();
      const opened = new Promise<pg.Client>((resolve, reject) => {
        super.connect((error: Error | null) => {
          if (!error) return resolve(this);
          // pg's timer ends the socket, which fails the connect with "Connection terminated": told by the time taken.
          reject(performance.now() - started >= ms - 5 ? new DatabaseConnectTimeout(ms, error) : error);
        });
      });
      if (!callback) return opened;
      opened.then((client) => callback(null, client), (error: Error) => callback(error));
    }
  };
}

/** pg_advisory_lock's first key for preparing a database (the second is the schema's hash). */
const PREPARE_LOCK_KEY = 0x70726570; // 'prep'
/** How long a process waits for another to finish preparing the database before it gives up. */
const FILE_LOCK_WAIT_MS = 10 * 60_000;

/**
 * Runs `work` holding an exclusive lock on a small SQLite file of its own (not the database: `work` writes to that),
 * taken by polling so that the event loop is never blocked (another Db of this process may hold it). The lock goes
 * with the connection, also when the process dies.
 */
async function withFileLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  const lock = new SQLite(lockFile);
  try {
    lock.pragma('busy_timeout = 0');
    for (const started = Date.now(); ;) {
      try {
        lock.exec('begin exclusive');
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() - started > FILE_LOCK_WAIT_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
    return await work();
  } finally {
    lock.close(); // ends the (empty) transaction and its lock
  }
}

/** Runs a prepared statement now: the rows of one that returns any, else none. */
function runStatement(statement: SQLite.Statement, parameters: readonly unknown[]): unknown[] {
  if (statement.reader) return statement.all(parameters);
  statement.run(parameters);
  return [];
}

/** Db.executeAll through Kysely: a transaction of the steps, rolled back when one's `proceed` says no. */
async function executeAllThrough(kysely: Kysely<Database>, steps: Parameters<Db['executeAll']>[0]): Promise<unknown[][] | null> {
  const undone = new Error('undone');
  try {
    return await kysely.transaction().execute(async (tx) => {
      const results: unknown[][] = [];
      for (const { query, proceed } of steps) {
        const { rows } = await tx.executeQuery(query);
        if (proceed && !proceed(rows)) throw undone;
        results.push(rows);
      }
      return results;
    });
  } catch (error) {
    if (error === undone) return null;
    throw error;
  }
}

/**
 * Kysely prepares every query anew; on SQLite preparing costs as much as running a small query.
 * Statements are reusable, and Kysely runs one query at a time per connection, so keep them (bounded).
 */
function withStatementCache(sqlite: SQLite.Database, options: { immediateTransactions?: boolean; observe?: (sql: string) => void } = {}, max = 500) {
  const cache = new BoundedMap<string, SQLite.Statement>(max);
  /** The statement for `query`, not yet to be run. */
  function statement(query: string): SQLite.Statement {
    // Kysely opens transactions with a deferred BEGIN; with several processes on one file, a transaction that
    // reads and then writes can then fail with SQLITE_BUSY_SNAPSHOT. BEGIN IMMEDIATE takes the write lock up
    // front, waiting (busy_timeout) for another process's transaction instead of failing.
    const sql = options.immediateTransactions && query === 'begin' ? 'begin immediate' : query;
    let prepared = cache.get(sql);
    if (!prepared) {
      prepared = sqlite.prepare(sql);
      cache.set(sql, prepared);
    }
    return prepared;
  }
  return {
    close: () => sqlite.close(),
    /** The statement for `query`, for running now: what it writes is reported to `observe` first. */
    prepare(query: string): SQLite.Statement {
      // Kysely's driver runs a statement in the same tick as it prepares it.
      options.observe?.(query);
      return statement(query);
    },
    statement,
  };
}
