/**
 * The local storage's signed URLs, answered by the service (outside /v1: file transfers, not API operations).
 * `PUT` takes one upload of at most the signed size, of a type the upload accepts (read from the bytes);
 * `GET` streams the object, or one byte range of it (206). Every refusal is in the error envelope.
 */
import type { App } from '../app-types.js';
import { ApiError } from '../platform/errors.js';
import { byteRangeOf } from './byte-range.js';
import { DOCUMENT_CONTENT_TYPES, isPng, sniffDocument } from './file-type.js';
import { UploadStalled, type LocalStorage, type SignedRequest, type UploadTimeLimits } from './local.js';
import { attachmentDisposition, bytesBeside, ObjectTooLarge, UPLOAD_CONTENT_TYPES } from './storage.js';
import { createUploadBudget, UPLOADS_IN_FLIGHT_BYTES } from './upload-budget.js';

type Query = Record<string, string | string[] | undefined>;

function signedRequest(method: 'PUT' | 'GET', key: string, raw: Query): { request: SignedRequest; sig: string } {
  // A repeated parameter is never what was signed.
  if (Object.values(raw).some((v) => Array.isArray(v))) throw new ApiError('file_url_invalid');
  const query = raw as Record<string, string | undefined>;
  const expires = Number(query.expires);
  const max = query.max === undefined ? null : Number(query.max);
  const folderMax = query.folder_max === undefined ? null : Number(query.folder_max);
  if (!query.sig || !Number.isSafeInteger(expires) || (max !== null && !Number.isSafeInteger(max))
    || (folderMax !== null && !Number.isSafeInteger(folderMax))) throw new ApiError('file_url_invalid');
  return {
    request: { method, key, expires, maxBytes: max, folderMaxBytes: folderMax, fileName: query.name ?? null, contentType: query.type ?? null },
    sig: query.sig,
  };
}

function check(storage: LocalStorage, method: 'PUT' | 'GET', key: string, query: Query): SignedRequest {
  const { request, sig } = signedRequest(method, key, query);
  const verdict = storage.verify(request, sig);
  if (!verdict.ok) throw new ApiError(verdict.reason === 'expired' ? 'file_url_expired' : 'file_url_invalid');
  return request;
}

/** The stored content type of an upload, or the refusal: what the URL accepts (signed in its `type`) is read from the bytes. */
function acceptedType(accept: string | null, bytes: Buffer): string {
  if (accept === 'png') {
    if (!isPng(bytes)) throw new ApiError('unsupported_file_type', { message: 'The file is not accepted: this upload takes a PNG image.' });
    return UPLOAD_CONTENT_TYPES.png;
  }
  if (accept === 'recording_chunk') return UPLOAD_CONTENT_TYPES.recording_chunk;
  const sniffed = sniffDocument(bytes);
  if (!sniffed.type) throw new ApiError('unsupported_file_type', { message: `The file is not accepted: ${sniffed.reason}. Upload a PDF, DOCX or plain-text file.` });
  return DOCUMENT_CONTENT_TYPES[sniffed.type];
}

/**
 * An upload's body must keep coming (a byte at least every 30 s) and be complete within 10 minutes (10 MiB at 17 kB/s):
 * Fastify sets no request time limit, and a stalled upload holds its link and its share of the bytes in flight.
 */
export const UPLOAD_TIME_LIMITS: UploadTimeLimits = { idleMs: 30_000, totalMs: 10 * 60_000 };

