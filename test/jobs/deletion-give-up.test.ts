import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/jobs/worker.js';
import { jobHandlers } from '../../src/modules/jobs.js';
import { startHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/**
 * Every job that deletes stored files, with a payload as its module queues it: `refused` is what is left when storage
 * refuses every single-file deletion (folders by prefix still go), `all` what it was to do (left when its worker died
 * on every attempt: nothing says how far it got).
 */
const org = 'org_files';
const jobs = [
  {
    kind: 'storage.delete', // a resume erasure's files
    payload: { keys: [`resumes/${org}/res_a/file.pdf`, `uploads/${org}/upl_a`] },
    refused: [`resumes/${org}/res_a/file.pdf`, `uploads/${org}/upl_a`],
    all: [`resumes/${org}/res_a/file.pdf`, `uploads/${org}/upl_a`],
  },
  {
    kind: 'interview.erase-files', // an interview erasure's files and folders
    payload: { keys: [`interviews/${org}/itv_a/board/1.png`], recordings: [], folders: [{ organization_id: org, id: 'itv_a' }] },
    refused: [`interviews/${org}/itv_a/board/1.png`, `interviews/${org}/itv_a/*`],
    all: [`interviews/${org}/itv_a/board/1.png`, `interviews/${org}/itv_a/*`],
  },
  {
    kind: 'interview.late-uploads', // what was put through upload links after processing read it
    payload: {
      organization_id: org, id: 'itv_b', pieces: true,
      images: [{ key: `interviews/${org}/itv_b/board/1.png`, shown: false }, { key: `interviews/${org}/itv_b/board/2.png`, shown: true }],
    },
    refused: [`interviews/${org}/itv_b/board/1.png`, `interviews/${org}/itv_b/board/2.png`],
    all: [`interviews/${org}/itv_b/recording/*`, `interviews/${org}/itv_b/board/1.png`, `interviews/${org}/itv_b/board/2.png`],
  },
];

function loggingWorker(kind: string) {
  const logged: Array<{ obj: any; msg: string }> = [];
  const worker = createWorker({
    queue: h.services.queue, clock: h.clock, log: { error: (obj, msg) => void logged.push({ obj, msg }) },
    handlers: jobHandlers(h.services, h.modules).filter((j) => j.kind === kind),
  });
  return { worker, logged };
}

const jobRow = (id: string) => h.db.kysely.selectFrom('background_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('a job that deletes files, given up', () => {
  // Was a gap: the late-uploads check deleted without naming its steps, so its give-up (a week of storage refusing)
  // logged a plain "job failed for good": which of the person's uploads stayed was seen nowhere. Every deletion job
  // now names what it left.
  it.each(jobs.map((j) => [j.kind]))('%s after its last attempt failed: logs what it left, from the first file storage refused', async (kind) => {
    const job = jobs.find((j) => j.kind === kind)!;
    const storage = h.services.files.storage;
    const realDelete = storage.delete;
    storage.delete = async () => Promise.reject(new Error('storage unavailable'));
    const { worker, logged } = loggingWorker(kind);
    try {
      const id = (await h.services.queue.enqueue(h.db.kysely, kind, job.payload, { maxAttempts: 1 }))!;
      expect(await worker.runOnce()).toBe(1);
      const giveUp = logged.find((l) => l.obj.job_id === id);
      expect(giveUp).toMatchObject({ msg: 'job failed for good, leaving work undone', obj: { kind, attempt: 1, left: job.refused } });
      expect((await jobRow(id)).last_error).toBe(`storage unavailable; left undone (${job.refused.length}): ${job.refused.join(', ')}`);
    } finally {
      storage.delete = realDelete;
    }
  });

  // Was a gap: a deletion job whose worker died on every attempt (killed mid-deletion, each time) threw nothing, and
  // its give-up logged "job failed for good: its worker stopped …" without a word of the files it was to delete.
  it.each(jobs.map((j) => [j.kind]))('%s whose worker died on every attempt: logs everything it was to delete as left', async (kind) => {
    const job = jobs.find((j) => j.kind === kind)!;
    const id = (await h.services.queue.enqueue(h.db.kysely, kind, job.payload, { maxAttempts: 1 }))!;
    for (let i = 0; i < 2; i++) { // its attempt and the final one, each worker dead before it settled
      expect((await h.services.queue.claim('dying', [kind], 1, 10_000)).map((j) => j.id)).toEqual([id]);
      h.clock.advance(10_000);
    }
    const { worker, logged } = loggingWorker(kind);
    await worker.runOnce();
    const giveUp = logged.find((l) => l.obj.job_id === id);
    expect(giveUp).toMatchObject({
      msg: 'job failed for good, leaving work undone: its worker stopped (the lease ran out) on every attempt', obj: { kind, left: job.all },
    });
    expect(await jobRow(id)).toMatchObject({
      status: 'failed', last_error: `its worker stopped (the lease ran out) on every attempt; left undone (${job.all.length}): ${job.all.join(', ')}`,
    });
  });
});
