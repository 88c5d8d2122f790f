import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../helpers/harness.js';
import { judgingKit } from '../helpers/judging.js';
import { until } from '../helpers/processes.js';
import { slotIdentities } from '../../src/sandbox/sandbox.js';

/** A process of `uid` (a sandbox slot's) whose name starts with `name` is running: its program, not the slot's idle sandbox. */
function programRunning(uid: number, name: string): boolean {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (/^Name:\s*(\S+)/m.exec(status)?.[1]?.startsWith(name) && Number(/^Uid:\s*(\d+)/m.exec(status)?.[1]) === uid) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/** One execution slot and no waiting: a second run while the first holds the slot is refused with 429 (and Retry-After). */
let h: Harness;
let kit: ReturnType<typeof judgingKit>;

beforeAll(async () => {
  h = await startHarness({ env: { PREP_RATE_LIMIT: '100000', PREP_SANDBOX_SLOTS: '1', PREP_SANDBOX_QUEUE_WAIT_MS: '0', PREP_SANDBOX_UID_BASE: '500000' } });
  kit = judgingKit(h);
});
afterAll(() => h.close());

describe('capacity', () => {
  it('answers 429 capacity_unavailable when every slot is busy, and the API keeps answering during a fork bomb', async () => {
    // Two candidates: one run at a time per session, so the slot is held by one and asked for by the other.
    const [a, b] = [await kit.session(h.org.keys.secret_test, 'foundations-practice-set'), await kit.session(h.org.keys.secret_test, 'foundations-practice-set')];
    const run = (s: typeof a, source: string) => kit.call('POST', `/v1/coding-sessions/${s.id}/run`, { token: s.token, body: { problem_id: s.problems[0]!.id, language: 'python', source, stdin: '' } });
    // Holds the only slot for 3 s and a little; the other run is sent once the holder's program runs (not after a
    // fixed wait: the first run also starts the sandbox, slow on a loaded machine).
    const holding = run(a, 'import time\ntime.sleep(3)\n');
    await until(() => programRunning(slotIdentities({ uidBase: 500_000, slots: 1 })[0]!.uid, 'python'), 30_000);
    const refused = await run(b, 'print(1)');
    expect(refused.status, refused.raw).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'capacity_error', code: 'capacity_unavailable' });
    expect(refused.headers['retry-after']).toBe('2');
    expect((await holding).status).toBe(200);

    const bomb = run(a, 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n');
    for (let i = 0; i < 5; i++) expect((await kit.call('GET', '/v1/health')).status).toBe(200);
    const bombed = await bomb;
    expect(bombed.status, bombed.raw).toBe(200);
    expect(['TIME_LIMIT_EXCEEDED', 'RUNTIME_ERROR', 'MEMORY_LIMIT_EXCEEDED']).toContain(bombed.body.verdict);
    const after = await run(b, 'print(1)');
    expect(after.body).toMatchObject({ verdict: 'COMPLETED', results: [{ stdout: '1\n' }] });
  }, 60_000);
});
