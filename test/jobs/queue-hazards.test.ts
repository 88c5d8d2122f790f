import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type JobHandler } from '../../src/jobs/worker.js';
import { DIALECT, startHarness, type Harness } from '../helpers/harness.js';
import { jobsKit, silentLog } from '../helpers/jobs.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const silent = silentLog;
const { freshKind, jobsOf } = jobsKit(() => h, 'hazard');

/** Runs `body` while the database refuses new jobs of `kind`, as a database that is busy or gone would. */
async function refuseInserts(kind: string, body: () => Promise<void>): Promise<void> {
  if (DIALECT === 'postgres') {
    await sql`create function refuse_job() returns trigger language plpgsql as $$ begin raise exception 'database is locked'; end $$`.execute(h.db.kysely);
    await sql.raw(`create trigger refuse_job before insert on background_jobs for each row when (new.kind = '${kind}') execute function refuse_job()`).execute(h.db.kysely);
  } else {
    await sql.raw(`create trigger refuse_job before insert on background_jobs when new.kind = '${kind}' begin select raise(abort, 'database is locked'); end`).execute(h.db.kysely);
  }
  try {
    await body();
  } finally {
    await sql`drop trigger refuse_job${sql.raw(DIALECT === 'postgres' ? ' on background_jobs' : '')}`.execute(h.db.kysely);
    if (DIALECT === 'postgres') await sql`drop function refuse_job()`.execute(h.db.kysely);
  }
}

function worker(handlers: JobHandler[], leaseMs = 60_000) {
  return createWorker({ queue: h.services.queue, clock: h.clock, handlers, log: silent, leaseMs });
}

