import { lookup as dnsLookup, promises as dnsPromises, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { createLimiter, WaitTimeout } from '../limiter.js';
import { classifyAddress } from './address.js';
import { OutboundError } from './errors.js';

/** Resolves a host name to every address it has. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/**
 * Customers' names are resolved by c-ares (dns.Resolver: resolve4 and resolve6), which runs on the event loop, not on
 * libuv's threadpool, and gives up on its own: each query is sent at most DNS_TRIES times per name server, each try
 * waiting DNS_TRY_MS, doubled on a retry and never more than DNS_TRY_MAX_MS (so at most 4 s per name server that never
 * answers). A name server that never answers therefore costs its own query a bounded time and nobody else anything:
 * there is no shared slot for one organisation's hanging names to take from another's deliveries.
 */
export const DNS_TRY_MS = 1_000;
export const DNS_TRY_MAX_MS = 2_000;
export const DNS_TRIES = 2;

/**
 * How many system lookups (dns.lookup, getaddrinfo) run at once in this process. They are used only for the test
 * allowlist's names (allowLoopbackHosts: `localhost` is in /etc/hosts, which c-ares does not read), never for a
 * customer's name in production. getaddrinfo runs on libuv's threadpool, 4 threads shared with fs, crypto and zlib, and
 * a name server that never answers holds its thread until the system resolver gives up (30 s and more), whatever time
 * limit the caller set: unbounded, a few of them would take the whole pool.
 */
export const SYSTEM_LOOKUPS_AT_ONCE = 2;
/** The longest a system lookup waits for its turn; past it, it fails without having started (as a DNS failure). */
const SYSTEM_LOOKUP_WAIT_MS = 10_000;

/**
 * `resolve` with at most `max` lookups running at once (the shared limiter); the others wait their turn, and one that
 * waited `maxWaitMs` fails (EAI_AGAIN) without starting.
 */
export function boundedResolver(resolve: Resolver, max: number, maxWaitMs: number): Resolver {
  const limit = createLimiter(max, { maxWaitMs });
  return (hostname) => limit(() => resolve(hostname)).catch((error: unknown) => {
    if (error instanceof WaitTimeout) throw Object.assign(new Error(`getaddrinfo EAI_AGAIN ${hostname} (too many lookups waiting)`), { code: 'EAI_AGAIN', hostname });
    throw error;
  });
}

/** dns.lookup with all: true, bounded for the whole process (see SYSTEM_LOOKUPS_AT_ONCE). */
export const systemResolver: Resolver = boundedResolver((hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, order: 'verbatim' }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  }), SYSTEM_LOOKUPS_AT_ONCE, SYSTEM_LOOKUP_WAIT_MS);

/** c-ares answers meaning "this name has no address of that family" rather than "the lookup failed". */
const NO_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Resolves through c-ares (see DNS_TRY_MS): the A and AAAA records together, IPv4 first. One family failing while the
 * other answers is fine (the socket connects only to addresses returned, all of them checked); both failing is a DNS
 * failure, reported as ENOTFOUND (no such name, or no address) or EAI_AGAIN (time-out, server failure, no name server
 * reachable), never with c-ares' own codes (its ECONNREFUSED is about the name server, not the receiver).
 * `localhost` and `*.localhost` are loopback without asking (RFC 6761; getaddrinfo reads them from /etc/hosts, which
 * c-ares' resolve4 does not), so they are refused as loopback, not as a name that does not resolve.
 * `servers` (host:port) replaces the system's name servers: for tests. `cancel` abandons every query in flight.
 */
export function aresResolver(options: { servers?: string[]; tryMs?: number; tryMaxMs?: number; tries?: number } = {}): Resolver & { cancel(): void } {
  const resolver = new dnsPromises.Resolver({
    timeout: options.tryMs ?? DNS_TRY_MS, maxTimeout: options.tryMaxMs ?? DNS_TRY_MAX_MS, tries: options.tries ?? DNS_TRIES,
  });
  if (options.servers) resolver.setServers(options.servers);
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    if (/(^|\.)localhost$/.test(normaliseHost(hostname))) return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }];
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const found: LookupAddress[] = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (found.length > 0) return found;
    const codes = [v4, v6].map((r) => (r.status === 'rejected' ? String((r.reason as NodeJS.ErrnoException)?.code) : 'ENODATA'));
    const code = codes.every((c) => NO_ADDRESS.has(c)) ? 'ENOTFOUND' : 'EAI_AGAIN';
    throw Object.assign(new Error(`${hostname} did not resolve (${[...new Set(codes)].join(', ')})`), { code, hostname });
  };
  return Object.assign(resolve, { cancel: () => resolver.cancel() });
}

