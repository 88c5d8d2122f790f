import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';

// dns.lookup runs on libuv's threadpool (4 threads, shared with fs, crypto and zlib); a name server that never answers
// holds a thread until the system resolver gives up, whatever time limit the caller set. Was a bug: every webhook
// delivery to such a host started one more lookup, so a few of them took the whole pool.

const hung: Array<(err: Error | null, addresses: LookupAddress[]) => void> = [];
vi.mock('node:dns', async (original) => ({
  ...(await original<typeof import('node:dns')>()),
  lookup: (_host: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) => hung.push(callback),
}));

const { boundedResolver, systemResolver, SYSTEM_LOOKUPS_AT_ONCE } = await import('../../src/platform/outbound/guard.js');

afterEach(() => {
  vi.useRealTimers();
  for (const callback of hung.splice(0)) callback(null, [{ address: '192.0.2.1', family: 4 }]);
});

describe('system lookups', () => {
  it('run at most SYSTEM_LOOKUPS_AT_ONCE at a time, however many hang', async () => {
    expect(SYSTEM_LOOKUPS_AT_ONCE).toBeLessThan(4); // libuv's default pool: some threads always stay free
    const pending = Array.from({ length: 6 }, (_, i) => systemResolver(`hangs-${i}.example`));
    for (const p of pending) p.catch(() => {});
    await new Promise((r) => setImmediate(r));
    expect(hung.length).toBe(SYSTEM_LOOKUPS_AT_ONCE);
    hung.shift()!(null, [{ address: '192.0.2.7', family: 4 }]);
    await expect(pending[0]).resolves.toEqual([{ address: '192.0.2.7', family: 4 }]);
    await new Promise((r) => setImmediate(r));
    expect(hung.length).toBe(SYSTEM_LOOKUPS_AT_ONCE); // the next waiting lookup took the freed place
  });
});

describe('boundedResolver', () => {
  it('hands a freed place to the next waiting lookup, never running more than its bound', async () => {
    let running = 0;
    let most = 0;
    const finish: Array<() => void> = [];
    const resolve = boundedResolver((host) => new Promise<LookupAddress[]>((done) => {
      running++;
      most = Math.max(most, running);
      finish.push(() => { running--; done([{ address: host === 'a' ? '192.0.2.1' : '192.0.2.2', family: 4 }]); });
    }), 2, 60_000);
    const first = [resolve('a'), resolve('b'), resolve('c')];
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(2);
    finish.shift()!();
    const late = resolve('d'); // asks in the same turn as the place is freed: it must queue behind 'c'
    await first[0];
    await new Promise((r) => setImmediate(r));
    expect(running).toBe(2);
    while (finish.length > 0) { finish.shift()!(); await new Promise((r) => setImmediate(r)); }
    await Promise.all([...first, late]);
    expect(most).toBe(2);
  });

  it('fails a lookup that waited too long without starting it', async () => {
    vi.useFakeTimers();
    let started = 0;
    const resolve = boundedResolver(() => { started++; return new Promise<LookupAddress[]>(() => {}); }, 1, 5_000);
    void resolve('a');
    const waiting = resolve('b');
    const failed = expect(waiting).rejects.toMatchObject({ code: 'EAI_AGAIN' });
    await vi.advanceTimersByTimeAsync(5_001);
    await failed;
    expect(started).toBe(1);
  });
});
