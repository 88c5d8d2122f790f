import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStorage, PARTIAL_KEPT_MS } from '../../src/storage/local.js';
import { createS3Storage, MULTIPART_PART_BYTES } from '../../src/storage/s3.js';
import type { ObjectStorage } from '../../src/storage/storage.js';
import { startS3Server, type S3Server } from '../helpers/s3.js';

let server: S3Server;
let dir: string;
const backends: Record<string, ObjectStorage> = {};

beforeAll(async () => {
  server = await startS3Server();
  dir = await mkdtemp(join(tmpdir(), 'prep-parts-'));
  backends.local = createLocalStorage({ dir, publicUrl: 'http://localhost:8080', secret: () => Buffer.alloc(32, 7) });
  backends.s3 = createS3Storage({
    bucket: server.bucket, region: 'us-east-1', endpoint: server.endpoint, forcePathStyle: true,
    accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey, prefix: 'parts/',
  });
});

afterAll(async () => {
  for (const b of Object.values(backends)) await b.close();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** `count` parts of `size` bytes, each filled with its own number, yielded one at a time (and counted as they are taken). */
function parts(count: number, size: number, taken = { n: 0 }, failAt = -1): AsyncIterable<Buffer> {
  return (async function* () {
    for (let i = 0; i < count; i++) {
      if (i === failAt) throw new Error('the source broke');
      taken.n++;
      yield Buffer.alloc(size, i + 1);
    }
  })();
}

const expected = (count: number, size: number) => Buffer.concat(Array.from({ length: count }, (_, i) => Buffer.alloc(size, i + 1)));

describe.each(['local', 's3'])('writeParts (%s)', (name) => {
  it('joins a few small parts in order', async () => {
    const storage = backends[name]!;
    await storage.writeParts('recordings/small.webm', parts(3, 1000), 'video/webm');
    expect(await storage.read('recordings/small.webm', 10_000)).toEqual(expected(3, 1000));
  });

  it('writes an object larger than one upload part, its bytes in order, taking the parts as it goes', async () => {
    const storage = backends[name]!;
    const size = 3 * 1_048_576;
    const count = Math.ceil((2 * MULTIPART_PART_BYTES) / size) + 1; // three uploads of at least one part each on S3
    await storage.writeParts('recordings/large.webm', parts(count, size), 'video/webm');
    const read = await storage.read('recordings/large.webm', count * size);
    expect(read?.length).toBe(count * size);
    expect(read!.equals(expected(count, size))).toBe(true);
  });

  it('an empty source makes an empty object', async () => {
    const storage = backends[name]!;
    await storage.writeParts('recordings/empty.webm', parts(0, 1), 'video/webm');
    expect(await storage.head('recordings/empty.webm')).toEqual({ size: 0 });
  });

  it('a source that fails leaves no object behind, nor an earlier one changed', async () => {
    const storage = backends[name]!;
    const taken = { n: 0 };
    const failAt = Math.ceil(MULTIPART_PART_BYTES / 1_048_576) + 2; // past the first upload part on S3
    await expect(storage.writeParts('recordings/broken.webm', parts(20, 1_048_576, taken, failAt), 'video/webm')).rejects.toThrow('the source broke');
    expect(taken.n).toBe(failAt);
    expect(await storage.head('recordings/broken.webm')).toBeNull();
    await storage.write('recordings/kept.webm', Buffer.from('kept'), 'video/webm');
    await expect(storage.writeParts('recordings/kept.webm', parts(3, 10, { n: 0 }, 1), 'video/webm')).rejects.toThrow();
    expect((await storage.read('recordings/kept.webm', 100))!.toString()).toBe('kept');
    if (name === 'local') expect((await readdir(join(dir, 'recordings'))).filter((f) => f.endsWith('.part'))).toEqual([]);
  });
});

describe('local storage, a write killed midway', () => {
  // Was a bug: a write's temporary file sat beside its object (`<key>.<hex>.part`); a process killed mid-write left it
  // there for good, as erasure and every sweep delete exact keys (a resume upload's bytes, a recording's).
  it('leaves its temporary file under .partial/, which the sweep empties of files untouched for an hour', async () => {
    let clock = Date.now();
    const storage = createLocalStorage({ dir, publicUrl: 'http://localhost:8080', secret: () => Buffer.alloc(32, 7), now: () => clock });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const writing = storage.writeParts('resumes/uploads/killed.pdf', (async function* () {
      yield Buffer.from('%PDF-1.7 half');
      await held; // the process "dies" here
    })(), 'application/pdf');
    // Until its temporary file is made (on libuv's threads: waited for, not given 50 ms).
    await expect.poll(() => readdir(join(dir, '.partial')).catch(() => []), { timeout: 10_000, interval: 10 }).toHaveLength(1);
    expect(await readdir(join(dir, 'resumes/uploads'))).toEqual([]);
    expect(await storage.sweep()).toBe(0); // fresh: a write under way
    clock += PARTIAL_KEPT_MS + 60_000;
    expect(await storage.sweep()).toBe(1);
    expect(await readdir(join(dir, '.partial'))).toEqual([]);
    release();
    await expect(writing).rejects.toThrow(); // its file was swept: the rename fails, nothing appears
    expect(await storage.head('resumes/uploads/killed.pdf')).toBeNull();
  });
});
