import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, JobPostponed, UnfinishedWork, type JobHandler } from '../../src/jobs/worker.js';
import { newId } from '../../src/platform/ids.js';
import { bearer, startHarness, type Harness } from '../helpers/harness.js';
import { jobsKit, silentLog } from '../helpers/jobs.js';
import { startWorkerProcess } from '../helpers/processes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const silent = silentLog;
const { freshKind, jobsOf } = jobsKit(() => h, 'test');

function worker(handlers: JobHandler[], leaseMs = 60_000) {
  return createWorker({ queue: h.services.queue, clock: h.clock, handlers, log: silent, leaseMs });
}

/** A job (of a kind of its own) of one attempt whose worker died on it and on its final run: for its handler to settle. */
async function abandonedJob(payload: unknown): Promise<string> {
  const kind = freshKind();
  await h.services.queue.enqueue(h.db.kysely, kind, payload, { maxAttempts: 1 });
  for (let i = 0; i < 2; i++) {
    await h.services.queue.claim('dying', [kind], 1, 10_000);
    h.clock.advance(10_000);
  }
  return kind;
}

describe('the job queue', () => {
  it('keeps a job only when the transaction that wrote it commits', async () => {
    const kind = freshKind();
    await h.db.kysely.transaction().execute((tx) => h.services.queue.enqueue(tx, kind, { n: 1 }));
    await expect(h.db.kysely.transaction().execute(async (tx) => {
      await h.services.queue.enqueue(tx, kind, { n: 2 });
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect((await jobsOf(kind)).map((j) => JSON.parse(j.payload))).toEqual([{ n: 1 }]);
  });

  it('runs a job when it is due, not before, and once', async () => {
    const kind = freshKind();
    const seen: unknown[] = [];
    const w = worker([{ kind, run: async (p) => void seen.push(p) }]);
    await h.services.queue.enqueue(h.db.kysely, kind, { at: 'later' }, { runAt: h.clock.now() + 60_000 });
    expect(await w.runOnce()).toBe(0);
    h.clock.advance(60_000);
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    expect(seen).toEqual([{ at: 'later' }]);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  // Was a gap: a job that gave up on work (an erasure's files storage would not delete for a week) logged a plain "job
  // failed for good", not what it left: the files kept were seen by no one.
  it('logs a job given up with work left undone at error level, with what is left, and records it on the job', async () => {
    const kind = freshKind();
    const logged: Array<{ obj: any; msg: string }> = [];
    const w = createWorker({
      queue: h.services.queue, clock: h.clock, log: { error: (obj, msg) => void logged.push({ obj, msg }) },
      handlers: [{ kind, retryDelaysSeconds: [1], run: async () => { throw new UnfinishedWork(new Error('storage unavailable'), ['files/b', 'files/c']); } }],
    });
    await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 2 });
    expect(await w.runOnce()).toBe(1);
    expect(logged.map((l) => l.msg)).toEqual(['job failed, will retry']);
    h.clock.advance(1000);
    expect(await w.runOnce()).toBe(1);
    expect(logged[1]).toMatchObject({ msg: 'job failed for good, leaving work undone', obj: { kind, attempt: 2, left: ['files/b', 'files/c'] } });
    const [job] = await jobsOf(kind);
    expect(job).toMatchObject({ status: 'failed', last_error: 'storage unavailable; left undone (2): files/b, files/c' });
  });

  it('retries a failing job on its schedule, then marks it failed', async () => {
    const kind = freshKind();
    let calls = 0;
    const w = worker([{ kind, retryDelaysSeconds: [30, 120], run: async () => { calls++; throw new Error(`boom ${calls}`); } }]);
    await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 3 });
    const start = h.clock.now();
    expect(await w.runOnce()).toBe(1);
    let [job] = await jobsOf(kind);
    expect(job).toMatchObject({ status: 'queued', attempts: 1, run_at: start + 30_000, last_error: 'boom 1' });
    h.clock.advance(29_000);
    expect(await w.runOnce()).toBe(0);
    h.clock.advance(1_000);
    expect(await w.runOnce()).toBe(1);
    [job] = await jobsOf(kind);
    expect(job).toMatchObject({ status: 'queued', attempts: 2, run_at: h.clock.now() + 120_000 });
    h.clock.advance(120_000);
    expect(await w.runOnce()).toBe(1);
    [job] = await jobsOf(kind);
    expect(job).toMatchObject({ status: 'failed', attempts: 3, last_error: 'boom 3' });
    h.clock.advance(86_400_000);
    expect(await w.runOnce()).toBe(0);
    expect(calls).toBe(3);
  });

  it('gives a job whose worker died to another worker once the lease runs out; the dead one cannot settle it', async () => {
    const kind = freshKind();
    await h.services.queue.enqueue(h.db.kysely, kind, null);
    const [claimed] = await h.services.queue.claim('worker-that-dies', [kind], 1, 30_000);
    expect(claimed.attempts).toBe(1);
    expect(await h.services.queue.claim('other', [kind], 1, 30_000)).toEqual([]);
    h.clock.advance(30_000);
    const [again] = await h.services.queue.claim('other', [kind], 1, 30_000);
    expect(again).toMatchObject({ id: claimed.id, attempts: 2, locked_by: 'other' });
    expect(await h.services.queue.succeed(claimed, 'worker-that-dies')).toBe(false);
    expect(await h.services.queue.succeed(again, 'other')).toBe(true);
    expect((await jobsOf(kind))[0].status).toBe('succeeded');
  });

  it('a busy worker (its last claim found work, so it skips the probe) still takes a dead worker\'s job first once the lease runs out', async () => {
    const kind = freshKind();
    const q = h.services.queue;
    const dead = await q.enqueue(h.db.kysely, kind, 'dead');
    expect((await q.claim('worker-that-dies', [kind], 1, 30_000)).map((j) => j.id)).toEqual([dead]);
    const queued = [await q.enqueue(h.db.kysely, kind, 'q1'), await q.enqueue(h.db.kysely, kind, 'q2')];
    expect((await q.claim('busy', [kind], 1, 120_000, { probe: false })).map((j) => j.id)).toEqual([queued[0]]);
    h.clock.advance(30_000);
    const [taken, next] = await q.claim('busy', [kind], 2, 120_000, { probe: false });
    expect(taken).toMatchObject({ id: dead, attempts: 2, locked_by: 'busy' });
    expect(next.id).toBe(queued[1]);
    expect(await q.claim('busy', [kind], 2, 120_000, { probe: false })).toEqual([]);
  });

  // Was a bug: a lease that ran out gave the job another attempt however many it had used: a job that kills or hangs
  // its worker was claimed for ever. It now has its attempts and one final run more (for its handler to record a
  // failure its own way), then fails for good.
  it('a job whose worker keeps dying fails for good once it has used its attempts and a final one', async () => {
    const kind = freshKind();
    const id = (await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 2 }))!;
    for (let i = 1; i <= 5; i++) {
      if ((await h.services.queue.claim(`dying-${i}`, [kind], 1, 10_000)).length === 0) break;
      h.clock.advance(10_000); // the worker died: its lease runs out
    }
    const [exhausted] = await h.services.queue.leaseExhausted('settler', [kind], 60_000);
    expect(exhausted).toMatchObject({ id, attempts: 4, status: 'running', locked_by: 'settler' }); // the settling counts too
    expect(await h.services.queue.claim('other', [kind], 1, 10_000)).toEqual([]); // never run again
    expect(await h.services.queue.leaseExhausted('other', [kind], 60_000)).toEqual([]); // settled by one worker at a time
    expect(await h.services.queue.failAbandoned(exhausted, 'settler')).toBe(true);
    expect(await jobsOf(kind)).toMatchObject([{ id, attempts: 4, status: 'failed', unique_key: null, last_error: expect.stringContaining('lease ran out') }]);
    // A worker ends such jobs itself, and queues a recurring kind's next run.
    const recurring = freshKind();
    await h.services.queue.enqueue(h.db.kysely, recurring, null, { maxAttempts: 1, uniqueKey: `recurring:${recurring}` });
    for (let i = 0; i < 2; i++) {
      await h.services.queue.claim('dying', [recurring], 1, 10_000);
      h.clock.advance(10_000);
    }
    await worker([{ kind: recurring, everyMs: 60_000, run: async () => {} }]).runOnce();
    expect((await jobsOf(recurring)).map((j) => j.status).sort()).toEqual(['failed', 'queued']);
  });

  it('hands a job that failed for good that way to its handler, to settle what the job was for', async () => {
    const kind = await abandonedJob({ what: 'a delivery' });
    const settled: unknown[] = [];
    let runs = 0;
    await worker([{ kind, run: async () => { runs++; }, abandoned: async (payload) => { settled.push(payload); } }]).runOnce();
    expect(settled).toEqual([{ what: 'a delivery' }]);
    expect(runs).toBe(0);
    expect((await jobsOf(kind))[0]!.status).toBe('failed');
  });

  // Was a bug: a handler that failed to settle an abandoned job (the database busy for a moment) was logged and never
  // tried again: the job was already failed, and what it was for (an interview's processing) stayed unsettled for ever.
  it('tries an abandoned job\'s handler again, after a lease, when it fails to settle it; the job fails for good only once settled', async () => {
    const kind = await abandonedJob({ what: 'processing' });
    let tries = 0;
    const settling = worker([{ kind, run: async () => {}, abandoned: async () => { if (++tries === 1) throw new Error('database busy'); } }]);
    await settling.runOnce();
    expect(tries).toBe(1);
    expect((await jobsOf(kind))[0]!.status).toBe('running'); // held for the next try, not failed
    h.clock.advance(30_000);
    await settling.runOnce();
    expect(tries).toBe(1); // its lease has not run out yet
    h.clock.advance(31_000);
    await settling.runOnce();
    expect(tries).toBe(2);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'failed', unique_key: null });
  });

  // Was a bug: an abandoned job was leased to its handler again every minute for ever: one whose handler kills its
  // process (as its runs did) took the process, and every job running in it, down every minute, with no end.
  it('gives an abandoned job\'s handler ten tries at settling it, then fails the job unsettled', async () => {
    const kind = await abandonedJob({ what: 'a crash' });
    for (let i = 0; i < 10; i++) { // ten settlers, each killed by the handler
      expect(await h.services.queue.leaseExhausted(`crashing-${i}`, [kind], 60_000)).toHaveLength(1);
      h.clock.advance(60_000);
    }
    let tries = 0;
    await worker([{ kind, run: async () => {}, abandoned: async () => { tries++; } }]).runOnce();
    expect(tries).toBe(0);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'failed', unique_key: null, last_error: expect.stringContaining('did not settle it in 10 tries') });
  });

  // Was a gap: a job whose worker died on every attempt threw no UnfinishedWork, so its give-up named nothing it left
  // (an erasure's files, when deleting them killed the worker each time). Its handler names its work from the payload.
  it('logs an abandoned job\'s give-up with what its handler names as left (settled or not), and survives a handler that cannot name it', async () => {
    const logged: Array<{ obj: any; msg: string }> = [];
    const logging = (handlers: JobHandler[]) => createWorker({ queue: h.services.queue, clock: h.clock, handlers, log: { error: (obj, msg) => void logged.push({ obj, msg }) } });
    const named = (payload: unknown) => (payload as { keys: string[] }).keys;
    const settled = await abandonedJob({ keys: ['files/a', 'files/b'] });
    await logging([{ kind: settled, run: async () => {}, leftIfAbandoned: named }]).runOnce();
    expect(logged).toEqual([{ msg: 'job failed for good, leaving work undone: its worker stopped (the lease ran out) on every attempt', obj: expect.objectContaining({ kind: settled, left: ['files/a', 'files/b'] }) }]);
    expect((await jobsOf(settled))[0]).toMatchObject({ status: 'failed', last_error: 'its worker stopped (the lease ran out) on every attempt; left undone (2): files/a, files/b' });

    logged.length = 0;
    const unsettled = await abandonedJob({ keys: ['files/c'] });
    for (let i = 0; i < 10; i++) {
      await h.services.queue.leaseExhausted(`crashing-${i}`, [unsettled], 60_000);
      h.clock.advance(60_000);
    }
    await logging([{ kind: unsettled, run: async () => {}, abandoned: async () => {}, leftIfAbandoned: named }]).runOnce();
    expect(logged).toEqual([{ msg: 'job failed for good, unsettled, leaving work undone: its handler did not settle it in any of its tries', obj: expect.objectContaining({ left: ['files/c'] }) }]);
    expect((await jobsOf(unsettled))[0]!.last_error).toMatch(/did not settle it in 10 tries; left undone \(1\): files\/c$/);

    logged.length = 0;
    const unnamed = await abandonedJob(null);
    await logging([{ kind: unnamed, run: async () => {}, leftIfAbandoned: named }]).runOnce(); // null.keys throws
    expect(logged.map((l) => l.msg)).toEqual(['could not name what an abandoned job left undone', 'job failed for good: its worker stopped (the lease ran out) on every attempt']);
    expect((await jobsOf(unnamed))[0]).toMatchObject({ status: 'failed', last_error: 'its worker stopped (the lease ran out) on every attempt' });
  });

  // Was a bug: a job that ran past its lease was claimed again beside itself, by its own worker too, until its copies
  // held every slot.
  it('renews the lease of a job while it runs: a long job is never run twice at once, and holds one slot', async () => {
    const long = freshKind();
    const quick = freshKind();
    let longRuns = 0;
    let quickRuns = 0;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const w = createWorker({
      queue: h.services.queue, clock: h.clock, log: silent, concurrency: 3, pollMs: 5, leaseMs: 3_000,
      handlers: [{ kind: long, run: async () => { longRuns++; await finished; } }, { kind: quick, run: async () => { quickRuns++; } }],
    });
    const id = (await h.services.queue.enqueue(h.db.kysely, long, null))!;
    await w.start();
    const leaseUntil = async () => Number((await jobsOf(long))[0]?.lease_until ?? 0);
    for (let i = 0; i < 4; i++) {
      // A renewal made at the clock's current time (every leaseMs / 3 of real time): waited for, not slept for, so a
      // busy machine cannot advance the clock past a lease whose renewal was merely late.
      const now = h.clock.now();
      await expect.poll(leaseUntil, { timeout: 5_000, interval: 20 }).toBe(now + 3_000);
      h.clock.advance(2_000); // 8 s in all: the first lease (3 s) would have run out twice over
    }
    await h.services.queue.enqueue(h.db.kysely, quick, null);
    await expect.poll(() => quickRuns, { timeout: 5_000 }).toBe(1);
    expect(longRuns).toBe(1);
    finish();
    await w.stop();
    expect((await jobsOf(long))[0]).toMatchObject({ id, attempts: 1, status: 'succeeded' });
  }, 20_000);

  it('queues a job its handler postpones again for later, with no attempt used and no error recorded', async () => {
    const kind = freshKind();
    let runs = 0;
    const w = worker([{ kind, run: async () => { if (++runs === 1) throw new JobPostponed(h.clock.now() + 5_000); } }]);
    await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 1 });
    expect(await w.runOnce()).toBe(1);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'queued', attempts: 0, run_at: h.clock.now() + 5_000, last_error: null, locked_by: null });
    h.clock.advance(4_999);
    expect(await w.runOnce()).toBe(0);
    h.clock.advance(1);
    expect(await w.runOnce()).toBe(1);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  // Was a bug: stop() waited only for jobs already running; a claim under way got its jobs afterwards and ran them.
  it('stop() waits for a claim under way and hands its jobs back instead of running them', async () => {
    const kind = freshKind();
    let runs = 0;
    const w = createWorker({ queue: h.services.queue, clock: h.clock, handlers: [{ kind, run: async () => { runs++; } }], log: silent, pollMs: 10 });
    const id = (await h.services.queue.enqueue(h.db.kysely, kind, null))!;
    await w.start();
    await w.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(runs).toBe(0);
    expect((await jobsOf(kind))[0]).toMatchObject({ id, status: 'queued', attempts: 0, locked_by: null });
  });

  // Was a bug: a failure to record a job's outcome (the database locked by another process) rejected unhandled and
  // took the process down; the job is now left to its lease.
  it('a job whose outcome cannot be recorded is logged and left to its lease; nothing rejects unhandled', async () => {
    const kind = freshKind();
    const errors: string[] = [];
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    const queue = { ...h.services.queue, succeed: async () => { throw new Error('database is locked'); } };
    const w = createWorker({ queue, clock: h.clock, handlers: [{ kind, run: async () => {} }], log: { error: (_o, msg) => errors.push(msg) }, pollMs: 10 });
    try {
      await h.services.queue.enqueue(h.db.kysely, kind, null);
      await w.start();
      await expect.poll(() => errors.length).toBeGreaterThan(0);
      await w.stop();
    } finally {
      process.off('unhandledRejection', onRejection);
    }
    expect(rejections).toEqual([]);
    expect(errors[0]).toMatch(/could not record the job's outcome/);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'running', attempts: 1 });
  });

  it('keeps one pending job per unique key', async () => {
    const kind = freshKind();
    const first = await h.services.queue.enqueue(h.db.kysely, kind, 1, { uniqueKey: `${kind}:x` });
    const second = await h.services.queue.enqueue(h.db.kysely, kind, 2, { uniqueKey: `${kind}:x` });
    expect(first).not.toBeNull();
    expect(second).toBeNull();
    await worker([{ kind, run: async () => {} }]).runOnce();
    expect(await h.services.queue.enqueue(h.db.kysely, kind, 3, { uniqueKey: `${kind}:x` })).not.toBeNull();
  });
});

