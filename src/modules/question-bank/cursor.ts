import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../platform/errors.js';

/**
 * The question list's opaque cursor: an offset, bound to the caller and to the exact query that made it, signed.
 * A tampered cursor, or one made for another organisation, environment or set of filters, is `invalid_cursor`.
 */
export function createCursorCodec(key: Buffer) {
  // A key object made once: handing createHmac raw bytes builds one on every call, which cost a fifth of a page.
  const secret = createSecretKey(key);
  const mac = (data: string) => createHmac('sha256', secret).update(data).digest().subarray(0, 16);
  const scopes = new Map<string, string>();
  const made = new Map<string, string>();
  const scopeOf = (scope: string) => {
    let digest = scopes.get(scope);
    if (digest === undefined) {
      digest = mac(`scope\u0000${scope}`).toString('base64url');
      if (scopes.size >= 10_000) scopes.clear();
      scopes.set(scope, digest);
    }
    return digest;
  };
  const invalid = () => new ApiError('invalid_cursor', { param: 'starting_after', message: 'starting_after must be the next_cursor of a previous page of the same query.' });
  return {
    encode(offset: number, scope: string): string {
      // Deterministic: the same page of the same query always gets the same cursor, so it is made once.
      const digest = scopeOf(scope);
      const memo = `${digest}:${offset}`;
      let cursor = made.get(memo);
      if (cursor === undefined) {
        const body = Buffer.from(JSON.stringify({ o: offset, s: digest })).toString('base64url');
        cursor = `${body}.${mac(body).toString('base64url')}`;
        if (made.size >= 10_000) made.clear();
        made.set(memo, cursor);
      }
      return cursor;
    },
    /** The offset a cursor stands for; throws `invalid_cursor` unless this service made it for this scope. */
    decode(cursor: string, scope: string): number {
      const [body, signature, extra] = cursor.split('.');
      if (!body || !signature || extra !== undefined) throw invalid();
      // Compared as text: decoding first let other spellings of the same bytes through (base64url ignores the spare
      // bits of the last character), so a cursor with its last character changed could still be accepted.
      const given = Buffer.from(signature);
      const expected = Buffer.from(mac(body).toString('base64url'));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
      let parsed: { o?: unknown; s?: unknown };
      try {
        parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { o?: unknown; s?: unknown };
      } catch {
        throw invalid();
      }
      if (parsed.s !== scopeOf(scope) || !Number.isSafeInteger(parsed.o) || (parsed.o as number) < 1) throw invalid();
      return parsed.o as number;
    },
  };
}
