import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createS3Storage, type S3StorageConfig } from '../../src/storage/s3.js';
import { ObjectTooLarge, type ObjectStorage } from '../../src/storage/storage.js';
import { startS3Server, type S3Server } from '../helpers/s3.js';

let server: S3Server;
let endpoint: string;
let storage: ObjectStorage;
let bare: ObjectStorage; // same bucket, no prefix: sees the raw keys

function config(prefix: string): S3StorageConfig {
  return { bucket: server.bucket, region: 'us-east-1', endpoint, forcePathStyle: true, accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey, prefix };
}

beforeAll(async () => {
  server = await startS3Server();
  endpoint = server.endpoint;
  storage = createS3Storage(config('tenant-1/'));
  bare = createS3Storage(config(''));
});

afterAll(async () => {
  await storage?.close();
  await bare?.close();
  await server?.close();
});

// Was a bug: the S3 client had no time limit, so an endpoint that accepted connections and never answered held a
// request (an upload's check, an erasure's deletions, a recording join) for ever.
describe('S3 storage against a server that never answers', () => {
  it('gives up on a request once the server has said nothing for the idle limit', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => { sockets.push(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const hung = createS3Storage({ ...config(''), endpoint: `http://127.0.0.1:${port}`, idleTimeoutMs: 300 });
    try {
      const started = Date.now();
      const outcome = await Promise.race([
        hung.head('resumes/a.pdf').then(() => 'answered', (e: Error) => `failed: ${e.name}`),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 15_000)),
      ]);
      expect(outcome).toMatch(/^failed/);
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await hung.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 30_000);
});

// Was a defect (a hostile review of storage): DeleteObjects answers 200 and names in its body the keys it could not
// delete (Quiet mode lists only those), and deletePrefix ignored them: an erasure's deletion succeeded with the files
// still there, and was never tried again; with more than a page of keys it listed and failed on the same page for ever.
describe('S3 storage against a server that cannot delete some keys', () => {
  it('deletePrefix fails (so its job is tried again) when the server names keys it did not delete', async () => {
    let lists = 0;
    const fake = createHttpServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      res.setHeader('content-type', 'application/xml');
      if (req.method === 'GET' && url.searchParams.get('list-type') === '2') {
        lists++;
        return res.end(`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>prep-test</Name><Prefix>p/</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>t</NextContinuationToken><Contents><Key>p/a</Key><Size>1</Size></Contents><Contents><Key>p/b</Key><Size>1</Size></Contents></ListBucketResult>`);
      }
      if (req.method === 'POST' && url.searchParams.has('delete')) {
        req.resume();
        return req.on('end', () => res.end(`<?xml version="1.0" encoding="UTF-8"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Error><Key>p/a</Key><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error></DeleteResult>`));
      }
      res.statusCode = 400;
      res.end('<Error><Code>NotImplemented</Code></Error>');
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    const port = (fake.address() as { port: number }).port;
    const failing = createS3Storage({ ...config(''), endpoint: `http://127.0.0.1:${port}` });
    try {
      const outcome = await Promise.race([
        failing.deletePrefix('p/').then(() => 'resolved', (e: Error) => `failed: ${e.message}`),
        new Promise((resolve) => setTimeout(() => resolve('still listing'), 3000)),
      ]);
      expect(outcome).toMatch(/^failed: .*p\/a.*InternalError/);
      expect(lists).toBe(1);
    } finally {
      await failing.close();
      await new Promise((resolve) => fake.close(resolve));
    }
  });
});

describe('S3 storage (s3rver)', () => {
  it('a presigned PUT needs no checksum header, accepts a plain fetch PUT, and head/read give the bytes', async () => {
    const { url, expiresIn } = await storage.signedPutUrl('resumes/a.pdf', { expiresIn: 60, maxBytes: 1024 });
    expect(expiresIn).toBe(60);
    const query = new URL(url).searchParams;
    expect(query.get('X-Amz-SignedHeaders')).toBe('host');
    expect([...query.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);

    const body = Buffer.from('%PDF-1.4 hello');
    const res = await fetch(url, { method: 'PUT', body });
    expect(res.status).toBe(200);
    expect(await storage.head('resumes/a.pdf')).toEqual({ size: body.length });
    expect(await storage.read('resumes/a.pdf', body.length)).toEqual(body);
  });

  it('head and read of a missing key give null', async () => {
    expect(await storage.head('resumes/missing.pdf')).toBeNull();
    expect(await storage.read('resumes/missing.pdf', 10)).toBeNull();
  });

  it('read past maxBytes throws ObjectTooLarge', async () => {
    await storage.write('resumes/big.bin', Buffer.alloc(100, 1), 'application/octet-stream');
    const err = await storage.read('resumes/big.bin', 99).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectTooLarge);
    expect((err as ObjectTooLarge).maxBytes).toBe(99);
  });

  it('a signed GET URL returns the bytes with the download name and content type', async () => {
    await storage.write('resumes/b.pdf', Buffer.from('bytes of b'), 'application/octet-stream');
    const { url } = await storage.signedGetUrl('resumes/b.pdf', { expiresIn: 60, fileName: 'Résumé "final".pdf', contentType: 'application/pdf' });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('bytes of b');
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition'))
      .toBe(`attachment; filename="R_sum_ _final_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.pdf`);
  });

  it('deletePrefix deletes every object under a folder, and nothing beside it', async () => {
    for (const key of ['interviews/o/i/recording/000000.part', 'interviews/o/i/recording/000009.part', 'interviews/o/i/recording.webm', 'interviews/o/i/recordings/x']) {
      await storage.write(key, Buffer.from(key), 'application/octet-stream');
    }
    await bare.write('interviews/o/i/recording/000001.part', Buffer.from('outside this storage\'s prefix'), 'application/octet-stream');
    await storage.deletePrefix('interviews/o/i/recording/');
    expect(await storage.head('interviews/o/i/recording/000000.part')).toBeNull();
    expect(await storage.head('interviews/o/i/recording/000009.part')).toBeNull();
    expect(await storage.head('interviews/o/i/recording.webm')).not.toBeNull();
    expect(await storage.head('interviews/o/i/recordings/x')).not.toBeNull();
    expect(await bare.head('interviews/o/i/recording/000001.part')).not.toBeNull();
    await storage.deletePrefix('interviews/o/i/recording/'); // nothing left: not an error
    await expect(storage.deletePrefix('interviews/o/i/recording')).rejects.toThrow(/ending in \//);
  });

  it('list gives every object under a folder with its size, keys without the prefix, and nothing beside it', async () => {
    for (const [key, size] of [['interviews/o/l/recording/000000.part', 3], ['interviews/o/l/recording/000001.part', 5], ['interviews/o/l/recording.webm', 7]] as const) {
      await storage.write(key, Buffer.alloc(size), 'application/octet-stream');
    }
    await bare.write('interviews/o/l/recording/000002.part', Buffer.alloc(1), 'application/octet-stream'); // outside the prefix
    const listed = (await storage.list('interviews/o/l/recording/')).sort((a, b) => a.key.localeCompare(b.key));
    expect(listed).toEqual([{ key: 'interviews/o/l/recording/000000.part', size: 3 }, { key: 'interviews/o/l/recording/000001.part', size: 5 }]);
    expect(await storage.list('interviews/o/none/')).toEqual([]);
    await expect(storage.list('interviews/o/l/recording')).rejects.toThrow(/ending in \//);
  });

  it('a tampered signed GET URL is refused', async () => {
    await storage.write('resumes/c.pdf', Buffer.from('c'), 'application/pdf');
    const { url } = await storage.signedGetUrl('resumes/c.pdf', { expiresIn: 60, fileName: 'c.pdf' });
    expect((await fetch(url)).status).toBe(200);

    const renamed = new URL(url);
    renamed.searchParams.set('response-content-disposition', 'attachment; filename="evil.exe"');
    expect((await fetch(renamed)).status).toBe(403);

    const resigned = new URL(url);
    const sig = resigned.searchParams.get('X-Amz-Signature')!;
    resigned.searchParams.set('X-Amz-Signature', (sig[0] === '0' ? '1' : '0') + sig.slice(1));
    expect((await fetch(resigned)).status).toBe(403);
  });

  it('an expired signed GET URL is refused', async () => {
    await storage.write('resumes/d.pdf', Buffer.from('d'), 'application/pdf');
    const { url } = await storage.signedGetUrl('resumes/d.pdf', { expiresIn: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Request has expired');
  });

  it('delete removes an object; deleting a missing key resolves', async () => {
    await storage.write('resumes/src.pdf', Buffer.from('original'), 'application/pdf');
    await storage.delete('resumes/src.pdf');
    expect(await storage.head('resumes/src.pdf')).toBeNull();
    await expect(storage.delete('resumes/never-was.pdf')).resolves.toBeUndefined();
  });

  it('the prefix is prepended to every key', async () => {
    await storage.write('resumes/e.pdf', Buffer.from('e'), 'application/pdf');
    expect((await bare.read('tenant-1/resumes/e.pdf', 10))?.toString()).toBe('e');
    expect(await bare.head('resumes/e.pdf')).toBeNull();
  });
});