describe('job queue hazards', () => {
  // Was a bug (SQLite): an idle worker's two "is there work?" reads went through the read cache, stamped with the time:
  // each poll added two entries, and every 2,000 emptied the cache, the API's cached reads with it (every 50 s idle).
  it.runIf(DIALECT === 'sqlite')('an idle worker\'s polls leave the read cache of other reads alone', async () => {
    const read = () => h.db.read(h.db.kysely.selectFrom('organizations').select('id').where('name', '=', 'nobody at all').compile());
    const cached = await read();
    expect(await read()).toBe(cached); // the very same frozen array: a cache hit
    const kind = freshKind();
    for (let i = 0; i < 1500; i++) {
      h.clock.advance(1);
      expect(await h.services.queue.claim('idle-worker', [kind], 1, 60_000)).toEqual([]);
    }
    expect(await read()).toBe(cached);
  });

  it('two enqueues of one unique key at once, in open transactions, keep one job; a rolled-back one frees the key', async () => {
    const kind = freshKind();
    const key = `${kind}:k`;
    const q = h.services.queue;
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((r) => (releaseFirst = r));
    let firstEnqueued!: () => void;
    const enqueued = new Promise<void>((r) => (firstEnqueued = r));
    const first = h.db.kysely.transaction().execute(async (tx) => {
      const id = await q.enqueue(tx, kind, 1, { uniqueKey: key });
      firstEnqueued();
      await firstHeld;
      return id;
    });
    await enqueued; // the first holds the key (uncommitted) before the second tries: waited for, not slept for
    const second = h.db.kysely.transaction().execute((tx) => q.enqueue(tx, kind, 2, { uniqueKey: key }));
    await new Promise((r) => setTimeout(r, 50));
    releaseFirst();
    const ids = await Promise.all([first, second]);
    expect(ids[0]).not.toBeNull();
    expect(ids[1]).toBeNull();
    expect(await jobsOf(kind)).toHaveLength(1);

    const kind2 = freshKind();
    const key2 = `${kind2}:k`;
    let abortFirst!: () => void;
    const held = new Promise<void>((r) => (abortFirst = r));
    const rolledBack = h.db.kysely.transaction().execute(async (tx) => {
      await q.enqueue(tx, kind2, 1, { uniqueKey: key2 });
      await held;
      throw new Error('rolled back');
    });
    await new Promise((r) => setTimeout(r, 50));
    const after = h.db.kysely.transaction().execute((tx) => q.enqueue(tx, kind2, 2, { uniqueKey: key2 }));
    await new Promise((r) => setTimeout(r, 50));
    abortFirst();
    await expect(rolledBack).rejects.toThrow('rolled back');
    expect(await after).not.toBeNull();
    expect((await jobsOf(kind2)).map((j) => JSON.parse(j.payload))).toEqual([2]);
  });

  it('claimers racing for the same jobs never get one job twice', async () => {
    const kind = freshKind();
    const q = h.services.queue;
    for (let i = 0; i < 40; i++) await q.enqueue(h.db.kysely, kind, i);
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => q.claim(`racer-${i}`, [kind], 10, 60_000)));
    const ids = claims.flat().map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(40);
  });

  it('settlers racing for an abandoned job: one gets it', async () => {
    const kind = freshKind();
    const q = h.services.queue;
    await q.enqueue(h.db.kysely, kind, null, { maxAttempts: 1 });
    for (let i = 0; i < 2; i++) {
      await q.claim('dying', [kind], 1, 10_000);
      h.clock.advance(10_000);
    }
    const got = await Promise.all(Array.from({ length: 6 }, (_, i) => q.leaseExhausted(`settler-${i}`, [kind], 60_000)));
    expect(got.flat()).toHaveLength(1);
  });

  it('stop() waits for a running job and records its outcome; nothing is dropped', async () => {
    const kind = freshKind();
    let finish!: () => void;
    let started = false;
    const w = createWorker({ queue: h.services.queue, clock: h.clock, log: silent, pollMs: 5,
      handlers: [{ kind, run: () => { started = true; return new Promise<void>((r) => (finish = r)); } }] });
    await h.services.queue.enqueue(h.db.kysely, kind, null);
    await w.start();
    await expect.poll(() => started).toBe(true);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
  });

  it('a handler that throws synchronously (not a rejected promise) is a failed attempt, retried', async () => {
    const kind = freshKind();
    const w = worker([{ kind, run: (() => { throw new Error('sync boom'); }) as unknown as JobHandler['run'] }]);
    await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 2 });
    expect(await w.runOnce()).toBe(1);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'queued', attempts: 1, last_error: 'sync boom', locked_by: null });
  });

  // Was a bug: a thrown value whose message is not text (`{ message: 7 }`, an object with no toString) failed the
  // write of the outcome: the job sat out its lease (2 minutes) on every attempt, logged as unrecordable.
  it('a handler that throws something that is not an Error still has its failure recorded', async () => {
    for (const thrown of [null, undefined, 'a string', 42, { message: 7 }, { message: { nested: true } }, Object.create(null)]) {
      const kind = freshKind();
      const w = worker([{ kind, run: async () => { throw thrown; } }]);
      await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 2 });
      expect(await w.runOnce()).toBe(1);
      expect((await jobsOf(kind))[0], typeof thrown).toMatchObject({ status: 'queued', attempts: 1, locked_by: null, last_error: expect.any(String) });
    }
  });

  it('a payload that is not JSON is a failed attempt, not a crash', async () => {
    const kind = freshKind();
    const id = (await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 1 }))!;
    await h.db.kysely.updateTable('background_jobs').set({ payload: '{not json' }).where('id', '=', id).execute();
    let runs = 0;
    expect(await worker([{ kind, run: async () => { runs++; } }]).runOnce()).toBe(1);
    expect(runs).toBe(0);
    expect((await jobsOf(kind))[0]).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('retries far along the schedule stay in the future and finite', async () => {
    const kind = freshKind();
    const w = worker([{ kind, retryDelaysSeconds: [1, 2], run: async () => { throw new Error('no'); } }]);
    const id = (await h.services.queue.enqueue(h.db.kysely, kind, null, { maxAttempts: 40 }))!;
    await h.db.kysely.updateTable('background_jobs').set({ attempts: 30 }).where('id', '=', id).execute();
    expect(await w.runOnce()).toBe(1);
    const [job] = await jobsOf(kind);
    expect(job).toMatchObject({ status: 'queued', attempts: 31, run_at: h.clock.now() + 2_000 });
  });

  it('retention deletes settled jobs after a day and never a queued or running one', async () => {
    const kind = freshKind();
    const q = h.services.queue;
    const queued = (await q.enqueue(h.db.kysely, kind, 'queued', { runAt: h.clock.now() + 10 * 86_400_000 }))!;
    const running = (await q.enqueue(h.db.kysely, kind, 'running'))!;
    await q.claim('slow', [kind], 1, 10 * 86_400_000);
    const done = (await q.enqueue(h.db.kysely, kind, 'done'))!;
    await worker([{ kind, run: async () => {} }]).runOnce();
    h.clock.advance(86_400_001);
    await q.sweep();
    expect((await jobsOf(kind)).map((j) => j.id).sort()).toEqual([queued, running].sort());
    expect(done).toBeTruthy();
  });
});

