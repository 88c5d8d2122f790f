import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/jobs/worker.js';
import { newId } from '../../src/platform/ids.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { jobsKit, silentLog } from '../helpers/jobs.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
// A worker reads which organisations have jobs due at most once a second (of the queue's clock): each test starts
// past the last read of the one before.
beforeEach(() => h.clock.advance(1_000));

const { freshKind, jobsOf } = jobsKit(() => h, 'fair');

/** `count` jobs of `kind` for `organizationId` (null: the service's own), due `firstDueAgoMs` ago, then 1 ms apart. */
async function burst(kind: string, organizationId: string | null, count: number, firstDueAgoMs: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    ids.push((await h.services.queue.enqueue(h.db.kysely, kind, `${label}${i}`, { organizationId, runAt: h.clock.now() - firstDueAgoMs + i }))!);
  }
  return ids;
}

// Was a bug: jobs were claimed by run_at alone, so one organisation's burst (500 gradings at once) held every slot and
// another organisation's single job waited behind all of it.
describe('sharing the workers between organisations', () => {
  it('a burst of one organisation does not hold every slot: another\'s job queued after it runs before the burst is done', async () => {
    const kind = freshKind();
    const [a, b] = [newId(), newId()];
    await burst(kind, a, 20, 1_000, 'a');
    await burst(kind, b, 1, 0, 'b');
    const started: string[] = [];
    const w = createWorker({
      queue: h.services.queue, clock: h.clock, log: silentLog, concurrency: 2,
      handlers: [{ kind, run: async (payload) => void started.push(payload as string) }],
    });
    while (await w.runOnce() > 0);
    expect(started).toHaveLength(21);
    // Two slots: the burst's first job and the other organisation's, in the first claim.
    expect(started.indexOf('b0')).toBeLessThan(2);
    expect(started.filter((p) => p.startsWith('a'))).toEqual(Array.from({ length: 20 }, (_, i) => `a${i}`)); // its own in order
    expect((await jobsOf(kind)).every((j) => j.status === 'succeeded' && j.attempts === 1)).toBe(true);
  });

  it('an organisation with jobs running yields the next free slot to one with none, the service\'s own jobs included', async () => {
    const kind = freshKind();
    const [a, b] = [newId(), newId()];
    const q = h.services.queue;
    const burstA = await burst(kind, a, 5, 3_000, 'a');
    const [jobB] = await burst(kind, b, 1, 2_000, 'b');
    const [own] = await burst(kind, null, 1, 1_000, 'own');
    const claimOne = async () => (await q.claim('w', [kind], 1, 60_000)).map((j) => j.id);
    expect(await claimOne()).toEqual([burstA[0]]); // every organisation has none running: the earliest due
    expect(await claimOne()).toEqual([jobB]); // a has one running, b none
    expect(await claimOne()).toEqual([own]); // the service's own work is a group of its own
    expect(await claimOne()).toEqual([burstA[1]]); // one each running: the earliest due again
    const [running] = await jobsOf(kind).then((jobs) => jobs.filter((j) => j.id === jobB));
    expect(await q.succeed(running!, 'w')).toBe(true);
    // b has nothing due: its freed slot goes to a, the only group waiting, for the rest of its burst.
    expect(await q.claim('w', [kind], 5, 60_000).then((jobs) => jobs.map((j) => j.id))).toEqual(burstA.slice(2));
  });

  it('concurrent claimers never take a job twice, and every due job is taken', async () => {
    const kind = freshKind();
    const orgs = [newId(), newId(), newId()];
    const ids = [...(await Promise.all(orgs.map((org, i) => burst(kind, org, 12, 5_000 - i, `o${i}-`)))).flat(), ...await burst(kind, null, 6, 4_000, 'own')];
    const claimed: string[] = [];
    for (let round = 0; round < 20 && claimed.length < ids.length; round++) {
      const batches = await Promise.all(Array.from({ length: 5 }, (_, w) => h.services.queue.claim(`claimer-${w}`, [kind], 3, 60_000)));
      claimed.push(...batches.flat().map((j) => j.id));
    }
    expect(claimed).toHaveLength(ids.length);
    expect(new Set(claimed)).toEqual(new Set(ids));
    expect((await jobsOf(kind)).every((j) => j.status === 'running' && j.attempts === 1)).toBe(true);
  });
});
