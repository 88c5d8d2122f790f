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
  /**
   * The job's worker died on every attempt (a job that crashes or hangs its process): it will not run again. Settles
   * what the job was for (a delivery, an attempt marked failed) the way a thrown error on its last attempt would.
   */
  abandoned?(payload: unknown, job: BackgroundJobsTable): Promise<void>;
  /**
   * What a job that deletes (or checks) stored files was to do, named as its UnfinishedWork names what is left (a file
   * by its key, a folder by its prefix and a *): a job whose worker died on every attempt threw nothing, and its give-up
   * is logged as work left undone with this list (some of it may have been done). Read from the payload alone.
   */
  leftIfAbandoned?(payload: unknown): string[];
}

export interface WorkerLog {
  error(obj: object, msg: string): void;
}

/**
 * Thrown by a handler that must not run its job now (a share it may not exceed is in use): the job is queued again at
 * `runAt`, its attempt not counted. Not a failure.
 */
export class JobPostponed extends Error {
  constructor(readonly runAt: number) {
    super('postponed');
  }
}

/**
 * Thrown by a handler whose work was left partly undone (an erasure's files storage would not delete): `left` names what
 * remains. Each failure records it in the job's last_error; once the job fails for good, the worker logs it at error
 * level as work left undone, so a give-up (an erased person's files kept after a week of tries) is seen, not silent.
 */
export class UnfinishedWork extends Error {
  constructor(cause: unknown, readonly left: string[]) {
    super(`${errorText(cause)}${undone(left)}`, { cause });
  }
}

/** `; left undone (n): a, b`, as a job's last_error ends when it names what is left; nothing for null. */
function undone(left: string[] | null): string {
  return left ? `; left undone (${left.length}): ${left.join(', ')}` : '';
}

/** One piece of a job's work, named for the list of what is left (a file's deletion by its key). */
export type NamedStep = readonly [what: string, run: () => Promise<unknown>];

/**
 * Runs the steps in order; the first that fails throws UnfinishedWork naming it and every step after it. With
 * leftIfAbandoned naming the same steps, a job's give-up says what it kept however it ended.
 */
export async function runSteps(steps: readonly NamedStep[]): Promise<void> {
  for (let i = 0; i < steps.length; i++) {
    try {
      await steps[i]![1]();
    } catch (error) {
      throw new UnfinishedWork(error, steps.slice(i).map(([what]) => what));
    }
  }
}

/** The names of the steps (a handler's leftIfAbandoned). */
export const namesOf = (steps: readonly NamedStep[]): string[] => steps.map(([what]) => what);

/** A thrown value as the job's last_error: anything can be thrown, and an Error-like object's message need not be text. */
function errorText(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof message === 'string') return message;
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error); // no way to text (Object.create(null))
  }
}

const DEFAULT_RETRY_SECONDS = [30, 120, 600, 3600, 21_600];
/** How long a worker holds an abandoned job while its handler settles it (then another try, by any worker). */
const ABANDON_LEASE_MS = 60_000;
/**
 * Tries an abandoned job's handler gets at settling it. Past them the job fails unsettled: a handler that kills its
 * process on this job (as its runs did) would otherwise take it, and every job running beside it, down every minute.
 */
const ABANDON_TRIES = 10;
/**
 * The longest a handler may run: every job's own waits (a delivery, a model call, a sandbox run) end well before. One
 * that never settles (something it awaits hangs) stops having its lease renewed and gives up its slot.
 */
const MAX_RUN_MS = 3_600_000;

/**
 * Claims due jobs of the kinds it has handlers for and runs them, a few at a time. Any number of workers
 * (in `prep serve` processes or `prep worker` processes on other machines) share one queue.
 */
