import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';

// dns.lookup runs on libuv's threadpool (4 threads, shared with fs, crypto and zlib); a name server that never answers
// holds a thread until the system resolver gives up, whatever time limit the caller set. Was a bug: every webhook
// delivery to such a host started one more lookup, so a few of them took the whole pool.

const hung: Array<(err: Error | null, addresses: LookupAddress[]) => void> = [];
/** Every name dns.lookup was asked for. */
const systemLookups: string[] = [];
/** c-ares queries that were never answered, settled (as time-outs) after each test. */
const unanswered: Array<() => void> = [];
/** Names that answer at once, through either resolver; every other name's name server never answers. */
const answering: Record<string, string> = { 'answers.example': '93.184.216.34', 'localhost': '127.0.0.1' };
vi.mock('node:dns', async (original) => {
  const dns = await original<typeof import('node:dns')>();
  class FakeResolver {
    setServers() {}
    cancel() {}
    resolve4(host: string) { return this.query(host, 4); }
    resolve6(host: string) { return this.query(host, 6); }
    query(host: string, family: 4 | 6) {
      if (host in answering) {
        return family === 4 ? Promise.resolve([answering[host]]) : Promise.reject(Object.assign(new Error('queryAaaa ENODATA'), { code: 'ENODATA' }));
      }
      return new Promise<string[]>((_, reject) => unanswered.push(() => reject(Object.assign(new Error('ETIMEOUT'), { code: 'ETIMEOUT' }))));
    }
  }
  return {
    ...dns,
    promises: { ...dns.promises, Resolver: FakeResolver },
    lookup: (host: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) => {
      systemLookups.push(host);
      if (host in answering) callback(null, [{ address: answering[host], family: 4 }]);
      else hung.push(callback);
    },
  };
});

const { boundedResolver, systemResolver, SYSTEM_LOOKUPS_AT_ONCE } = await import('../../src/platform/outbound/guard.js');
const { createOutboundSender } = await import('../../src/platform/outbound/sender.js');

afterEach(() => {
  vi.useRealTimers();
  for (const callback of hung.splice(0)) callback(null, [{ address: '192.0.2.1', family: 4 }]);
  for (const reject of unanswered.splice(0)) reject();
});

// Was a bug: every customer's name went through the 2 system lookup slots, and a slot stayed taken until getaddrinfo
// gave up (30 s and more), long after the 10 s send time-out, which the slow-receiver limit counts as the end of the
// delivery. One organisation whose endpoints' name server never answered (POST …/test to them, again and again) kept
// both slots busy, and every other organisation's delivery waited its whole time-out and failed as dns_error.
describe('names whose name server never answers', () => {
  it("hold up no other organisation's deliveries or registrations", async () => {
    const sender = createOutboundSender({ timeoutMs: 300 });
    try {
      // Organisation A: test events to four endpoints whose names never resolve; each attempt times out.
      const a = await Promise.all(Array.from({ length: 4 }, (_, i) => sender.send({ url: `https://never-${i}.example/hook` }).then(() => null, (e: unknown) => e)));
      for (const error of a) expect(error).toMatchObject({ reason: 'timeout' });
      // Organisation B, right after (A's lookups are still unanswered): its name answers at once, so it resolves.
      const started = performance.now();
      await expect(sender.check('https://answers.example/hook')).resolves.toEqual(['93.184.216.34']);
      expect(performance.now() - started).toBeLessThan(200);
      // No system lookup was started for a customer's name: nothing is held on libuv's threadpool.
      expect(systemLookups.filter((host) => host.startsWith('never-') || host === 'answers.example')).toEqual([]);
    } finally {
      await sender.close();
    }
  });

  it('still resolve the test allowlist\'s names with the system resolver (c-ares does not read /etc/hosts)', async () => {
    const sender = createOutboundSender({ timeoutMs: 300, allowLoopbackHosts: ['localhost', 'hangs.test'] });
    try {
      void sender.check('https://hangs.test/').catch(() => {});
      await new Promise((r) => setImmediate(r));
      expect(systemLookups).toContain('hangs.test'); // an allowlisted name: dns.lookup
      await expect(sender.check('https://localhost/')).resolves.toEqual(['127.0.0.1']);
    } finally {
      await sender.close();
    }
  });
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
