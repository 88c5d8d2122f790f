/**
 * The one object-storage interface (resumes now; whiteboard images and interview recordings later).
 * Objects are written by clients through signed, expiring upload URLs and read through signed download URLs;
 * the service itself reads, copies and deletes them directly.
 */
export interface SignedPut {
  url: string;
  /** Seconds until the URL stops working. */
  expiresIn: number;
}

/**
 * What an upload URL accepts, checked from the bytes where the backend can: a resume document (PDF, DOCX, text), a
 * PNG image (whiteboard snapshots), or a piece of a recording (opaque: checked when the pieces are assembled).
 */
export type UploadKind = 'document' | 'png' | 'recording_chunk';
export const UPLOAD_CONTENT_TYPES: Record<Exclude<UploadKind, 'document'>, string> = { png: 'image/png', recording_chunk: 'application/octet-stream' };

export interface ObjectInfo {
  size: number;
}

export interface ObjectStorage {
  readonly kind: 'local' | 's3';
  /**
   * A URL that accepts one `PUT` of at most `maxBytes` bytes of the kind given (default a document) to `key` until it
   * expires. With `folderMaxBytes`, the key's folder may hold at most that many bytes once the upload is stored (the
   * local storage refuses one past it; S3 cannot bound a presigned PUT at all, see `maxBytes` there).
   */
  signedPutUrl(key: string, options: { expiresIn: number; maxBytes: number; accept?: UploadKind; folderMaxBytes?: number }): Promise<SignedPut>;
  /** A URL that answers `GET` with the object until it expires; `fileName` sets the download's file name. */
  signedGetUrl(key: string, options: { expiresIn: number; fileName?: string | null; contentType?: string }): Promise<SignedPut>;
  /** Size of the object, or null when there is none. */
  head(key: string): Promise<ObjectInfo | null>;
  /** The object's bytes, or null when there is none; throws ObjectTooLarge past `maxBytes` without reading further. */
  read(key: string, maxBytes: number): Promise<Buffer | null>;
  write(key: string, body: Buffer, contentType: string): Promise<void>;
  /**
   * An object written from its parts, in order, without holding it whole (a recording joined from its pieces). It
   * appears only once complete; when `parts` throws, nothing is left behind.
   */
  writeParts(key: string, parts: AsyncIterable<Buffer>, contentType: string): Promise<void>;
  /** Every object whose key starts with `prefix`, a folder (it ends with `/`), with its size: one listing (S3: 1,000 a page). */
  list(prefix: string): Promise<Array<{ key: string; size: number }>>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with `prefix`, a folder (it ends with `/`): pieces of a recording, say. */
  deletePrefix(prefix: string): Promise<void>;
  /**
   * Removes what writes killed midway left behind (local: temporary files untouched for an hour); the number removed.
   * S3 keeps nothing of a failed single PUT, and an unfinished multipart upload is a bucket lifecycle rule's to end.
   */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

export class ObjectTooLarge extends Error {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
    this.maxBytes = maxBytes;
  }
}

/** Keys are ours (never a client's file name): `[a-z0-9/_.-]`, no empty or dot segments. */
export function isValidKey(key: string): boolean {
  return key.length > 0 && key.length <= 512 && /^[a-z0-9][a-z0-9/_.-]*$/.test(key)
    && key.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** A prefix `deletePrefix` accepts: a folder, ending in `/` (so `a/b` never takes `a/bc` with it). */
export function assertFolderPrefix(prefix: string): void {
  if (!prefix.endsWith('/')) throw new Error(`a prefix to delete is a folder, ending in /: ${prefix}`);
}

/** `Content-Disposition` for a download: an ASCII fallback and the exact name (RFC 6266 / 5987). */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_').trim() || 'download';
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** The bytes stored in `folder` (a prefix ending in `/`) by objects other than `key`: what an upload to `key` adds to. */
export async function bytesBeside(storage: Pick<ObjectStorage, 'list'>, folder: string, key: string): Promise<number> {
  return (await storage.list(folder)).reduce((sum, o) => (o.key === key ? sum : sum + o.size), 0);
}
