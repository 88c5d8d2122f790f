import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const tenant = () => ({ organizationId: h.org.id, livemode: false });

async function overdueSession() {
  const s = await judgingKit(h).session(h.org.keys.secret_test, 'core-data-structures-screen');
  const row = await h.db.kysely.selectFrom('coding_sessions').select('deadline_at').where('id', '=', s.id).executeTakeFirstOrThrow();
  h.clock.set(row.deadline_at! + 1000);
  return s.id;
}

const statusOf = async (id: string) =>
  (await h.db.kysely.selectFrom('coding_sessions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const completionJobs = async (id: string) =>
  (await h.db.kysely.selectFrom('background_jobs').select('id').where('kind', '=', 'coding.complete').where('unique_key', '=', `coding.complete:${id}`).execute()).length;

/** Makes the queue fail when the completion job is written: a crash between the status change and the job. */
function failCompletionEnqueue(): () => void {
  const queue = h.services.queue;
  const original = queue.enqueue;
  queue.enqueue = (async (tx: unknown, kind: string, ...rest: unknown[]) => {
    if (kind === 'coding.complete') throw new Error('crash between the two writes');
    return (original as (...a: unknown[]) => unknown).call(queue, tx, kind, ...rest);
  }) as typeof queue.enqueue;
  return () => { queue.enqueue = original; };
}

describe('a due timeout is applied in one transaction on every path', () => {
  it('the session context read (launch page, room) leaves nothing half-written when the completion job fails', async () => {
    const id = await overdueSession();
    const restore = failCompletionEnqueue();
    try {
      await expect(h.modules.coding.provider.context(tenant(), id)).rejects.toThrow('crash between the two writes');
    } finally {
      restore();
    }
    expect(['started', 'in_progress']).toContain(await statusOf(id));
    expect(await completionJobs(id)).toBe(0);

    // The next read or the sweep applies it, with its completion job, together.
    expect((await h.modules.coding.provider.context(tenant(), id))!.status).toBe('timed_out');
    expect(await statusOf(id)).toBe('timed_out');
    expect(await completionJobs(id)).toBe(1);
  });

  it('the sweep and the timeout job leave nothing half-written either', async () => {
    const id = await overdueSession();
    const restore = failCompletionEnqueue();
    try {
      await expect(h.modules.coding.expireDue()).rejects.toThrow('crash between the two writes');
      await expect(h.modules.coding.expireSession(tenant(), id)).rejects.toThrow('crash between the two writes');
    } finally {
      restore();
    }
    expect(['started', 'in_progress']).toContain(await statusOf(id));
    expect(await completionJobs(id)).toBe(0);
    expect(await h.modules.coding.expireDue()).toBeGreaterThanOrEqual(1);
    expect(await statusOf(id)).toBe('timed_out');
    expect(await completionJobs(id)).toBe(1);
  });
});
