/**
 * Parsing runs in worker threads, never on the request thread: each file gets a time limit and each worker a heap
 * limit, so a hostile file (an endless content stream, a ZIP bomb that lies about its size) costs one worker, which is
 * replaced, and an answer of 422, while the API keeps answering. The workers are shared by every organisation, so
 * no one organisation may hold more than its share of the queue, and a free worker takes the next file of the
 * organisation it served least recently: files that each hold a worker to the time limit delay others' by at most
 * one file per worker, not by the whole queue.
 */
import { Worker } from 'node:worker_threads';
import { ApiError } from '../../../platform/errors.js';
import type { ParseResult, YearMonth } from '../types.js';
import { UnprocessableResume } from './lines.js';
import type { ParseReply } from './worker.js';

export interface ParsePoolOptions {
  workers: number;
  timeoutMs: number;
  memoryMb: number;
  /** Files waiting for a worker before parse refuses with 429 capacity_unavailable. */
  maxQueued: number;
  /** Files of one owner (an organisation) waiting for a worker before its next is refused the same way. */
  maxQueuedPerOwner: number;
}

interface Job {
  id: number;
  owner: string;
  bytes: Buffer;
  asOf: YearMonth;
  resolve: (result: ParseResult) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
  watch: NodeJS.Timeout | null;
}

const MEMORY_CHECK_MS = 100;

const fromSource = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(fromSource ? './worker-source.mjs' : './worker.js', import.meta.url);

export function createParsePool(options: ParsePoolOptions) {
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;
  // Per owner with a file queued or being read: how many are being read, and when its last one started.
  const owners = new Map<string, { running: number; lastStart: number }>();
  let starts = 0;

  function spawn(): Slot {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.ceil(options.memoryMb / 4)), stackSizeMb: 4 },
      stdout: true, stderr: true, // pdf.js warnings stay out of the service's log
    });
    worker.unref();
    const slot: Slot = { worker, job: null, timer: null, watch: null };
    worker.on('message', (reply: ParseReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      if (reply.ok) job.resolve(reply.result);
      else if (reply.unprocessable !== null) job.reject(new UnprocessableResume(reply.unprocessable));
      else job.reject(new UnprocessableResume('the file could not be read as a resume'));
      pump();
    });
    worker.on('error', (error: Error & { code?: string }) => fail(slot, error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? 'reading the file needs more memory than any resume does'
      : 'the file could not be read as a resume'));
    worker.on('exit', () => fail(slot, 'the file could not be read as a resume'));
    slots.push(slot);
    return slot;
  }

  function finish(slot: Slot): void {
    const job = slot.job;
    const owner = job ? owners.get(job.owner) : undefined;
    if (job && owner && --owner.running === 0 && !queue.some((j) => j.owner === job.owner)) owners.delete(job.owner);
    if (slot.timer) clearTimeout(slot.timer);
    if (slot.watch) clearInterval(slot.watch);
    slot.timer = null;
    slot.watch = null;
    slot.job = null;
  }

  /**
   * The heap limit does not cover what pdf.js and the ZIP reader inflate into (ArrayBuffers live outside the heap),
   * so the worker's whole footprint is sampled while it works and the worker is stopped past the same limit.
   */
  function watchMemory(slot: Slot): void {
    const limit = options.memoryMb * 1024 * 1024;
    slot.watch = setInterval(() => {
      slot.worker.getHeapStatistics().then((stats) => {
        if (slot.job && stats.used_heap_size + stats.external_memory > limit) fail(slot, 'reading the file needs more memory than any resume does');
      }, () => undefined);
    }, MEMORY_CHECK_MS);
    slot.watch.unref();
  }

  /** The worker died or was stopped: its file fails, and the slot goes (a new one is spawned on demand). */
  function fail(slot: Slot, reason: string): void {
    const job = slot.job;
    finish(slot);
    const index = slots.indexOf(slot);
    if (index >= 0) slots.splice(index, 1);
    void slot.worker.terminate();
    job?.reject(new UnprocessableResume(reason));
    pump();
  }

  /** The queued file to read next: its owner has the fewest being read, then was served least recently; then first come. */
  function takeNext(): Job {
    const rank = (job: Job) => owners.get(job.owner) ?? { running: 0, lastStart: -1 };
    let best = 0;
    for (let i = 1; i < queue.length; i++) {
      const a = rank(queue[i]);
      const b = rank(queue[best]);
      if (a.running < b.running || (a.running === b.running && a.lastStart < b.lastStart)) best = i;
    }
    const [job] = queue.splice(best, 1);
    const owner = rank(job);
    owner.running++;
    owner.lastStart = ++starts;
    owners.set(job.owner, owner);
    return job;
  }

  function pump(): void {
    while (!closed && queue.length) {
      const slot = slots.find((s) => !s.job) ?? (slots.length < options.workers ? spawn() : null);
      if (!slot) return;
      const job = takeNext();
      slot.job = job;
      slot.timer = setTimeout(() => fail(slot, `reading the file took longer than ${Math.round(options.timeoutMs / 1000)} s`), options.timeoutMs);
      watchMemory(slot);
      const copy = new Uint8Array(job.bytes); // transferred to the worker
      slot.worker.postMessage({ id: job.id, bytes: copy, asOf: job.asOf }, [copy.buffer]);
    }
  }

  return {
    /** Reads `bytes` in a worker; `owner` (the organisation) is whose share of the queue the file takes. */
    parse(bytes: Buffer, asOf: YearMonth, owner: string): Promise<ParseResult> {
      if (closed) return Promise.reject(new ApiError('service_unavailable'));
      if (queue.length >= options.maxQueued) return Promise.reject(new ApiError('capacity_unavailable', { message: 'Too many files are being read; retry shortly.', headers: { 'Retry-After': '5' } }));
      if (queue.filter((j) => j.owner === owner).length >= options.maxQueuedPerOwner) {
        return Promise.reject(new ApiError('capacity_unavailable', { message: `Too many of this organisation's files are waiting to be read (at most ${options.maxQueuedPerOwner}); retry shortly.`, headers: { 'Retry-After': '5' } }));
      }
      return new Promise<ParseResult>((resolve, reject) => {
        queue.push({ id: nextId++, owner, bytes, asOf, resolve, reject });
        pump();
      });
    },
    async close(): Promise<void> {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new ApiError('service_unavailable'));
      await Promise.all(slots.splice(0).map((s) => {
        s.job?.reject(new ApiError('service_unavailable'));
        finish(s);
        return s.worker.terminate();
      }));
    },
  };
}

export type ParsePool = ReturnType<typeof createParsePool>;
