import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  checkAddresses, classifyAddress, createOutboundSender, OutboundError,
  type OutboundSender, type OutboundSenderOptions,
} from '../../src/platform/outbound/index.js';
import { selfSignedCertificate } from '../helpers/tls.js';

// Everything here stays on this machine: fake resolvers only ever answer with local addresses
// (127.x, ::1, 0.0.0.0), and non-local targets are only checked (check()/checkAddresses), never sent to.

describe('classifyAddress', () => {
  const table: Array<[string, string]> = [
    ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'], ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'], ['100.127.255.254', 'cgnat'], ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['172.32.0.1', 'public'], ['172.15.255.255', 'public'],
    ['192.0.0.8', 'reserved'], ['192.0.2.10', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'], ['198.19.255.255', 'benchmarking'], ['198.20.0.1', 'public'],
    ['198.51.100.7', 'documentation'], ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'], ['255.255.255.254', 'reserved'], ['255.255.255.255', 'broadcast'],
    ['8.8.8.8', 'public'], ['1.1.1.1', 'public'],
    ['::', 'unspecified'], ['::1', 'loopback'], ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'private'], ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'], ['fe80::1%eth0', 'link-local'], ['febf::1', 'link-local'],
    ['ff02::1', 'multicast'], ['ff0e::1', 'multicast'],
    ['2001:db8::1', 'documentation'], ['2001:DB8:ffff::1', 'documentation'],
    ['::ffff:127.0.0.1', 'ipv4-mapped-loopback'], ['::ffff:7f00:1', 'ipv4-mapped-loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'ipv4-mapped-loopback'], ['::ffff:10.1.2.3', 'ipv4-mapped-private'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped-link-local'], ['::ffff:0.0.0.0', 'ipv4-mapped-unspecified'], ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::127.0.0.1', 'nat64-loopback'], ['64:ff9b::a00:1', 'nat64-private'], ['64:ff9b::c0a8:101', 'nat64-private'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::1', '6to4-loopback'], ['2002:a00:1::', '6to4-private'], ['2002:c0a8:101::1', '6to4-private'],
    ['2002:808:808::1', 'public'],
    ['::127.0.0.1', 'reserved'], ['2001::1', 'reserved'], ['100::1', 'reserved'], ['::2', 'reserved'],
    ['2606:4700:4700::1111', 'public'], ['2001:4860:4860::8888', 'public'],
    ['example.com', 'invalid'], ['256.0.0.1', 'invalid'], ['', 'invalid'],
  ];
  it.each(table)('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe('checkAddresses', () => {
  const policy = { allowLoopbackHosts: new Set(['localhost']), allowHttp: false };
  const reasonOf = (host: string, addresses: string[], literal = false) => {
    try {
      checkAddresses(host, addresses, policy, literal);
      return 'ok';
    } catch (err) {
      expect(err).toBeInstanceOf(OutboundError);
      return `${(err as OutboundError).reason}:${(err as OutboundError).details.addressClass}`;
    }
  };

  it('refuses a name when any one of its addresses is not public', () => {
    expect(reasonOf('example.test', ['8.8.8.8', '2606:4700:4700::1111'])).toBe('ok');
    expect(reasonOf('example.test', ['8.8.8.8', '10.0.0.1'])).toBe('blocked_address:private');
    expect(reasonOf('example.test', ['2606:4700:4700::1111', 'fe80::1'])).toBe('blocked_address:link-local');
  });

  it('lets allowlisted names reach loopback only, never private or mapped forms, and never as IP literals', () => {
    expect(reasonOf('localhost', ['127.0.0.1', '::1'])).toBe('ok');
    expect(reasonOf('LOCALHOST.', ['127.0.0.1'])).toBe('ok');
    expect(reasonOf('localhost', ['127.0.0.1', '10.0.0.1'])).toBe('blocked_address:private');
    expect(reasonOf('localhost', ['::ffff:127.0.0.1'])).toBe('blocked_address:ipv4-mapped-loopback');
    expect(reasonOf('other.test', ['127.0.0.1'])).toBe('blocked_address:loopback');
    expect(reasonOf('127.0.0.1', ['127.0.0.1'], true)).toBe('blocked_address:loopback');
  });
});

