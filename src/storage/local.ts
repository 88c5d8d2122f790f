/**
 * The default object storage: files under a directory of the data dir, reached by clients through URLs the service
 * signs itself (HMAC-SHA256 over method, key, expiry, size limit and download options) and answers itself
 * (storage/routes.ts). Writes land in a temporary file under `.partial/` (no key can start with a dot) and are renamed
 * into place, so a reader never sees half a file; what a process killed mid-write left there is swept by age.
 */
import { createHmac, hkdfSync, timingSafeEqual, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { makeDirectoryAsync } from '../platform/directories.js';
import { assertFolderPrefix, isValidKey, ObjectTooLarge, type ObjectStorage } from './storage.js';

export interface LocalStorageOptions {
  dir: string;
  /** The service's public origin: signed URLs point at its /files/ routes. */
  publicUrl: string;
  /** The service's 32-byte secret; the URL-signing key is derived from it (HKDF), never the secret itself. */
  secret: () => Buffer;
  now?: () => number;
}

export interface SignedRequest {
  method: 'PUT' | 'GET';
  key: string;
  expires: number;
  maxBytes: number | null;
  /** What the key's folder may hold in all once this upload is stored (a recording's pieces), or null. */
  folderMaxBytes: number | null;
  fileName: string | null;
  contentType: string | null;
}

/** How long an upload's body may go without a byte, and how long it may take in all. */
export interface UploadTimeLimits { idleMs: number; totalMs: number }

/** An upload whose body stopped coming (`idle`) or took too long in all (`total`). */
export class UploadStalled extends Error {
  readonly reason: 'idle' | 'total';
  constructor(reason: 'idle' | 'total') {
    super(reason === 'idle' ? 'the upload stopped sending' : 'the upload took too long');
    this.reason = reason;
  }
}

export type Verdict = { ok: true } | { ok: false; reason: 'expired' | 'invalid' };

/**
 * A temporary file untouched this long belongs to a write that died (a write's file changes with each part; an upload
 * is dropped after 30 s without a byte): the sweep deletes it.
 */
export const PARTIAL_KEPT_MS = 3_600_000;
const PARTIALS = '.partial';

export function createLocalStorage(options: LocalStorageOptions) {
  const now = options.now ?? Date.now;
  let signingKey: KeyObject | null = null;
  const key = () => (signingKey ??= createSecretKey(Buffer.from(hkdfSync('sha256', options.secret(), Buffer.alloc(0), 'prep local storage urls', 32))));

  const fileOf = (objectKey: string) => {
    if (!isValidKey(objectKey)) throw new Error(`invalid object key ${objectKey}`);
    return path.join(options.dir, objectKey);
  };

  // A JSON array: no field's text can pass for another field or for a missing one (the folder cap is appended only when
  // set, so a URL without one signs as it always did).
  const canonical = (r: SignedRequest) => JSON.stringify([r.method, r.key, r.expires, r.maxBytes, r.fileName, r.contentType,
    ...(r.folderMaxBytes === null ? [] : [r.folderMaxBytes])]);
  const sign = (r: SignedRequest) => createHmac('sha256', key()).update(canonical(r)).digest('base64url');

  function urlFor(r: SignedRequest): string {
    const url = new URL(`/files/${r.key}`, options.publicUrl);
    url.searchParams.set('expires', String(r.expires));
    if (r.maxBytes !== null) url.searchParams.set('max', String(r.maxBytes));
    if (r.folderMaxBytes !== null) url.searchParams.set('folder_max', String(r.folderMaxBytes));
    if (r.fileName !== null) url.searchParams.set('name', r.fileName);
    if (r.contentType !== null) url.searchParams.set('type', r.contentType);
    url.searchParams.set('sig', sign(r));
    return url.toString();
  }

  async function write(objectKey: string, parts: Iterable<Buffer> | AsyncIterable<Buffer>): Promise<void> {
    const target = fileOf(objectKey);
    // Resume files: owner-only, as the data directory. Folder by folder, never Node's recursive mkdir (which spins for
    // ever under /proc): a directory that cannot be made is a ConfigError naming PREP_STORAGE_DIR.
    await makeDirectoryAsync(path.dirname(target), 'PREP_STORAGE_DIR');
    // Beside no object: one left by a process killed mid-write is found by the sweep, not by a key no one will delete.
    await makeDirectoryAsync(path.join(options.dir, PARTIALS), 'PREP_STORAGE_DIR');
    const temp = path.join(options.dir, PARTIALS, `${randomBytes(12).toString('hex')}.part`);
    try {
      const file = await fs.open(temp, 'wx');
      try {
        for await (const part of parts) await file.write(part);
      } finally {
        await file.close();
      }
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
  }

  const storage: ObjectStorage = {
    kind: 'local',
    async signedPutUrl(objectKey, { expiresIn, maxBytes, accept, folderMaxBytes }) {
      const expires = Math.floor(now() / 1000) + expiresIn;
      // A PUT's signed `type` is what it accepts (a document when absent: the URLs resumes were given).
      const contentType = accept && accept !== 'document' ? accept : null;
      return { url: urlFor({ method: 'PUT', key: objectKey, expires, maxBytes, folderMaxBytes: folderMaxBytes ?? null, fileName: null, contentType }), expiresIn };
    },
    async signedGetUrl(objectKey, { expiresIn, fileName, contentType }) {
      const expires = Math.floor(now() / 1000) + expiresIn;
      return { url: urlFor({ method: 'GET', key: objectKey, expires, maxBytes: null, folderMaxBytes: null, fileName: fileName ?? null, contentType: contentType ?? null }), expiresIn };
    },
    async head(objectKey) {
      try {
        const stat = await fs.stat(fileOf(objectKey));
        return stat.isFile() ? { size: stat.size } : null;
      } catch {
        return null;
      }
    },
    async read(objectKey, maxBytes) {
      const info = await storage.head(objectKey);
      if (!info) return null;
      if (info.size > maxBytes) throw new ObjectTooLarge(maxBytes);
      return fs.readFile(fileOf(objectKey));
    },
    write: (objectKey, body) => write(objectKey, [body]),
    writeParts: (objectKey, parts) => write(objectKey, parts),
    async list(prefix) {
      assertFolderPrefix(prefix);
      let entries;
      try {
        entries = await fs.readdir(fileOf(prefix.slice(0, -1)), { recursive: true, withFileTypes: true });
      } catch {
        return []; // no such folder: nothing stored under it
      }
      const found: Array<{ key: string; size: number }> = [];
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const file = path.join(entry.parentPath, entry.name);
        const stat = await fs.stat(file).catch(() => null); // deleted meanwhile
        if (stat) found.push({ key: path.relative(options.dir, file).split(path.sep).join('/'), size: stat.size });
      }
      return found;
    },
    async delete(objectKey) {
      await fs.rm(fileOf(objectKey), { force: true });
    },
    async deletePrefix(prefix) {
      assertFolderPrefix(prefix);
      await fs.rm(fileOf(prefix.slice(0, -1)), { recursive: true, force: true });
    },
    async sweep() {
      let names: string[];
      try {
        names = await fs.readdir(path.join(options.dir, PARTIALS));
      } catch {
        return 0; // nothing written yet
      }
      let removed = 0;
      for (const name of names) {
        const file = path.join(options.dir, PARTIALS, name);
        const stat = await fs.stat(file).catch(() => null);
        if (stat && stat.mtimeMs <= now() - PARTIAL_KEPT_MS) {
          await fs.rm(file, { force: true });
          removed++;
        }
      }
      return removed;
    },
    async close() {},
  };

  return {
    ...storage,
    /** Checks a request against its signature; the expiry is checked after the signature, so a forged one never learns it. */
    verify(r: SignedRequest, signature: string): Verdict {
      if (!isValidKey(r.key)) return { ok: false, reason: 'invalid' };
      const expected = Buffer.from(sign(r));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
      if (r.expires * 1000 < now()) return { ok: false, reason: 'expired' };
      return { ok: true };
    },
    /**
     * A client's upload, read into memory and refused (ObjectTooLarge) as soon as it passes `maxBytes`. A body that
     * sends nothing for `limits.idleMs`, or is not complete after `limits.totalMs`, is destroyed (its connection with
     * it) and refused (UploadStalled): nothing else bounds how long an upload holds its link and its bytes in flight.
     */
    async receive(body: Readable, maxBytes: number, limits: UploadTimeLimits): Promise<Buffer> {
      const chunks: Buffer[] = [];
      let size = 0;
      let stalled: UploadStalled | null = null;
      const stop = (reason: UploadStalled['reason']) => () => {
        stalled = new UploadStalled(reason);
        body.destroy(stalled);
      };
      const idle = setTimeout(stop('idle'), limits.idleMs);
      const total = setTimeout(stop('total'), limits.totalMs);
      try {
        for await (const chunk of body as AsyncIterable<Uint8Array>) {
          idle.refresh();
          size += chunk.length;
          if (size > maxBytes) throw new ObjectTooLarge(maxBytes);
          chunks.push(Buffer.from(chunk));
        }
      } catch (error) {
        throw stalled ?? error;
      } finally {
        clearTimeout(idle);
        clearTimeout(total);
      }
      if (stalled) throw stalled;
      return Buffer.concat(chunks);
    },
    /** The object's bytes, or those from `start` to `end` inclusive. */
    stream: (objectKey: string, range?: { start: number; end: number }) => createReadStream(fileOf(objectKey), range),
  };
}

export type LocalStorage = ReturnType<typeof createLocalStorage>;
