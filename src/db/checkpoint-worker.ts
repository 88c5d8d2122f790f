// The background checkpointer's thread (see checkpointer.ts). It imports no module of ours, so Node runs this file
// from src/ as it is (types stripped) as well as from dist/.
import SQLite from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointWorkerData {
  file: string;
  /** Between checkpoints while there is work: the WAL grows by what is written in this time. */
  busyMs: number;
  /** Between checkpoints while the database is quiet. */
  idleMs: number;
  /** A WAL that has grown past this many frames (readers held it) is restarted, waiting up to restartWaitMs for them. */
  restartFrames: number;
  restartWaitMs: number;
}

const options = workerData as CheckpointWorkerData;
const db = new SQLite(options.file);
// A PASSIVE checkpoint never waits; RESTART waits for readers this long, then gives up until the next pass.
db.pragma(`busy_timeout = ${options.restartWaitMs}`);
const passive = db.prepare('pragma wal_checkpoint(PASSIVE)');
const restart = db.prepare('pragma wal_checkpoint(RESTART)');

interface Result { busy: number; log: number; checkpointed: number }
let lastLog = -1;

function pass(): void {
  let next = options.busyMs;
  try {
    let result = passive.get() as Result;
    if (result.log >= options.restartFrames && result.checkpointed < result.log) result = restart.get() as Result;
    // The WAL's length changes only when something was written (a write after a complete checkpoint starts it over).
    if (result.log === lastLog) next = options.idleMs;
    lastLog = result.log;
  } catch {
    // SQLITE_BUSY: another connection is checkpointing, or a reader held the RESTART off. Try again soon.
  }
  setTimeout(pass, next);
}

parentPort!.on('message', (message: 'close') => {
  if (message === 'close') {
    db.close();
    process.exit(0);
  }
});
pass();
