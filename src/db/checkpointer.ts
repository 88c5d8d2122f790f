import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { CheckpointWorkerData } from './checkpoint-worker.js';

const fromSource = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(fromSource ? './checkpoint-worker.ts' : './checkpoint-worker.js', import.meta.url);

/** SQLite's default: a commit that leaves this many pages in the WAL checkpoints it. */
const AUTOCHECKPOINT_PAGES = 1000;
const CLOSE_WAIT_MS = 2000;

export const CHECKPOINT_DEFAULTS: Omit<CheckpointWorkerData, 'file'> = {
  busyMs: 50, idleMs: 500, restartFrames: 16 * AUTOCHECKPOINT_PAGES, restartWaitMs: 100,
};

export interface Checkpointer {
  /** False once the thread has stopped: the writing connection then checkpoints as SQLite does by default. */
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * WAL checkpoints on a thread of their own, for a long-running server. By default SQLite checkpoints inside whichever
 * commit takes the WAL past 1,000 pages: the pages copied back and two fsyncs, 5 to 15 ms on this project's CI machines
 * during which the event loop stands still and every request waits (bench/prompt-grading.mjs saw commits of 7 ms
 * among ones of 31 µs). Here the writing connection never checkpoints; a thread with its own connection runs a PASSIVE
 * checkpoint, which neither waits for nor blocks anyone, every `busyMs` while writes come in and every `idleMs` when
 * none do, so the WAL stays about as short as SQLite keeps it. A WAL that readers held until it passed `restartFrames`
 * is restarted. Should the thread stop for any reason, the writing connection goes back to checkpointing itself.
 */
export function startCheckpointer(writer: SQLite.Database, file: string, options: Partial<Omit<CheckpointWorkerData, 'file'>> = {}): Checkpointer {
  const worker = new Worker(WORKER_URL, { workerData: { file, ...CHECKPOINT_DEFAULTS, ...options } satisfies CheckpointWorkerData });
  worker.unref();
  let alive = true;
  const inline = () => {
    alive = false;
    if (writer.open) writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  // Until the thread runs, the writer keeps checkpointing: there is never a moment when nobody does.
  worker.once('online', () => {
    if (alive && writer.open) writer.pragma('wal_autocheckpoint = 0');
  });
  worker.once('exit', inline);
  worker.on('error', () => undefined); // followed by 'exit'
  return {
    running: () => alive,
    async stop() {
      if (!alive) return;
      const exited = once(worker, 'exit');
      worker.postMessage('close');
      const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