describe('coding timeouts through the queue', () => {
  it('starting a timed session queues its timeout for the deadline; the job times it out', async () => {
    const key = h.org.keys.secret_test;
    const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
      h.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    const candidate = (await inject('POST', '/v1/candidates', bearer(key), { email: 'timeout@example.com', name: 'T' })).json();
    const test = (await inject('GET', '/v1/coding-tests', bearer(key))).json().data.find((t: any) => t.duration_minutes !== null);
    const session = (await inject('POST', '/v1/coding-sessions', bearer(key), { candidate_id: candidate.id, coding_test_id: test.id })).json();
    await inject('POST', '/v1/domains', bearer(key), { origin: 'https://app.acme.test' });
    const token = (await inject('POST', '/v1/sessions', bearer(key), { origin: 'https://app.acme.test', coding_session_id: session.id })).json().session_token;
    expect((await inject('POST', `/v1/coding-sessions/${session.id}/start`, { authorization: `Bearer ${token}`, origin: 'https://app.acme.test' })).statusCode).toBe(200);

    const [job] = await jobsOf('coding.timeout').then((jobs) => jobs.filter((j) => JSON.parse(j.payload).session_id === session.id));
    const stored = await h.db.kysely.selectFrom('coding_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'queued', run_at: stored.deadline_at, unique_key: `coding.timeout:${session.id}`, organization_id: h.org.id });

    const { jobHandlers } = await import('../../src/modules/jobs.js');
    const w = worker(jobHandlers(h.services, h.modules).filter((x) => x.kind === 'coding.timeout'));
    h.clock.set(stored.deadline_at! - 1000);
    expect(await w.runOnce()).toBe(0);
    h.clock.advance(1000);
    expect(await w.runOnce()).toBeGreaterThanOrEqual(1);
    const row = await h.db.kysely.selectFrom('coding_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'timed_out', ended_at: stored.deadline_at });
  });
});

describe('several worker processes on one queue', () => {
  const children: ChildProcess[] = [];
  afterAll(() => children.forEach((c) => c.kill('SIGKILL')));

  const startWorker = async () => {
    const child = await startWorkerProcess(h.env);
    children.push(child);
    return child;
  };

  it('never runs one job twice at once: every job succeeds on its first attempt', async () => {
    await Promise.all([startWorker(), startWorker()]);
    // Real timeouts for sessions that do not exist: each job runs, finds nothing to time out, and succeeds.
    const n = 120;
    await h.db.kysely.transaction().execute(async (tx) => {
      for (let i = 0; i < n; i++) {
        await h.services.queue.enqueue(tx, 'coding.timeout', { organization_id: h.org.id, livemode: false, session_id: newId() }, { runAt: Date.now() - 1000 });
      }
    });
    const deadline = Date.now() + 20_000;
    let jobs = await jobsOf('coding.timeout');
    while (jobs.some((j) => j.status !== 'succeeded') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      jobs = await jobsOf('coding.timeout');
    }
    const fresh = jobs.filter((j) => j.run_at < Date.now());
    expect(fresh.length).toBeGreaterThanOrEqual(n);
    expect(fresh.every((j) => j.status === 'succeeded' && j.attempts === 1)).toBe(true);
  });
});