export function createWorker(deps: {
  queue: JobQueue; clock: Clock; handlers: JobHandler[]; log: WorkerLog;
  concurrency?: number; pollMs?: number; leaseMs?: number; maxRunMs?: number;
}) {
  const { queue, clock, log } = deps;
  const handlers = new Map(deps.handlers.map((h) => [h.kind, h]));
  const kinds = [...handlers.keys()];
  const concurrency = deps.concurrency ?? 16;
  const leaseMs = deps.leaseMs ?? 120_000;
  const maxRunMs = deps.maxRunMs ?? MAX_RUN_MS;
  const id = `${hostname()}:${process.pid}:${randomToken(6)}`;
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  /** Set by stop() (runOnce, used without start(), is stopped throughout): jobs claimed after it are handed back. */
  let stopping = false;
  let foundWork = false;

  /** `work`, or `late` once it has run `ms` without settling: it is then left (what it does after is ignored). */
  async function withinTimeLimit(ms: number, work: () => Promise<void>): Promise<'late' | void> {
    let limit: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (limit = setTimeout(() => resolve('late'), ms)));
    const running = work();
    try {
      const outcome = await Promise.race([running, late]);
      if (outcome === 'late') running.catch(() => undefined);
      return outcome;
    } finally {
      clearTimeout(limit);
    }
  }

  /**
   * Runs one job and records how it went. Its lease is renewed while it runs, so a long job is never claimed again
   * beside itself; a failure to record the outcome (the database busy or gone) is logged, never thrown: the job's
   * lease then runs out and it is claimed again, within its attempts. A handler still running after maxRunMs is left
   * (what it does after is not recorded) with its lease no longer renewed: the job runs again as if its worker had
   * died, and its slot is free for other work.
   */
  async function execute(job: BackgroundJobsTable): Promise<void> {
    const handler = handlers.get(job.kind)!;
    const renewal = setInterval(() => void queue.renew(job, id, clock.now() + leaseMs).catch(() => undefined), leaseMs / 3);
    renewal.unref();
    let failure: { error: unknown } | null = null;
    try {
      if (await withinTimeLimit(maxRunMs, async () => handler.run(JSON.parse(job.payload) as unknown, job)) === 'late') {
        log.error({ job_id: job.id, kind: job.kind, attempt: job.attempts }, 'job ran past its time limit: left to its lease, it runs again once that runs out');
        return;
      }
    } catch (error) {
      failure = { error };
    } finally {
      clearInterval(renewal);
    }
    try {
      if (failure?.error instanceof JobPostponed) {
        await queue.release(job, id, failure.error.runAt);
        return;
      }
      // A recurring kind's next run is queued with the outcome, in its transaction (or neither: the lease then runs out).
      const next = handler.everyMs ? { kind: job.kind, runAt: clock.now() + handler.everyMs } : undefined;
      if (!failure) {
        await queue.succeed(job, id, next);
        return;
      }
      const delays = handler.retryDelaysSeconds ?? DEFAULT_RETRY_SECONDS;
      const retryAt = job.attempts < job.max_attempts ? clock.now() + delays[Math.min(job.attempts - 1, delays.length - 1)] * 1000 : null;
      const left = failure.error instanceof UnfinishedWork ? failure.error.left : null;
      const outcome = retryAt !== null ? 'job failed, will retry' : left ? 'job failed for good, leaving work undone' : 'job failed for good';
      log.error({ err: failure.error, job_id: job.id, kind: job.kind, attempt: job.attempts, ...(left ? { left } : {}) }, outcome);
      await queue.fail(job, id, errorText(failure.error), retryAt, next);
    } catch (error) {
      log.error({ err: error, job_id: job.id, kind: job.kind, attempt: job.attempts }, 'could not record the job\'s outcome: it runs again when its lease runs out');
    }
  }

  /**
   * Jobs whose worker died on their last attempt fail for good once their handler has settled what they were for (at
   * most one look a second); recurring kinds go on. A handler that fails, or is still running when the job's lease
   * (ABANDON_LEASE_MS) runs out (claiming waits for it), is tried again then.
   */
  let exhaustedCheckedAt = -Infinity;
  /** What an abandoned job's handler names as left (leftIfAbandoned), or null: one that throws on its payload names nothing. */
  function leftOf(handler: JobHandler, job: BackgroundJobsTable): string[] | null {
    try {
      const left = handler.leftIfAbandoned?.(JSON.parse(job.payload) as unknown);
      return left?.length ? left : null;
    } catch (error) {
      log.error({ err: error, job_id: job.id, kind: job.kind }, 'could not name what an abandoned job left undone');
      return null;
    }
  }
  async function settleAbandoned(): Promise<void> {
    const now = clock.now();
    if (now - exhaustedCheckedAt < 1000) return;
    exhaustedCheckedAt = now;
    for (const job of await queue.leaseExhausted(id, kinds, ABANDON_LEASE_MS)) {
      const handler = handlers.get(job.kind)!;
      const next = handler.everyMs ? { kind: job.kind, runAt: now + handler.everyMs } : undefined;
      // Its runs and final run used max_attempts + 1; each lease to settle it counts one more.
      if (job.attempts - job.max_attempts - 1 > ABANDON_TRIES) {
        const left = leftOf(handler, job);
        log.error({ job_id: job.id, kind: job.kind, attempt: job.attempts, ...(left ? { left } : {}) },
          `job failed for good, unsettled${left ? ', leaving work undone' : ''}: its handler did not settle it in any of its tries`);
        await queue.failAbandoned(job, id, next, `its worker stopped on every attempt, and its handler did not settle it in ${ABANDON_TRIES} tries${undone(left)}`);
        continue;
      }
      try {
        if (await withinTimeLimit(Math.min(maxRunMs, ABANDON_LEASE_MS), async () => handler.abandoned?.(JSON.parse(job.payload) as unknown, job)) === 'late') throw new Error('its handler ran past its time limit');
      } catch (error) {
        log.error({ err: error, job_id: job.id, kind: job.kind }, 'could not settle an abandoned job: tried again when its lease runs out');
        continue;
      }
      const left = leftOf(handler, job);
      log.error({ job_id: job.id, kind: job.kind, attempt: job.attempts, ...(left ? { left } : {}) },
        `job failed for good${left ? ', leaving work undone' : ''}: its worker stopped (the lease ran out) on every attempt`);
      await queue.failAbandoned(job, id, next, left ? `its worker stopped (the lease ran out) on every attempt${undone(left)}` : undefined);
    }
  }

  /** The claim under way, if any: stop() waits for it. */
  let claiming: Promise<unknown> | null = null;

  /** Claims as many due jobs as there are free slots and starts them. */
  async function claimAndStart(): Promise<Array<Promise<void>>> {
    const pass = claimPass();
    claiming = pass;
    try {
      return await pass;
    } finally {
      if (claiming === pass) claiming = null;
    }
  }

  async function claimPass(): Promise<Array<Promise<void>>> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return [];
    await settleAbandoned();
    // A claim that found work a moment ago skips the probe: more is likely waiting.
    const jobs = await queue.claim(id, kinds, free, leaseMs, { probe: !foundWork });
    foundWork = jobs.length > 0;
    if (stopping) {
      // Claimed while stop() was called: handed back untouched, for another worker or the next start.
      for (const job of jobs) await queue.release(job, id);
      return [];
    }
    return jobs.map((job) => {
      const running = execute(job).catch((error) => log.error({ err: error, job_id: job.id }, 'job worker failed')).finally(() => {
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
      stopping = false;
      for (const h of handlers.values()) if (h.everyMs) await queue.ensureRecurring(h.kind, clock.now());
      void loop();
    },
    /** Stops claiming and waits for the jobs in hand (a claim under way hands its jobs back). */
    async stop(): Promise<void> {
      stopped = true;
      stopping = true;
      if (timer) clearTimeout(timer);
      await claiming?.catch(() => undefined);
      await Promise.all(inFlight);
    },
  };
}

export type Worker = ReturnType<typeof createWorker>;