// ---- real receivers on 127.0.0.1 -------------------------------------------------------------------

let certificate: ReturnType<typeof selfSignedCertificate>;
let ca: Buffer;
let tlsServer: https.Server;
let plainServer: http.Server;
let tlsPort: number;
let plainPort: number;
/** Requests seen per path, and TCP connections accepted per server. */
const hits = new Map<string, number>();
const connections = { tls: 0, plain: 0 };
const received: Array<{ method?: string; headers: http.IncomingHttpHeaders; body: string }> = [];
/** Bytes the /huge route managed to write before the client went away, and whether it did. */
const huge = { written: 0, closed: false };

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = req.url ?? '/';
  hits.set(path, (hits.get(path) ?? 0) + 1);
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() });
    if (path === '/ok') res.end('hello');
    else if (path === '/status/500') res.writeHead(500).end('boom');
    else if (path === '/redirect') res.writeHead(302, { location: `https://localhost:${tlsPort}/target` }).end('moved');
    else if (path === '/redirect-private') res.writeHead(307, { location: `http://127.0.0.1:${plainPort}/target` }).end();
    else if (path === '/target') res.end('followed');
    else if (path === '/delay') setTimeout(() => res.end('late'), 150);
    else if (path === '/hang') { /* never answers */ }
    else if (path === '/slow-body') res.writeHead(200).write('partial'); // headers and a little body, then nothing
    else if (path === '/exact') res.end('x'.repeat(16));
    else if (path === '/utf8') res.end('€'.repeat(10)); // 3 bytes each
    else if (path === '/huge') streamForever(res);
    else res.writeHead(404).end();
  });
}

