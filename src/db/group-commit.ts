/** What group commit needs of the writing connection. */
export interface WritingConnection {
  inTransaction(): boolean;
  /** Runs one statement, its changes inside whatever transaction is open; answers its rows. */
  run(sql: string, parameters: readonly unknown[]): unknown[];
  /** Runs a statement that controls the transaction: begin, commit, rollback, savepoint, release, rollback to. */
  control(sql: 'begin' | 'commit' | 'rollback' | 'savepoint grouped' | 'release grouped' | 'rollback to grouped'): void;
}

/** A statement of a unit, and whether the unit goes on after it (false: the unit is undone and answers null). */
export interface Step {
  sql: string;
  parameters: readonly unknown[];
  proceed?: (rows: unknown[]) => boolean;
}

interface Queued {
  steps: readonly Step[];
  resolve(rows: unknown[][] | null): void;
  reject(error: unknown): void;
}

/** How often a batch looks again while a transaction holds the connection (a commit seen wakes it at once). */
const TRANSACTION_POLL_MS = 5;

/** Thrown inside a unit to undo it: its `proceed` said no. */
const UNDONE = Symbol('undone');

/**
 * Group commit for SQLite's writing connection: the writes run on their own (autocommit) during one turn of the event
 * loop are run at the end of that turn in one transaction, so a burst of concurrent requests pays for one commit (its
 * locks, its WAL frames and the checkpoint's copy of them) instead of one each. Each caller's promise settles only
 * after the commit that holds its write, so nothing is acknowledged before it is durable as before.
 *
 * A unit is several statements that stand or fall together (a small transaction of its own): in a batch it runs
 * under a savepoint, alone in a transaction. A statement or unit that fails on its own (a constraint) is undone alone
 * and only its caller sees the error. A failure that ends the transaction (or a commit that fails) undoes the batch:
 * each of its writes then runs again on its own, as it would have without grouping. While a transaction taken through
 * Kysely holds the connection, the batch waits for it to end.
 */
export function groupCommit(connection: WritingConnection) {
  let queue: Queued[] = [];
  let scheduled = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  /** The steps' rows; UNDONE thrown when a step's `proceed` says no. */
  function runSteps(steps: readonly Step[]): unknown[][] {
    const results: unknown[][] = [];
    for (const step of steps) {
      const rows = connection.run(step.sql, step.parameters);
      if (step.proceed && !step.proceed(rows)) throw UNDONE;
      results.push(rows);
    }
    return results;
  }

  /** One statement is atomic by itself; more, or a condition, need a transaction (alone) or a savepoint (in a batch). */
  const needsBracket = (write: Queued) => write.steps.length !== 1 || write.steps[0]!.proceed !== undefined;

  function runAlone(write: Queued) {
    const bracket = needsBracket(write);
    let rows: unknown[][] | null;
    try {
      if (bracket) connection.control('begin');
      rows = runSteps(write.steps);
      if (bracket) connection.control('commit');
    } catch (error) {
      if (bracket) rollBack();
      if (error === UNDONE) write.resolve(null);
      else write.reject(error);
      return;
    }
    write.resolve(rows);
  }

  /** Undoes the unit under the savepoint; false when that failed (the batch is then undone). */
  function undoUnit(): boolean {
    try {
      connection.control('rollback to grouped');
      connection.control('release grouped');
      return true;
    } catch {
      return false;
    }
  }

  /** Rolls the open transaction back; false when it is somehow still open (nothing may then run alone in it). */
  function rollBack(): boolean {
    try {
      if (connection.inTransaction()) connection.control('rollback');
    } catch { /* the connection ends the transaction itself when it cannot roll back */ }
    return !connection.inTransaction();
  }

  /** The batch is undone: each write runs again on its own, unless the transaction could not be ended. */
  function retryAlone(batch: Queued[], error: unknown) {
    if (rollBack()) batch.forEach(runAlone);
    else batch.forEach((write) => write.reject(error));
  }

  function runTogether(batch: Queued[]) {
    try {
      connection.control('begin');
    } catch {
      batch.forEach(runAlone);
      return;
    }
    const outcomes: Array<{ rows: unknown[][] | null } | { error: unknown }> = [];
    for (const write of batch) {
      const bracket = needsBracket(write);
      try {
        if (bracket) connection.control('savepoint grouped');
        const rows = runSteps(write.steps);
        if (bracket) connection.control('release grouped');
        outcomes.push({ rows });
      } catch (error) {
        if (!connection.inTransaction() || (bracket && !undoUnit())) {
          retryAlone(batch, error);
          return;
        }
        outcomes.push(error === UNDONE ? { rows: null } : { error });
      }
    }
    try {
      connection.control('commit');
    } catch (error) {
      retryAlone(batch, error);
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) write.reject(outcome.error);
      else write.resolve(outcome.rows);
    });
  }

  // While a transaction taken through Kysely holds the connection (it may await I/O for a while), the batch waits
  // for `transactionEnded`, with a slow poll behind it in case an end goes unseen: never a busy loop of turns.
  let poll: NodeJS.Timeout | null = null;

  function flush() {
    scheduled = false;
    if (queue.length === 0) return;
    if (connection.inTransaction()) {
      poll ??= setTimeout(() => {
        poll = null;
        schedule();
      }, TRANSACTION_POLL_MS);
      return;
    }
    const batch = queue;
    queue = [];
    if (batch.length === 1) runAlone(batch[0]!);
    else runTogether(batch);
  }

  const enqueue = (steps: readonly Step[]) => new Promise<unknown[][] | null>((resolve, reject) => {
    queue.push({ steps, resolve, reject });
    schedule();
  });

  return {
    /** Queues one write; settles with its rows once it is committed (or has failed). */
    write: async (sql: string, parameters: readonly unknown[]): Promise<unknown[]> => (await enqueue([{ sql, parameters }]))![0]!,
    /** Queues a unit; settles with each step's rows once committed, or null when a step's `proceed` undid it. */
    unit: (steps: readonly Step[]): Promise<unknown[][] | null> => enqueue(steps),
    /** Called as a transaction taken through Kysely commits or rolls back: what waits for it runs next. */
    transactionEnded: () => {
      if (queue.length > 0) schedule();
    },
    /** Before the connection closes: runs what is queued, waiting up to `ms` for an open transaction to end. */
    async close(ms = 5000): Promise<void> {
      for (const until = Date.now() + ms; queue.length > 0 && Date.now() < until;) {
        flush();
        if (queue.length > 0) await new Promise((resolve) => setTimeout(resolve, TRANSACTION_POLL_MS));
      }
      if (poll) clearTimeout(poll);
      const left = queue;
      queue = [];
      for (const write of left) write.reject(new Error('the database closed before this write could run'));
    },
  };
}
