import { hostname } from 'node:os';
import type { BackgroundJobsTable } from '../db/schema.js';
import type { Clock } from '../platform/clock.js';
import { randomToken } from '../platform/ids.js';
import type { JobQueue } from './queue.js';

export interface JobHandler {
  kind: string;
  run(payload: unknown, job: BackgroundJobsTable): Promise<void>;
  /** Seconds before each retry (the last repeats); the job's max_attempts bounds the attempts. */
  retryDelaysSeconds?: number[];
  /** Recurring work: the next run is queued this many ms after each run. */
  everyMs?: number;
}

export interface WorkerLog {
  error(obj: object, msg: string): void;
}

const DEFAULT_RETRY_SECONDS = [30, 120, 600, 3600, 21_600];

/**
 * Claims due jobs of the kinds it has handlers for and runs them, a few at a time. Any number of workers
 * (in `prep serve` processes or `prep worker` processes on other machines) share one queue.
 */
export function createWorker(deps: {
  queue: JobQueue; clock: Clock; handlers: JobHandler[]; log: WorkerLog;
  concurrency?: number; pollMs?: number; leaseMs?: number;
}) {
  const { queue, clock, log } = deps;
  const handlers = new Map(deps.handlers.map((h) => [h.kind, h]));
  const kinds = [...handlers.keys()];
  const concurrency = deps.concurrency ?? 16;
  const leaseMs = deps.leaseMs ?? 120_000;
  const id = `${hostname()}:${process.pid}:${randomToken(6)}`;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let foundWork = false;

  async function execute(job: BackgroundJobsTable): Promise<void> {
    const handler = handlers.get(job.kind)!;
    try {
      await handler.run(JSON.parse(job.payload) as unknown, job);
      await queue.succeed(job, id);
      if (handler.everyMs) await queue.ensureRecurring(job.kind, clock.now() + handler.everyMs);
    } catch (error) {
      const delays = handler.retryDelaysSeconds ?? DEFAULT_RETRY_SECONDS;
      const retryAt = job.attempts < job.max_attempts ? clock.now() + delays[Math.min(job.attempts - 1, delays.length - 1)] * 1000 : null;
      log.error({ err: error, job_id: job.id, kind: job.kind, attempt: job.attempts }, retryAt === null ? 'job failed for good' : 'job failed, will retry');
      await queue.fail(job, id, (error as Error)?.message ?? String(error), retryAt);
      if (retryAt === null && handler.everyMs) await queue.ensureRecurring(job.kind, clock.now() + handler.everyMs);
    }
  }

  /** Claims as many due jobs as there are free slots and starts them. */
  async function claimAndStart(): Promise<Array<Promise<void>>> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return [];
    // A claim that found work a moment ago skips the probe: more is likely waiting.
    const jobs = await queue.claim(id, kinds, free, leaseMs, { probe: !foundWork });
    foundWork = jobs.length > 0;
    return jobs.map((job) => {
      const running = execute(job).finally(() => {
        inFlight.delete(running);
        wake(); // a slot is free: look for more work now rather than at the next poll
      });
      inFlight.add(running);
      return running;
    });
  }

  /** One claim-and-run pass; resolves when the claimed jobs are done. Returns how many ran. */
  async function runOnce(): Promise<number> {
    const started = await claimAndStart();
    await Promise.all(started);
    return started.length;
  }

  let looping = false;

  /** Keeps every slot busy: a slow job (a receiver that hangs) holds one slot, never the others. */
  async function loop(): Promise<void> {
    if (stopped || looping) return;
    looping = true;
    timer = null;
    let claimed = 0;
    try {
      claimed = (await claimAndStart()).length;
    } catch (error) {
      log.error({ err: error }, 'job worker pass failed');
    } finally {
      looping = false;
    }
    // Idle polls are one indexed read, so polling often keeps event-to-first-attempt latency low.
    const more = claimed > 0 && inFlight.size < concurrency;
    if (!stopped && timer === null) timer = setTimeout(() => void loop(), more ? 0 : deps.pollMs ?? 50);
  }

  function wake(): void {
    if (stopped || looping) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void loop(), 0);
  }

  return {
    id,
    runOnce,
    async start(): Promise<void> {
      stopped = false;
      for (const h of handlers.values()) if (h.everyMs) await queue.ensureRecurring(h.kind, clock.now());
      void loop();
    },
    /** Stops claiming and waits for the jobs in hand. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.all(inFlight);
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
