import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app-types.js';
import { createLocalStorage, type LocalStorage } from '../../src/storage/local.js';
import { storageRoutes } from '../../src/storage/routes.js';

// Was a defect (a hostile review of storage): an upload through a local storage URL had no time limit (Fastify's
// requestTimeout is 0). A PUT whose body stopped coming (a dropped network, a sleeping laptop, or on purpose) held
// its link (every retry 429 "already under way") and its share of the 256 MiB in flight for as long as the
// connection lived; enough of them made every upload of the process 503.
// Long enough beside what the tests do meanwhile (a request, a timer of a tenth or a fifth of the idle limit) that a
// loaded machine's late timers do not reach them.
const IDLE_MS = 1000;
const TOTAL_MS = 4000;
const TEXT = 'Maria Gonzalez\nmaria@example.com\nBackend engineer.\n';

let dir: string;
let app: App;
let storage: LocalStorage;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'prep-stall-'));
  storage = createLocalStorage({ dir, publicUrl: 'http://127.0.0.1', secret: () => Buffer.alloc(32, 7) });
  app = Fastify({ logger: false }) as unknown as App;
  storageRoutes(app, storage, { idleMs: IDLE_MS, totalMs: TOTAL_MS });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function signedPath(key: string): Promise<string> {
  const { url } = await storage.signedPutUrl(key, { expiresIn: 900, maxBytes: 1_048_576 });
  const u = new URL(url);
  return u.pathname + u.search;
}

/** A chunked PUT that sends its headers and `first`, then what `more` says; resolves with when the server closed it. */
function startUpload(target: string, first: string): { socket: Socket; closed: Promise<number> } {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
  socket.write(`PUT ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n${first.length.toString(16)}\r\n${first}\r\n`);
  return { socket, closed };
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms))]);

const put = (target: string) => fetch(`http://127.0.0.1:${port}${target}`, { method: 'PUT', body: TEXT });

describe('an upload whose body stops coming', () => {
  it('is dropped after the idle limit, and its link takes the next upload', async () => {
    const target = await signedPath('stall/idle');
    const started = Date.now();
    // Under way once the route reads its body (it holds the link from before that), not after a fixed wait.
    const receive = storage.receive;
    let reading!: () => void;
    const underWay = new Promise<void>((resolve) => { reading = resolve; });
    storage.receive = (...args) => { reading(); return receive.apply(storage, args); };
    const { socket, closed } = startUpload(target, 'Maria');
    try {
      await underWay;
    } finally {
      storage.receive = receive;
    }
    expect((await put(target)).status).toBe(429); // under way
    const at = await within(closed, IDLE_MS + 2000);
    socket.destroy();
    expect(at).not.toBe('still open');
    expect((at as number) - started).toBeGreaterThanOrEqual(IDLE_MS - 50);
    expect((await put(target)).status).toBe(200);
  });

  it('is dropped after the total limit even when a byte keeps coming', async () => {
    const target = await signedPath('stall/trickle');
    const started = Date.now();
    const { socket, closed } = startUpload(target, 'M');
    const trickle = setInterval(() => socket.writable && socket.write('1\r\na\r\n'), IDLE_MS / 10);
    const at = await within(closed, TOTAL_MS + 2000);
    clearInterval(trickle);
    socket.destroy();
    expect(at).not.toBe('still open');
    expect((at as number) - started).toBeGreaterThanOrEqual(TOTAL_MS - 50);
    expect((await put(target)).status).toBe(200);
  });

  it('a slow upload that keeps coming and ends in time is stored', async () => {
    const target = await signedPath('stall/slow');
    const { socket, closed } = startUpload(target, TEXT.slice(0, 10));
    let answer = '';
    socket.on('data', (d) => { answer += d.toString(); });
    for (const part of [TEXT.slice(10, 20), TEXT.slice(20)]) {
      await new Promise((r) => setTimeout(r, IDLE_MS / 5));
      socket.write(`${part.length.toString(16)}\r\n${part}\r\n`);
    }
    socket.write('0\r\n\r\n');
    await within(new Promise((r) => socket.once('data', r)), 2000);
    socket.destroy();
    await closed;
    expect(answer).toMatch(/^HTTP\/1.1 200/);
    expect((await storage.read('stall/slow', 1000))?.toString()).toBe(TEXT);
  });
});
