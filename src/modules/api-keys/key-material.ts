import { createHash } from 'node:crypto';
import { randomToken } from '../../platform/ids.js';

export type KeyType = 'secret' | 'publishable';

const PREFIX = /^svc_(sk|pk)_(live|test)_([0-9A-Za-z]{43,})$/;

export function keyPrefix(type: KeyType, livemode: boolean): string {
  return `svc_${type === 'secret' ? 'sk' : 'pk'}_${livemode ? 'live' : 'test'}_`;
}

/** A new key: prefix + 32 random bytes in base62. Only its hash is stored. */
export function generateKey(type: KeyType, livemode: boolean): { secret: string; hash: string; hint: string } {
  const secret = keyPrefix(type, livemode) + randomToken(32);
  return { secret, hash: hashKey(secret), hint: hintOf(secret) };
}

/** Keys carry 256 random bits, so one SHA-256 is enough to store them safely (no slow KDF needed). */
export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What a listing shows instead of the key: prefix and last four characters. */
export function hintOf(secret: string): string {
  return `${secret.slice(0, 12)}…${secret.slice(-4)}`;
}

/** Reads type and environment from the prefix; null for anything that is not one of our keys. */
export function parseKey(raw: string): { type: KeyType; livemode: boolean } | null {
  const m = PREFIX.exec(raw);
  if (!m) return null;
  return { type: m[1] === 'sk' ? 'secret' : 'publishable', livemode: m[2] === 'live' };
}
