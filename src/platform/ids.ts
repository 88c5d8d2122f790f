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
  let n = BigInt('0x' + randomBytes(bytes).toString('hex'));
  const width = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

/** Request ids are ours alone: an incoming Request-Id header is never reused. Hot path: kept cheap. */
export function newRequestId(): string {
  return 'req_' + randomBytes(12).toString('base64url');
}