export function storageRoutes(app: App, storage: LocalStorage, limits: UploadTimeLimits = UPLOAD_TIME_LIMITS): void {
  const budget = createUploadBudget(UPLOADS_IN_FLIGHT_BYTES);
  // Uploads into a capped folder are checked and stored one at a time per folder, so two at once cannot both fit.
  const folderTurns = new Map<string, Promise<unknown>>();
  function inFolderTurn<T>(folder: string, work: () => Promise<T>): Promise<T> {
    const previous = folderTurns.get(folder) ?? Promise.resolve();
    const mine = previous.then(work, work);
    const settled = mine.catch(() => undefined);
    folderTurns.set(folder, settled);
    void settled.then(() => { if (folderTurns.get(folder) === settled) folderTurns.delete(folder); });
    return mine;
  }
  /** Stores an upload to a capped folder (a recording's pieces) only if the folder then holds at most its cap. */
  async function writeWithinFolder(key: string, bytes: Buffer, type: string, folderMax: number): Promise<void> {
    const folder = key.slice(0, key.lastIndexOf('/') + 1);
    await inFolderTurn(folder, async () => {
      const others = await bytesBeside(storage, folder, key);
      if (others + bytes.length > folderMax) {
        throw new ApiError('file_too_large', { message: `The file does not fit: what this upload belongs to holds at most ${folderMax} bytes in all.` });
      }
      await storage.write(key, bytes, type);
    });
  }
  app.register(async (scope) => {
    // Uploads are raw bytes of any declared type: the handler reads the stream itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    scope.put('/files/*', { schema: { hide: true }, config: { rateClass: 'standard' } }, async (request, reply) => {
      const key = (request.params as { '*': string })['*'];
      const signed = check(storage, 'PUT', key, request.query as Query);
      const limit = signed.maxBytes ?? 0;
      const declared = Number(request.headers['content-length'] ?? NaN);
      const tooLarge = () => {
        reply.header('connection', 'close'); // the client may still be sending; do not read the rest
        return new ApiError('file_too_large', { message: `The file is larger than this upload allows (${limit} bytes).` });
      };
      if (declared > limit) throw tooLarge();
      // Node ends a body at its declared length, so a declared size is what is held; a chunked body may reach the cap.
      const held = budget.take(key, Number.isSafeInteger(declared) ? declared : limit);
      if ('refused' in held) {
        reply.header('connection', 'close');
        throw held.refused === 'key_busy'
          ? new ApiError('rate_limited', { message: 'An upload through this link is already under way; retry once it has finished.', headers: { 'Retry-After': '5' } })
          : new ApiError('service_unavailable', { message: 'Too many uploads are under way on this server; retry shortly.', headers: { 'Retry-After': '5' } });
      }
      try {
        let bytes: Buffer;
        try {
          bytes = await storage.receive(request.raw, limit, limits);
        } catch (error) {
          if (error instanceof UploadStalled) {
            reply.header('connection', 'close'); // the connection is gone already on a real socket
            throw new ApiError('malformed_request', {
              message: error.reason === 'idle'
                ? `The upload sent nothing for ${limits.idleMs / 1000} seconds; send the file again.`
                : `The upload did not finish within ${limits.totalMs / 60_000} minutes; send the file again.`,
            });
          }
          throw error instanceof ObjectTooLarge ? tooLarge() : error;
        }
        const type = acceptedType(signed.contentType, bytes);
        if (signed.folderMaxBytes === null) await storage.write(key, bytes, type);
        else await writeWithinFolder(key, bytes, type, signed.folderMaxBytes);
        return await reply.code(200).header('content-type', type).send();
      } finally {
        held.release();
      }
    });

    scope.get('/files/*', { schema: { hide: true }, config: { rateClass: 'standard' } }, async (request, reply) => {
      const key = (request.params as { '*': string })['*'];
      const signed = check(storage, 'GET', key, request.query as Query);
      const info = await storage.head(key);
      if (!info) throw new ApiError('file_not_found');
      const headers = request.headers as Record<string, string | undefined>;
      const range = byteRangeOf(headers.range, headers['if-range'], info.size);
      if (range.kind === 'unsatisfiable') {
        throw new ApiError('range_not_satisfiable', {
          param: 'Range',
          message: `The Range header asks for bytes the file does not have (it holds ${info.size} bytes).`,
          headers: { 'Content-Range': `bytes */${info.size}`, 'Accept-Ranges': 'bytes' },
        });
      }
      reply.headers({
        'content-type': signed.contentType ?? 'application/octet-stream',
        'content-length': String(range.kind === 'part' ? range.end - range.start + 1 : info.size),
        'accept-ranges': 'bytes',
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
      });
      if (signed.fileName) reply.header('content-disposition', attachmentDisposition(signed.fileName));
      if (range.kind === 'whole') return reply.send(storage.stream(key));
      reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${info.size}`);
      return reply.send(storage.stream(key, range));
    });
  });
}
