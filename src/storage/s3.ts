import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand, DeleteObjectsCommand,
  GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, UploadPartCommand,
  type CompletedPart, type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertFolderPrefix, attachmentDisposition, ObjectTooLarge, UPLOAD_CONTENT_TYPES, type ObjectInfo, type ObjectStorage, type SignedPut } from './storage.js';

export interface S3StorageConfig {
  bucket: string;
  region: string;
  /** An S3-compatible server's URL (MinIO, R2, …); null for AWS itself. */
  endpoint: string | null;
  forcePathStyle: boolean;
  /** Both or neither; neither uses the SDK's default provider chain (environment, profile, instance role). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** Prepended to every key as is (so usually ends with `/`); may be empty. */
  prefix: string;
  /** How long a request may wait for the server to say anything (default S3_IDLE_TIMEOUT_MS; tests shorten it). */
  idleTimeoutMs?: number;
}

/**
 * A server that accepts a connection and then says nothing holds a request this long at most (the SDK has no limit
 * of its own: a hung endpoint held an upload, a deletion or a recording join for ever). Idle time, not total: a large
 * object streaming slowly is not cut.
 */
export const S3_IDLE_TIMEOUT_MS = 30_000;
const S3_CONNECT_TIMEOUT_MS = 5_000;

/** A multipart upload's part size (S3: at least 5 MiB, except the last part). */
export const MULTIPART_PART_BYTES = 8 * 1_048_576;

/**
 * The origins signed URLs point at, which a browser uploading to them must be allowed to reach (the launch page's
 * `connect-src`). AWS: a subdomain of amazonaws.com. An S3-compatible endpoint: its own origin (path-style, and what the
 * SDK falls back to for a bucket name that cannot be a host label) and, unless path-style is forced, the bucket as a
 * subdomain of it, which is where the SDK signs by default (https://<bucket>.<endpoint host>).
 */
export function s3UploadOrigins(config: Pick<S3StorageConfig, 'bucket' | 'endpoint' | 'forcePathStyle'>): string[] {
  if (!config.endpoint) return ['https://*.amazonaws.com'];
  const endpoint = new URL(config.endpoint);
  const hosted = !config.forcePathStyle && /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/.test(config.bucket);
  return hosted ? [endpoint.origin, `${endpoint.protocol}//${config.bucket}.${endpoint.host}`] : [endpoint.origin];
}

