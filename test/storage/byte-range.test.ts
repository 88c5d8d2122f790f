import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app-types.js';
import { registerErrorHandling } from '../../src/platform/error-handler.js';
import { createLocalStorage, type LocalStorage } from '../../src/storage/local.js';
import { storageRoutes } from '../../src/storage/routes.js';

// Was missing: a signed GET ignored Range and always sent the whole file, so a recording could not be sought in
// (browsers' <video> asks for ranges) and a broken download started again from its first byte.
const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

let dir: string;
let app: App;
let storage: LocalStorage;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'prep-range-'));
  storage = createLocalStorage({ dir, publicUrl: 'http://127.0.0.1', secret: () => Buffer.alloc(32, 7) });
  app = Fastify({ logger: false }) as unknown as App;
  registerErrorHandling(app, 'http://127.0.0.1');
  storageRoutes(app, storage);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  await storage.write('recordings/r1', BYTES, 'video/webm');
  await storage.write('empty/e1', Buffer.alloc(0), 'text/plain');
  const signed = new URL((await storage.signedGetUrl('recordings/r1', { expiresIn: 900, contentType: 'video/webm' })).url);
  url = `${address}${signed.pathname}${signed.search}`;
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (headers: Record<string, string> = {}) => fetch(url, { headers });
const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('a signed GET with a Range header', () => {
  it('answers one range with 206, Content-Range and just those bytes', async () => {
    const res = await get({ range: 'bytes=100-199' });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe('bytes 100-199/1000');
    expect(res.headers.get('content-length')).toBe('100');
    expect(res.headers.get('content-type')).toBe('video/webm');
    expect(await bytesOf(res)).toEqual(BYTES.subarray(100, 200));
  });

  it('reads open-ended and suffix ranges, and clamps an end past the file', async () => {
    const open = await get({ range: 'bytes=990-' });
    expect([open.status, open.headers.get('content-range')]).toEqual([206, 'bytes 990-999/1000']);
    expect(await bytesOf(open)).toEqual(BYTES.subarray(990));
    const suffix = await get({ range: 'bytes=-10' });
    expect([suffix.status, suffix.headers.get('content-range')]).toEqual([206, 'bytes 990-999/1000']);
    expect(await bytesOf(suffix)).toEqual(BYTES.subarray(990));
    const past = await get({ range: 'bytes=995-5000' });
    expect([past.status, past.headers.get('content-range')]).toEqual([206, 'bytes 995-999/1000']);
    expect(await bytesOf(past)).toEqual(BYTES.subarray(995));
  });

  it('says it takes ranges, and sends the whole file without one', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(await bytesOf(res)).toEqual(BYTES);
  });

  it('sends the whole file for several ranges, a malformed header, another unit or an If-Range', async () => {
    const cases: Record<string, string>[] = [
      { range: 'bytes=0-9,500-509' },
      { range: 'bytes=abc' },
      { range: 'bytes=50-10' },
      { range: 'items=0-9' },
      { range: 'bytes=0-9', 'if-range': '"v1"' },
    ];
    for (const headers of cases) {
      const res = await get(headers);
      expect([headers, res.status]).toEqual([headers, 200]);
      expect(await bytesOf(res)).toEqual(BYTES);
    }
  });

  it('refuses a range wholly past the end with 416 in the error envelope and the size', async () => {
    const res = await get({ range: 'bytes=1000-' });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe('bytes */1000');
    const body = (await res.json()) as { error: { code: string; param: string } };
    expect(body.error).toMatchObject({ code: 'range_not_satisfiable', param: 'Range' });
  });

  it('still checks the signature before anything else', async () => {
    const res = await fetch(url.replace(/sig=[^&]+/, 'sig=AAAA'), { headers: { range: 'bytes=0-9' } });
    expect(res.status).toBe(403);
  });

  it('sends an empty file whole (there is no byte to range over)', async () => {
    const signed = new URL((await storage.signedGetUrl('empty/e1', { expiresIn: 900 })).url);
    const res = await fetch(url.replace(/\/files\/.*$/, `${signed.pathname}${signed.search}`), { headers: { range: 'bytes=-5' } });
    expect(res.status).toBe(200);
    expect((await bytesOf(res)).length).toBe(0);
  });
});
