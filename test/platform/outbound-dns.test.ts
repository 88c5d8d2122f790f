import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aresResolver, createOutboundSender, OutboundError } from '../../src/platform/outbound/index.js';

// The default resolver for customers' names is c-ares (dns.Resolver), asked here against a name server on this machine:
// the real query, parsing and time-out paths, with no real DNS. Nothing here connects anywhere.

/** Answers from `zone` (A and AAAA); a name not in it is NXDOMAIN; a name starting `hangs` is never answered. */
function fakeNameServer(zone: Record<string, string[]>) {
  const socket = dgram.createSocket('udp4');
  const dropped: string[] = [];
  const asked: string[] = [];
  socket.on('message', (query, from) => {
    let at = 12;
    const labels: string[] = [];
    while (query[at] !== 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]).toString());
      at += query[at] + 1;
    }
    const name = labels.join('.').toLowerCase();
    const type = query.readUInt16BE(at + 1);
    const question = query.subarray(12, at + 5);
    asked.push(name);
    if (name.startsWith('hangs')) return void dropped.push(name);
    const addresses = (zone[name] ?? []).filter((a) => (type === 28 ? a.includes(':') : !a.includes(':')));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(name in zone ? 0x8180 : 0x8183, 2); // answer, recursion; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(addresses.length, 6);
    const answers = addresses.map((address) => {
      const data = type === 28 ? v6Bytes(address) : Buffer.from(address.split('.').map(Number));
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name in the question
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4);
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), from.port, from.address);
  });
  return { socket, dropped, asked };
}

function v6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = Buffer.alloc(16);
  groups.forEach((g, i) => bytes.writeUInt16BE(parseInt(g, 16), i * 2));
  return bytes;
}

const server = fakeNameServer({
  'both.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'v6only.example': ['2606:2800:220:1:248:1893:25c8:1946'],
  'mixed.example': ['93.184.216.34', 'fd00::1'],
  'nodata.example': [],
});
let servers: string[];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.socket.bind(0, '127.0.0.1', resolve));
  servers = [`127.0.0.1:${server.socket.address().port}`];
});
afterAll(() => new Promise<void>((resolve) => server.socket.close(resolve)));

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(() => 'resolved', (e: unknown) => (e instanceof OutboundError ? e.reason : `not an OutboundError: ${String(e)}`));

describe('aresResolver', () => {
  it('returns the A and the AAAA records, IPv4 first; one family is enough', async () => {
    const resolve = aresResolver({ servers });
    expect(await resolve('both.example')).toEqual([
      { address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    expect(await resolve('v6only.example')).toEqual([{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }]);
  });

  it('checks every address of both families: a private AAAA beside a public A is refused', async () => {
    const sender = createOutboundSender({ lookup: aresResolver({ servers }) });
    try {
      await expect(sender.check('https://both.example/hook')).resolves.toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
      const error = await sender.check('https://mixed.example/hook').then(() => null, (e: unknown) => e);
      expect(error).toMatchObject({ reason: 'blocked_address', details: { addressClass: 'private' } });
    } finally {
      await sender.close();
    }
  });

  it('answers localhost names as loopback without asking the name server (so they are refused as loopback)', async () => {
    const before = server.asked.length;
    const sender = createOutboundSender({ lookup: aresResolver({ servers }) });
    try {
      for (const url of ['https://localhost/', 'https://api.LOCALHOST./']) {
        const error = await sender.check(url).then(() => null, (e: unknown) => e);
        expect(error).toMatchObject({ reason: 'blocked_address', details: { addressClass: 'loopback' } });
      }
      expect(server.asked.length).toBe(before);
    } finally {
      await sender.close();
    }
  });

  it('reports a name with no address, and a name that does not exist, as DNS errors', async () => {
    const sender = createOutboundSender({ lookup: aresResolver({ servers }) });
    try {
      expect(await reasonOf(sender.check('https://nodata.example/'))).toBe('dns_error');
      expect(await reasonOf(sender.check('https://nowhere.example/'))).toBe('dns_error');
      // A delivery too (the lookup fails before any connection is tried).
      expect(await reasonOf(sender.send({ url: 'https://nowhere.example/', body: '{}' }))).toBe('dns_error');
    } finally {
      await sender.close();
    }
  });

  it('reports a name server that cannot be reached as a DNS error, not as the receiver refusing', async () => {
    const closed = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => closed.bind(0, '127.0.0.1', resolve));
    const port = closed.address().port;
    await new Promise<void>((resolve) => closed.close(resolve)); // nothing listens there now: ICMP port unreachable
    const sender = createOutboundSender({ lookup: aresResolver({ servers: [`127.0.0.1:${port}`], tryMs: 200, tries: 1 }) });
    try {
      expect(await reasonOf(sender.check('https://both.example/'))).toBe('dns_error');
    } finally {
      await sender.close();
    }
  });

  // Was a bug (with dns.lookup): a name server that never answered held one of 2 shared lookup slots for 30 s and more.
  it('gives up on a name server that never answers on its own, holding up no other name meanwhile', async () => {
    const resolve = aresResolver({ servers, tryMs: 1000, tryMaxMs: 1000, tries: 2 });
    const started = performance.now();
    let given = 0;
    const hanging = Array.from({ length: 8 }, (_, i) => resolve(`hangs-${i}.example`).then(() => null, (e: NodeJS.ErrnoException) => e)
      .finally(() => given++));
    await expect(resolve('both.example')).resolves.toHaveLength(2);
    expect(given).toBe(0); // answered while all eight are still waiting (2 s each; a few ms here)
    for (const error of await Promise.all(hanging)) expect(error).toMatchObject({ code: 'EAI_AGAIN' });
    expect(performance.now() - started).toBeLessThan(10_000); // 2 tries of 1 s, not the system resolver's 30 s
    expect(server.dropped.length).toBeGreaterThanOrEqual(16); // A and AAAA for each, really sent
  });
});
