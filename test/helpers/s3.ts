import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage, RequestListener, Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver (untyped CommonJS) this test uses. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;

export interface S3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Environment that points the service at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** A real S3-protocol server (s3rver) on a loopback port, with one bucket, that checks presigned signatures. */
export async function startS3Server(bucket = 'prep-test'): Promise<S3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'prep-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const secret = 'S3RVER'; // s3rver's built-in account: access key id and secret are both S3RVER
  requirePresignedSignatures(server.httpServer, secret);
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint, bucket, accessKeyId: 'S3RVER', secretAccessKey: secret,
    env: {
      PREP_S3_BUCKET: bucket, PREP_S3_ENDPOINT: endpoint, PREP_S3_FORCE_PATH_STYLE: 'true', PREP_S3_REGION: 'us-east-1',
      PREP_S3_ACCESS_KEY_ID: 'S3RVER', PREP_S3_SECRET_ACCESS_KEY: secret,
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * s3rver 3.7.1 checks a presigned V4 URL's access key id and expiry but not its signature
 * (lib/middleware/authentication.js: "Signature version 4 calculation is unimplemeneted"),
 * so this checks the signature of query-signed requests before s3rver sees them, as S3 would.
 */
function requirePresignedSignatures(httpServer: Server, secret: string): void {
  const [app] = httpServer.listeners('request') as RequestListener[];
  httpServer.removeAllListeners('request');
  httpServer.on('request', (req, res) => {
    if (presignedSignatureValid(req, secret)) app(req, res);
    else res.writeHead(403, { 'content-type': 'text/plain' }).end('SignatureDoesNotMatch');
  });
}

/** SigV4 query-string verification (UNSIGNED-PAYLOAD); requests signed otherwise pass. */
function presignedSignatureValid(req: IncomingMessage, secret: string): boolean {
  const url = new URL(req.url ?? '/', 'http://placeholder');
  const q = url.searchParams;
  const provided = q.get('X-Amz-Signature');
  if (provided === null) return true;
  const signedHeaders = q.get('X-Amz-SignedHeaders') ?? '';
  const canonicalQuery = [...q].filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`).sort().join('&');
  const canonicalHeaders = signedHeaders.split(';').map((h) => `${h}:${String(req.headers[h] ?? '').trim()}\n`).join('');
  const canonicalRequest = [req.method, url.pathname, canonicalQuery, canonicalHeaders, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
  const [, date, region, service] = (q.get('X-Amz-Credential') ?? '').split('/');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', q.get('X-Amz-Date'), scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const key = [date, region, service, 'aws4_request'].reduce<Buffer | string>((k, part) => hmac(k, part), `AWS4${secret}`);
  return hmac(key, stringToSign).toString('hex') === provided;
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