export function createS3Storage(config: S3StorageConfig): ObjectStorage {
  const client = new S3Client(clientConfig(config));
  const { bucket } = config;
  const full = (key: string): string => config.prefix + key;

  return {
    kind: 's3',

    // S3 presigned PUT cannot bound the size (only POST policies can, and a plain PUT is what clients send),
    // so `maxBytes` is not enforced here: the service enforces it when it registers the object (head/read with maxBytes).
    async signedPutUrl(key, { expiresIn, accept }): Promise<SignedPut> {
      // The content type is signed, so the client must send it; the bytes are checked when the service reads them.
      const type = accept && accept !== 'document' ? { ContentType: UPLOAD_CONTENT_TYPES[accept] } : {};
      const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: bucket, Key: full(key), ...type }), { expiresIn });
      return { url, expiresIn };
    },

    async signedGetUrl(key, { expiresIn, fileName, contentType }): Promise<SignedPut> {
      const command = new GetObjectCommand({
        Bucket: bucket,
        Key: full(key),
        ...(fileName ? { ResponseContentDisposition: attachmentDisposition(fileName) } : {}),
        ...(contentType ? { ResponseContentType: contentType } : {}),
      });
      return { url: await getSignedUrl(client, command, { expiresIn }), expiresIn };
    },

    async head(key): Promise<ObjectInfo | null> {
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: full(key) }));
        return { size: out.ContentLength ?? 0 };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async read(key, maxBytes): Promise<Buffer | null> {
      let out;
      try {
        out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: full(key) }));
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
      const body = out.Body as Readable | undefined;
      if (!body) return Buffer.alloc(0);
      if (out.ContentLength !== undefined && out.ContentLength > maxBytes) {
        body.destroy();
        throw new ObjectTooLarge(maxBytes);
      }
      return readAtMost(body, maxBytes);
    },

    async write(key, body, contentType): Promise<void> {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: full(key), Body: body, ContentType: contentType }));
    },

    // Parts are gathered into uploads of MULTIPART_PART_BYTES (S3 wants at least 5 MiB in every part but the last);
    // an object that never reaches one part is a plain PUT. A failure aborts the multipart upload.
    async writeParts(key, parts, contentType): Promise<void> {
      const target = { Bucket: bucket, Key: full(key) };
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let uploadId: string | undefined;
      const done: CompletedPart[] = [];
      const sendPart = async () => {
        uploadId ??= (await client.send(new CreateMultipartUploadCommand({ ...target, ContentType: contentType }))).UploadId!;
        const PartNumber = done.length + 1;
        const { ETag } = await client.send(new UploadPartCommand({ ...target, UploadId: uploadId, PartNumber, Body: Buffer.concat(pending) }));
        done.push({ ETag, PartNumber });
        pending = [];
        pendingBytes = 0;
      };
      try {
        for await (const part of parts) {
          pending.push(part);
          pendingBytes += part.length;
          if (pendingBytes >= MULTIPART_PART_BYTES) await sendPart();
        }
        if (uploadId === undefined) {
          await client.send(new PutObjectCommand({ ...target, Body: Buffer.concat(pending), ContentType: contentType }));
          return;
        }
        if (pendingBytes > 0) await sendPart();
        await client.send(new CompleteMultipartUploadCommand({ ...target, UploadId: uploadId, MultipartUpload: { Parts: done } }));
      } catch (error) {
        if (uploadId !== undefined) await client.send(new AbortMultipartUploadCommand({ ...target, UploadId: uploadId })).catch(() => undefined);
        throw error;
      }
    },

    async list(prefix): Promise<Array<{ key: string; size: number }>> {
      assertFolderPrefix(prefix);
      const found: Array<{ key: string; size: number }> = [];
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: full(prefix), MaxKeys: 1000, ContinuationToken }));
        for (const o of page.Contents ?? []) if (o.Key) found.push({ key: o.Key.slice(config.prefix.length), size: o.Size ?? 0 });
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      return found;
    },

    async delete(key): Promise<void> {
      // S3 answers 204 for a missing key too.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: full(key) }));
    },

    async deletePrefix(prefix): Promise<void> {
      assertFolderPrefix(prefix);
      // A page of at most 1,000 keys at a time, each deleted in one request, until the listing is empty.
      for (;;) {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: full(prefix), MaxKeys: 1000 }));
        const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
        if (keys.length === 0) return;
        // Quiet: the answer names only the keys that were not deleted (with a 200), which must not pass for done.
        const { Errors: failed = [] } = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
        if (failed.length > 0) {
          const first = failed[0]!;
          throw new Error(`S3 did not delete ${failed.length} of ${keys.length} objects under ${prefix} (${first.Key}: ${first.Code} ${first.Message ?? ''})`.trim());
        }
        if (!page.IsTruncated) return;
      }
    },

    async sweep(): Promise<number> {
      return 0; // a failed PUT leaves nothing; an unfinished multipart upload is ended by the bucket's lifecycle rule
    },

    async close(): Promise<void> {
      client.destroy();
    },
  };
}

function clientConfig(config: S3StorageConfig): S3ClientConfig {
  return {
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
    // The SDK's default (WHEN_SUPPORTED) adds CRC checksums that many S3-compatible servers reject,
    // and would put x-amz-checksum-* / x-amz-sdk-checksum-algorithm into presigned PUT URLs,
    // which a plain browser PUT does not satisfy.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: Math.min(S3_CONNECT_TIMEOUT_MS, config.idleTimeoutMs ?? S3_CONNECT_TIMEOUT_MS),
      socketTimeout: config.idleTimeoutMs ?? S3_IDLE_TIMEOUT_MS,
    },
  };
}

function isNotFound(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return err.name === 'NotFound' || err.name === 'NoSuchKey' || status === 404;
}

/** Reads the stream, destroying it and throwing once it passes `maxBytes` (ContentLength may be absent or wrong). */
async function readAtMost(body: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += buf.length;
    if (total > maxBytes) {
      body.destroy();
      throw new ObjectTooLarge(maxBytes);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks, total);
}

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 form. */
