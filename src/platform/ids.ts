import { randomBytes } from 'node:crypto';
import { v7 as uuidv7, validate as uuidValidate } from 'uuid';

/** Every record id: a UUIDv7, so ids sort by creation time and serve as keyset cursors. */
export function newId(): string {
  return uuidv7();
}

export function isUuid(value: string): boolean {
  return uuidValidate(value);
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `bytes` random bytes written in base62 (letters and digits only, safe in headers and URLs). */
export function randomToken(bytes = 32): string {
  return base62(randomBytes(bytes));
}

/**
 * A unique token (not a secret) that sorts, as plain strings, in the order it was made: a UUIDv7 (time, then a
 * counter within the millisecond) followed by 8 random bytes, in fixed-width base62 (33 characters, as randomToken(24)).
 */
export function sortableToken(): string {
  const time = Buffer.from(uuidv7().replaceAll('-', ''), 'hex');
  return base62(Buffer.concat([time, randomBytes(8)]));
}

function base62(buffer: Buffer): string {
  const bytes = buffer.length;
  let n = BigInt('0x' + buffer.toString('hex'));
  const width = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

// Request ids are drawn from a pool of random bytes refilled 4 KiB at a time: one id per request is a hot path.
const POOL_SIZE = 4096;
const REQUEST_ID_BYTES = 12;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

/** Request ids are ours alone: an incoming Request-Id header is never reused. */
export function newRequestId(): string {
  if (offset + REQUEST_ID_BYTES > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + REQUEST_ID_BYTES);
  offset += REQUEST_ID_BYTES;
  return 'req_' + id;
}
