import { ApiError } from './errors.js';

const SHAPE = /^(https?):\/\/[^/?#@\s\\]+$/i;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** A host after URL normalisation: DNS labels (punycode for IDNs), an IPv4 address or a bracketed IPv6 one. No wildcards. */
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;

/**
 * An origin as browsers send it: scheme, host and optional port, nothing else. Returned normalised
 * (lower-case, default port dropped) so that matching is exact string equality. https is required
 * except on localhost.
 */
export function parseOrigin(raw: string, param = 'origin'): string {
  if (raw.length > 255 || !SHAPE.test(raw)) {
    throw new ApiError('invalid_origin', { param, message: 'An origin is scheme://host[:port], with no path, query or credentials (e.g. https://app.example.com).' });
  }
  // A port is 1–65535: the URL parser takes "host:" as no port and keeps port 0, which no browser sends.
  const port = /:(\d*)$/.exec(raw)?.[1];
  if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) {
    throw new ApiError('invalid_origin', { param, message: 'An origin\'s port is a number from 1 to 65535.' });
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('invalid_origin', { param });
  }
  if (!HOST.test(url.hostname)) {
    throw new ApiError('invalid_origin', { param, message: 'An origin names one host exactly: no wildcards or other special characters.' });
  }
  if (url.protocol === 'http:' && !LOCAL_HOSTS.has(url.hostname)) {
    throw new ApiError('invalid_origin', { param, message: 'An origin must use https (http is accepted for localhost only).' });
  }
  return url.origin;
}

/**
 * The same check for an Origin request header: the normalised origin, or null when it is not one. `own` (the service's
 * public origin, already normalised) is recognised as sent, whatever its scheme: it may be plain http on any host.
 */
export function originOfHeader(value: string | undefined, own?: string): string | null {
  if (!value) return null;
  if (value === own) return own;
  try {
    return parseOrigin(value);
  } catch {
    return null;
  }
}
