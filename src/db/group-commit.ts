/** What group commit needs of the writing connection. */
export interface WritingConnection {
  inTransaction(): boolean;
  /** Runs one statement, its changes inside whatever transaction is open; answers its rows. */
  run(sql: string, parameters: readonly unknown[]): unknown[];
  begin(): void;
  commit(): void;
  rollback(): void;
}

interface Queued {
  sql: string;
  parameters: readonly unknown[];
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

/**
 * Group commit for SQLite's writing connection: the writes run on their own (autocommit) during one turn of the event
 * loop are run at the end of that turn in one transaction, so a burst of concurrent requests pays for one commit (its
 * locks, its WAL frames and the checkpoint's copy of them) instead of one each. Each caller's promise settles only
 * after the commit that holds its write, so nothing is acknowledged before it is durable as before.
 *
 * A statement that fails on its own (a constraint) leaves the transaction open and only its caller sees the error.
 * A failure that ends the transaction (or a commit that fails) undoes the batch: each of its writes then runs again
 * on its own, as it would have without grouping. While a transaction taken through Kysely holds the connection, the
 * batch waits for the next turn.
 */
export function groupCommit(connection: WritingConnection) {
  let queue: Queued[] = [];
  let scheduled = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  function runAlone(write: Queued) {
    let rows: unknown[];
    try {
      rows = connection.run(write.sql, write.parameters);
    } catch (error) {
      write.reject(error);
      return;
    }
    write.resolve(rows);
  }

  function runTogether(batch: Queued[]) {
    try {
      connection.begin();
    } catch {
      batch.forEach(runAlone);
      return;
    }
    const outcomes: Array<{ rows: unknown[] } | { error: unknown }> = [];
    for (const write of batch) {
      try {
        outcomes.push({ rows: connection.run(write.sql, write.parameters) });
      } catch (error) {
        if (!connection.inTransaction()) {
          batch.forEach(runAlone);
          return;
        }
        outcomes.push({ error });
      }
    }
    try {
      connection.commit();
    } catch {
      if (connection.inTransaction()) connection.rollback();
      batch.forEach(runAlone);
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) write.reject(outcome.error);
      else write.resolve(outcome.rows);
    });
  }

  function flush() {
    scheduled = false;
    if (queue.length === 0) return;
    if (connection.inTransaction()) {
      schedule();
      return;
    }
    const batch = queue;
    queue = [];
    if (batch.length === 1) runAlone(batch[0]!);
    else runTogether(batch);
  }

  return {
    /** Queues one write; settles once it is committed (or has failed). */
    write(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
      return new Promise((resolve, reject) => {
        queue.push({ sql, parameters, resolve, reject });
        schedule();
      });
    },
    /** Runs what is queued now (before the connection closes). */
    flush,
  };
}