/** c-ares for every name, dns.lookup (bounded) for the policy's loopback names only (see SYSTEM_LOOKUPS_AT_ONCE). */
export function defaultResolver(policy: GuardPolicy): Resolver & { cancel(): void } {
  const ares = aresResolver();
  const resolve = (hostname: string) => (policy.allowLoopbackHosts.has(normaliseHost(hostname)) ? systemResolver(hostname) : ares(hostname));
  return Object.assign(resolve, { cancel: ares.cancel });
}

export interface GuardPolicy {
  /** Lower-case host names (no trailing dot) that may resolve to loopback: for tests only. */
  allowLoopbackHosts: ReadonlySet<string>;
  /** http: is accepted for the names above (never for other hosts): for tests only. */
  allowHttp: boolean;
}

export const normaliseHost = (host: string) => host.toLowerCase().replace(/\.$/, '');

/** A URL the sender may try, or OutboundError. IP-literal hosts are checked here, as no lookup happens for them. */
export function checkUrl(raw: string, policy: GuardPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'The URL cannot be parsed.');
  }
  if (url.username || url.password) throw new OutboundError('invalid_url', 'The URL must not carry credentials.');
  const host = normaliseHost(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  const httpAllowed = policy.allowHttp && policy.allowLoopbackHosts.has(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed)) {
    throw new OutboundError('scheme_not_allowed', 'Only https URLs are allowed.');
  }
  // WHATWG URL has already turned 2130706433, 0x7f.1 and friends into dotted IPv4.
  if (isIP(host)) checkAddresses(host, [host], policy, true);
  return url;
}

/**
 * Every address must be acceptable, not just one: the socket may try any of them. Named loopback
 * hosts from the test allowlist may resolve to loopback; IP literals never get that exemption.
 */
export function checkAddresses(host: string, addresses: string[], policy: GuardPolicy, literal = false): void {
  const loopbackAllowed = !literal && policy.allowLoopbackHosts.has(normaliseHost(host));
  for (const address of addresses) {
    const addressClass = classifyAddress(address);
    if (addressClass === 'public' || (addressClass === 'loopback' && loopbackAllowed)) continue;
    // The address stays in details (for logs): the message reaches the customer, who must not learn what a name
    // resolves to inside Prep's network (an IP literal is its own host, so nothing is given away there).
    throw new OutboundError('blocked_address', `${host} is not a public address (${addressClass}).`, { address, addressClass });
  }
}

/**
 * A `lookup` for net/tls.connect (passed through undici's connector options). The socket connects to
 * exactly the addresses returned here, after they were checked, so there is no second resolution a
 * rebinding DNS server could answer differently; TLS still verifies the certificate against the host name.
 */
export function guardedLookup(resolve: Resolver, policy: GuardPolicy): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const pick = (found: LookupAddress[]): LookupAddress[] => {
      checkAddresses(hostname, found.map((a) => a.address), policy);
      const usable = family ? found.filter((a) => a.family === family) : found;
      if (usable.length > 0) return usable;
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    };
    resolve(hostname)
      .then(pick)
      .then(
        // Node asks for all addresses when it races IPv4/IPv6 (autoSelectFamily), for one otherwise.
        (usable) => (options.all ? callback(null, usable) : callback(null, usable[0].address, usable[0].family)),
        (err: NodeJS.ErrnoException) => callback(err, ''),
      );
  };
}