describe('recurring work', () => {
  // Was a bug: a recurring job's next run was queued after its outcome was recorded, in a statement of its own; one
  // that failed (the database busy for a moment) left the job settled and nothing queued: the work (a timeout sweep
  // every 10 s) stopped until some process restarted. The next run is now queued in the transaction that settles.
  it('never loses the next run of a recurring job: a failure to queue it leaves the run to its lease', async () => {
    const kind = freshKind();
    let runs = 0;
    await h.services.queue.ensureRecurring(kind, h.clock.now());
    const w = createWorker({ queue: h.services.queue, clock: h.clock, log: silent, leaseMs: 30_000, handlers: [{ kind, everyMs: 10_000, run: async () => { runs++; } }] });
    await refuseInserts(kind, async () => expect(await w.runOnce()).toBe(1));
    expect(runs).toBe(1);
    for (let i = 0; i < 3; i++) {
      h.clock.advance(10_000);
      await w.runOnce();
    }
    expect(runs).toBe(2); // run again once its lease (30 s) ran out
    h.clock.advance(10_000);
    expect(await w.runOnce()).toBe(1);
    expect(runs).toBe(3);
    const jobs = await jobsOf(kind);
    expect(jobs.filter((j) => j.status === 'queued')).toHaveLength(1);
    expect(jobs.filter((j) => j.status === 'running')).toHaveLength(0);
  });
});

describe('a handler that never settles', () => {
  // Was a bug: its lease was renewed for ever, so it held its slot and stayed `running` for good; a few such jobs
  // held every slot and the worker ran nothing else (timeouts, deliveries, retention). Past the worker's time limit it
  // now lets the job's lease run out (the job runs again as if its worker had died) and frees the slot.
  it('gives up its slot and its lease after the time limit; the job runs again, once, and other work goes on', async () => {
    const hung = freshKind();
    const other = freshKind();
    let hungRuns = 0;
    let otherRuns = 0;
    const w = createWorker({
      queue: h.services.queue, clock: h.clock, log: silent, concurrency: 1, pollMs: 5, leaseMs: 3_000, maxRunMs: 3_000,
      handlers: [
        { kind: hung, run: () => (++hungRuns === 1 ? new Promise<void>(() => {}) : Promise.resolve()) },
        { kind: other, run: async () => { otherRuns++; } },
      ],
    });
    const id = (await h.services.queue.enqueue(h.db.kysely, hung, null))!;
    await w.start();
    try {
      await expect.poll(() => hungRuns).toBe(1);
      await h.services.queue.enqueue(h.db.kysely, other, null);
      // Within the time limit (0.5 s and a little of its 3 s; the worker claims every 5 ms).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(otherRuns).toBe(0); // its one slot is taken
      await expect.poll(() => otherRuns, { timeout: 10_000 }).toBe(1); // past the time limit: the slot is free
      expect((await jobsOf(hung))[0]).toMatchObject({ id, status: 'running', attempts: 1 });
      h.clock.advance(3_000); // its last renewed lease runs out
      await expect.poll(async () => (await jobsOf(hung))[0]!.status, { timeout: 10_000 }).toBe('succeeded');
      expect(hungRuns).toBe(2);
      expect((await jobsOf(hung))[0]).toMatchObject({ attempts: 2 });
    } finally {
      await w.stop();
    }
  }, 20_000);

  // Was a bug: abandoned jobs are settled inside the claim pass; a settling handler that never returned (a lock wait
  // with no end) held that pass for good, and the worker claimed nothing again. It is now left after the time limit
  // (the job's settling lease then runs out and it is tried again) and claiming goes on.
  it('a settling handler of an abandoned job that never returns does not stop the worker claiming', async () => {
    const kind = freshKind();
    const other = freshKind();
    const q = h.services.queue;
    await q.enqueue(h.db.kysely, kind, null, { maxAttempts: 1 });
    for (let i = 0; i < 2; i++) {
      await q.claim('dying', [kind], 1, 10_000);
      h.clock.advance(10_000);
    }
    let settles = 0;
    let otherRuns = 0;
    const w = createWorker({
      queue: q, clock: h.clock, log: silent, pollMs: 5, maxRunMs: 500,
      handlers: [
        { kind, run: async () => {}, abandoned: () => { settles++; return new Promise<void>(() => {}); } },
        { kind: other, run: async () => { otherRuns++; } },
      ],
    });
    await w.start();
    try {
      await expect.poll(() => settles).toBe(1);
      await q.enqueue(h.db.kysely, other, null);
      await expect.poll(() => otherRuns, { timeout: 10_000 }).toBe(1);
      expect((await jobsOf(kind))[0]).toMatchObject({ status: 'running', locked_by: w.id }); // held until its settling lease runs out
    } finally {
      await w.stop();
    }
  }, 20_000);
});