/** Writes 64 KiB chunks until the client disconnects: the body has no end to wait for. */
function streamForever(res: http.ServerResponse): void {
  huge.written = 0;
  huge.closed = false;
  const chunk = Buffer.alloc(64 * 1024, 'a');
  res.on('close', () => { huge.closed = true; });
  res.writeHead(200, { 'content-type': 'text/plain' });
  const pump = () => {
    while (!res.destroyed && huge.written < 1024 ** 3) {
      huge.written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  pump();
}

const listen = (server: net.Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

beforeAll(async () => {
  // A throwaway self-signed certificate for localhost and receiver.test, made now and deleted after.
  certificate = selfSignedCertificate();
  ca = certificate.cert;
  tlsServer = https.createServer({ key: certificate.key, cert: ca }, route);
  tlsServer.on('connection', () => connections.tls++);
  plainServer = http.createServer(route);
  plainServer.on('connection', () => connections.plain++);
  tlsPort = await listen(tlsServer);
  plainPort = await listen(plainServer);
});

afterAll(async () => {
  for (const server of [tlsServer, plainServer]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  certificate.remove();
});

const senders: OutboundSender[] = [];
afterEach(async () => {
  tlsServer.closeAllConnections();
  plainServer.closeAllConnections();
  await Promise.all(senders.splice(0).map((s) => s.close()));
});

function sender(options: OutboundSenderOptions = {}): OutboundSender {
  const s = createOutboundSender(options);
  senders.push(s);
  return s;
}

/** A resolver that knows only the given names (all answering with local addresses) and counts its calls. */
function fakeDns(table: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

/** The OutboundError a promise rejects with (fails the test if it resolves or throws something else). */
async function refusal(promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err, 'expected an OutboundError').toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

const testMode = () => ({ allowLoopbackHosts: ['localhost'], ca });
const post = (s: OutboundSender, url: string, timeoutMs?: number) =>
  s.send({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}', timeoutMs });

describe('createOutboundSender: reaching a receiver', () => {
  it('POSTs to an https receiver on localhost when test mode allows it, and reports status, body and time', async () => {
    received.length = 0;
    const res = await sender(testMode()).send({
      url: `https://localhost:${tlsPort}/ok`, headers: { 'content-type': 'application/json', 'svc-event-id': 'whevt_1' }, body: '{"a":1}',
    });
    expect(res).toMatchObject({ status: 200, body: 'hello', truncated: false });
    expect(typeof res.durationMs).toBe('number');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(received[0].headers['svc-event-id']).toBe('whevt_1');
  });

  it('returns non-2xx statuses as responses, not errors', async () => {
    expect(await post(sender(testMode()), `https://localhost:${tlsPort}/status/500`)).toMatchObject({ status: 500, body: 'boom' });
  });

  it('measures the response time', async () => {
    const res = await post(sender(testMode()), `https://localhost:${tlsPort}/delay`);
    expect(res.body).toBe('late');
    expect(res.durationMs).toBeGreaterThanOrEqual(140);
    expect(res.durationMs).toBeLessThan(5_000);
  });

  it('connects to the address it resolved and checked, once, while TLS verifies the host name', async () => {
    const dns = fakeDns({ 'receiver.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
    const s = sender({ allowLoopbackHosts: ['receiver.test', 'other.test'], ca, lookup: dns.lookup });
    // receiver.test exists only in the fake resolver: a second, system resolution would fail.
    expect(await post(s, `https://receiver.test:${tlsPort}/ok`)).toMatchObject({ status: 200, body: 'hello' });
    expect(dns.calls).toEqual(['receiver.test']);
    // Same address, but the certificate does not name other.test: the check is against the name, not the IP.
    const err = await refusal(post(s, `https://other.test:${tlsPort}/ok`));
    expect(err.reason).toBe('tls_error');
  });
});

describe('createOutboundSender: refusals', () => {
  it('refuses localhost without the test allowlist, before connecting', async () => {
    const before = connections.tls;
    const err = await refusal(post(sender({ ca }), `https://localhost:${tlsPort}/ok`));
    expect(err.reason).toBe('blocked_address');
    expect(err.details.addressClass).toMatch(/loopback/);
    expect(connections.tls).toBe(before);
  });

  it('refuses the self-signed receiver without the test CA', async () => {
    const before = hits.get('/ok') ?? 0;
    const err = await refusal(post(sender({ allowLoopbackHosts: ['localhost'] }), `https://localhost:${tlsPort}/ok`));
    expect(err.reason).toBe('tls_error');
    expect(hits.get('/ok') ?? 0).toBe(before);
  });

  it('refuses a name that resolves to loopback, unspecified or mapped-loopback addresses, before connecting', async () => {
    const dns = fakeDns({
      'evil.test': ['127.0.0.1'], 'evil6.test': ['::1'], 'mapped.test': ['::ffff:127.0.0.1'],
      'zero.test': ['0.0.0.0'], 'mixed.test': ['127.0.0.1', '0.0.0.0'],
    });
    // localhost and mixed.test are allowlisted: evil.test is not, and mixed.test has a non-loopback address.
    const s = sender({ ...testMode(), allowLoopbackHosts: ['localhost', 'mixed.test', 'mapped.test'], lookup: dns.lookup });
    const before = connections.tls;
    const cases: Array<[string, string]> = [
      ['evil.test', 'loopback'], ['evil6.test', 'loopback'], ['mapped.test', 'ipv4-mapped-loopback'],
      ['zero.test', 'unspecified'], ['mixed.test', 'unspecified'],
    ];
    for (const [host, addressClass] of cases) {
      const err = await refusal(post(s, `https://${host}:${tlsPort}/ok`));
      expect([host, err.reason, err.details.addressClass]).toEqual([host, 'blocked_address', addressClass]);
    }
    expect(connections.tls).toBe(before);
    expect(dns.calls).toEqual(cases.map(([host]) => host));
  });

  it('refuses private and loopback IP-literal URLs, in every spelling, even in test mode', async () => {
    const s = sender({ ...testMode(), allowLoopbackHosts: ['localhost', '127.0.0.1', '::1'] });
    const before = connections.tls;
    const literals: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'], ['[::1]', 'loopback'], ['[::ffff:127.0.0.1]', 'ipv4-mapped-loopback'],
      ['[::ffff:7f00:1]', 'ipv4-mapped-loopback'], ['2130706433', 'loopback'], ['0x7f.1', 'loopback'],
      ['0.0.0.0', 'unspecified'], ['[::]', 'unspecified'], ['127.1', 'loopback'],
    ];
    for (const [host, addressClass] of literals) {
      const err = await refusal(post(s, `https://${host}:${tlsPort}/ok`));
      expect([host, err.reason, err.details.addressClass]).toEqual([host, 'blocked_address', addressClass]);
    }
    expect(connections.tls).toBe(before);
  });

  it('check() refuses non-local private targets without any connection', async () => {
    const s = sender();
    const targets: Array<[string, string]> = [
      ['https://10.0.0.1/hook', 'private'], ['https://169.254.169.254/latest', 'link-local'],
      ['https://[fe80::1]/', 'link-local'], ['https://[fd00::1]/', 'private'], ['https://100.64.0.1/', 'cgnat'],
      ['https://[64:ff9b::192.168.0.1]/', 'nat64-private'], ['https://[2002:a9fe:a9fe::1]/', '6to4-link-local'],
      ['https://192.168.1.1/', 'private'], ['https://[ff02::1]/', 'multicast'],
    ];
    for (const [url, addressClass] of targets) {
      const err = await refusal(s.check(url));
      expect([url, err.reason, err.details.addressClass]).toEqual([url, 'blocked_address', addressClass]);
    }
    const dns = fakeDns({ 'inside.test': ['10.1.2.3'], 'outside.test': ['8.8.8.8', '2606:4700:4700::1111'] });
    const checked = sender({ lookup: dns.lookup });
    expect((await refusal(checked.check('https://inside.test/'))).details.addressClass).toBe('private');
    expect(await checked.check('https://outside.test/x')).toEqual(['8.8.8.8', '2606:4700:4700::1111']);
    expect((await refusal(checked.check('https://nowhere.test/'))).reason).toBe('dns_error');
  });

  // The message reaches the customer (registration's 400, each attempt's error): a name's private addresses, as Prep's
  // resolver sees them (split-horizon DNS, a CNAME to an internal name), are not theirs to learn.
  it('does not tell which non-public address a name resolved to', async () => {
    const dns = fakeDns({ 'inside.test': ['10.1.2.3'], 'cname.test': ['2606:4700:4700::1111', 'fd12:3456::7'] });
    const s = sender({ lookup: dns.lookup });
    for (const [host, address, addressClass] of [['inside.test', '10.1.2.3', 'private'], ['cname.test', 'fd12:3456::7', 'private']]) {
      const err = await refusal(s.check(`https://${host}/`));
      expect([err.reason, err.details.addressClass, err.details.address]).toEqual(['blocked_address', addressClass, address]);
      expect(err.message).toContain(host);
      expect(err.message).not.toContain(address);
    }
  });

  it('refuses http, other schemes, credentials and garbage', async () => {
    const before = connections.plain;
    const s = sender(testMode());
    expect((await refusal(post(s, `http://localhost:${plainPort}/ok`))).reason).toBe('scheme_not_allowed');
    expect((await refusal(post(s, `ftp://localhost:${plainPort}/ok`))).reason).toBe('scheme_not_allowed');
    expect((await refusal(post(s, `https://user:pw@localhost:${tlsPort}/ok`))).reason).toBe('invalid_url');
    expect((await refusal(post(s, 'not a url'))).reason).toBe('invalid_url');
    // allowHttp applies to the allowlisted names only.
    const dns = fakeDns({ 'evil.test': ['127.0.0.1'], localhost: ['127.0.0.1'] });
    const lax = sender({ ...testMode(), allowHttp: true, lookup: dns.lookup });
    expect((await refusal(post(lax, `http://evil.test:${plainPort}/ok`))).reason).toBe('scheme_not_allowed');
    expect(connections.plain).toBe(before);
    expect(await post(lax, `http://localhost:${plainPort}/ok`)).toMatchObject({ status: 200, body: 'hello' });
    expect(connections.plain).toBe(before + 1);
  });
});

describe('createOutboundSender: redirects, time-outs and large bodies', () => {
  it('does not follow redirects: the 3xx is the response and the target is never hit', async () => {
    hits.delete('/target');
    const s = sender({ ...testMode(), allowHttp: true });
    expect(await post(s, `https://localhost:${tlsPort}/redirect`)).toMatchObject({ status: 302, body: 'moved' });
    expect(await post(s, `https://localhost:${tlsPort}/redirect-private`)).toMatchObject({ status: 307, body: '' });
    expect(hits.get('/target')).toBeUndefined();
  });

  it('cuts off a receiver that never answers at the time limit', async () => {
    const started = Date.now();
    const err = await refusal(post(sender(testMode()), `https://localhost:${tlsPort}/hang`, 300));
    expect(err.reason).toBe('timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('counts the body in the time limit, and DNS too', async () => {
    const slow = await refusal(sender({ ...testMode(), timeoutMs: 300 }).send({ url: `https://localhost:${tlsPort}/slow-body` }));
    expect(slow.reason).toBe('timeout');
    // Per-request limits below the sender's 10 s default, so undici's own connect time-out cannot save the day.
    const stuck = sender({ lookup: () => new Promise<LookupAddress[]>(() => {}) });
    const started = Date.now();
    expect((await refusal(stuck.send({ url: 'https://stuck.test/', timeoutMs: 300 }))).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('counts the TLS handshake in the time limit', async () => {
    // Accepts TCP and never speaks: the handshake never completes.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    const port = await listen(silent);
    try {
      const started = Date.now();
      const err = await refusal(sender(testMode()).send({ url: `https://localhost:${port}/`, timeoutMs: 300 }));
      expect(err.reason).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('keeps only the first 2048 bytes of an endless body and hangs up instead of reading on', async () => {
    const started = Date.now();
    const res = await post(sender(testMode()), `https://localhost:${tlsPort}/huge`, 5_000);
    expect(res.status).toBe(200);
    expect(res.body).toBe('a'.repeat(2048));
    expect(res.truncated).toBe(true);
    expect(Date.now() - started).toBeLessThan(4_000);
    await expect.poll(() => huge.closed).toBe(true);
    expect(huge.written).toBeLessThan(64 * 1024 * 1024);
  });

  it('honours a configured cap, does not flag a body that fits exactly, and never splits a character', async () => {
    const s = sender({ ...testMode(), maxBodyBytes: 16 });
    expect(await post(s, `https://localhost:${tlsPort}/exact`)).toMatchObject({ body: 'x'.repeat(16), truncated: false });
    expect(await post(s, `https://localhost:${tlsPort}/huge`)).toMatchObject({ body: 'a'.repeat(16), truncated: true });
    expect(await post(s, `https://localhost:${tlsPort}/utf8`)).toMatchObject({ body: '€'.repeat(5), truncated: true });
  });
});

// Was a bug: the registration-time check waited on the name server with no limit of its own, so a name whose server
// never answered held the registration request (a delivery's lookup was already within its time limit).
describe('the registration-time check', () => {
  it('gives up on a name that does not resolve within the time limit', async () => {
    const s = sender({ timeoutMs: 200, lookup: () => new Promise<LookupAddress[]>(() => {}) });
    const started = performance.now();
    const error = await s.check('https://hangs.example/hook').then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ reason: 'timeout' });
    expect((error as Error).message).toBe('hangs.example did not resolve within 0.2 s.');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
