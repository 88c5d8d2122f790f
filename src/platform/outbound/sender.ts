import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import { OutboundError, type OutboundErrorReason } from './errors.js';
import { checkAddresses, checkUrl, defaultResolver, guardedLookup, normaliseHost, type GuardPolicy, type Resolver } from './guard.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 2048;

export interface OutboundSenderOptions {
  /** Total time for connect + response + reading the (capped) body. Default 10 s. */
  timeoutMs?: number;
  /** Response body bytes kept; reading stops there. Default 2048. */
  maxBodyBytes?: number;
  /** Tests only: host names that may resolve to loopback (IP literals never may). */
  allowLoopbackHosts?: string[];
  /** Tests only: accept http: for the names in allowLoopbackHosts. */
  allowHttp?: boolean;
  /** Tests only: trust this CA (PEM) instead of the system roots. */
  ca?: string | Buffer;
  /**
   * DNS resolution; injectable so tests need no real DNS. Default: c-ares (A and AAAA, its own time-out, no threadpool
   * thread), and dns.lookup only for the names in allowLoopbackHosts (see guard.ts).
   */
  lookup?: Resolver;
}

export interface OutboundRequest {
  url: string;
  method?: 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Overrides the sender's default for this request. */
  timeoutMs?: number;
}

export interface OutboundResponse {
  /** Any status, 3xx included: redirects are never followed. */
  status: number;
  /** At most maxBodyBytes of UTF-8 (a character cut at the cap is dropped). */
  body: string;
  truncated: boolean;
  /** From the start of send() to the end of the (capped) body. */
  durationMs: number;
}

export interface OutboundSender {
  send(request: OutboundRequest): Promise<OutboundResponse>;
  /** Resolves and checks a URL without connecting (registration-time check); returns the addresses. */
  check(url: string): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The only way the service makes HTTP requests to customer-supplied URLs. An undici Agent whose
 * connector resolves names through guardedLookup, so every socket goes to an address that was
 * checked a moment before; undici's request() follows no redirects unless told to, and we never tell it.
 */
export function createOutboundSender(options: OutboundSenderOptions = {}): OutboundSender {
  const policy: GuardPolicy = {
    allowLoopbackHosts: new Set((options.allowLoopbackHosts ?? []).map(normaliseHost)),
    allowHttp: options.allowHttp ?? false,
  };
  const builtIn = options.lookup ? null : defaultResolver(policy);
  const resolve = options.lookup ?? builtIn!;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const agent = new Agent({
    // A connect attempt abandoned at our time limit should not linger past it either.
    connect: { lookup: guardedLookup(resolve, policy), timeout: defaultTimeout, ...(options.ca ? { ca: options.ca } : {}) },
  });

  return {
    async send({ url, method = 'POST', headers = {}, body, timeoutMs = defaultTimeout }) {
      const started = performance.now();
      const target = checkUrl(url, policy);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        const pending = agent.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method,
          headers,
          body,
          signal: controller.signal,
        });
        // undici applies an abort only once a socket is connected, so a stuck DNS answer or handshake
        // would outlive the time limit: race it. The abandoned request rejects later; that is expected.
        pending.catch(() => {});
        const res = await Promise.race([pending, rejectOnAbort(controller.signal)]);
        const read = await readCapped(res.body, maxBodyBytes);
        return { status: res.statusCode, ...read, durationMs: Math.round(performance.now() - started) };
      } catch (err) {
        throw toOutboundError(err, controller.signal.aborted);
      } finally {
        clearTimeout(timer);
      }
    },

    async check(url) {
      const target = checkUrl(url, policy);
      const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
      if (isIP(host)) return [host]; // already checked by checkUrl
      let found;
      // Within the same time limit as a delivery: a name server that never answers must not hold a registration.
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), defaultTimeout);
      try {
        const lookup = resolve(host);
        lookup.catch(() => {}); // abandoned at the time limit, it may reject later
        found = await Promise.race([lookup, rejectOnAbort(controller.signal)]);
      } catch (err) {
        if (controller.signal.aborted) throw new OutboundError('timeout', `${host} did not resolve within ${defaultTimeout / 1000} s.`);
        throw toOutboundError(err, false);
      } finally {
        clearTimeout(timer);
      }
      if (found.length === 0) throw new OutboundError('dns_error', `${host} does not resolve.`);
      checkAddresses(host, found.map((a) => a.address), policy);
      return found.map((a) => a.address);
    },

    /** Stops the sender; requests still in flight are aborted, and so are its name lookups. */
    close: () => {
      builtIn?.cancel();
      return agent.destroy();
    },
  };
}

const rejectOnAbort = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));

/** Keeps at most `cap` bytes, then stops: leaving the loop destroys the stream and its socket. */
async function readCapped(stream: Readable, cap: number): Promise<{ body: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > cap) {
      chunks.push(chunk.subarray(0, cap - size));
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  // stream: true holds back an incomplete trailing character instead of emitting U+FFFD.
  const body = new TextDecoder().decode(Buffer.concat(chunks), { stream: truncated });
  return { body, truncated };
}

const TLS_CODE = /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME/;
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

/** Maps whatever undici/node threw to one OutboundError; our own refusals (from the lookup) pass through. */
function toOutboundError(err: unknown, timedOut: boolean): OutboundError {
  for (let e = err; e instanceof Error; e = e.cause) if (e instanceof OutboundError) return e;
  if (timedOut) return new OutboundError('timeout', 'No complete response within the time limit.', {}, { cause: err });
  const code = String((err as NodeJS.ErrnoException | undefined)?.code ?? '');
  const message = err instanceof Error ? err.message : String(err);
  const reason: OutboundErrorReason = code === 'ENOTFOUND' || code.startsWith('EAI_')
    ? 'dns_error'
    : TLS_CODE.test(code) ? 'tls_error' : CONNECT_CODES.has(code) ? 'connect_error' : 'network_error';
  return new OutboundError(reason, message, { code }, { cause: err });
}
