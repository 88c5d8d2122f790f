import { BlockList, isIP } from 'node:net';

/** Why an IPv4 address is not a public destination. */
export type V4Reason =
  | 'unspecified' | 'private' | 'cgnat' | 'loopback' | 'link-local' | 'reserved'
  | 'documentation' | 'benchmarking' | 'multicast' | 'broadcast';

/** Why an IPv6 address is not a public destination; the `…-<v4 reason>` forms embed a non-public IPv4 address. */
export type V6Reason =
  | 'unspecified' | 'loopback' | 'private' | 'link-local' | 'multicast' | 'documentation' | 'reserved'
  | `ipv4-mapped-${V4Reason}` | `nat64-${V4Reason}` | `6to4-${V4Reason}`;

export type AddressClass = 'public' | 'invalid' | V4Reason | V6Reason;

type Rule<R> = [reason: R, network: string, prefix: number];

/** Checked in order, first match wins (255.255.255.255 before 240/4). Sources: IANA special-purpose registries. */
const V4_RULES: Rule<V4Reason>[] = [
  ['unspecified', '0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['private', '10.0.0.0', 8],
  ['cgnat', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16], // includes cloud metadata at 169.254.169.254
  ['private', '172.16.0.0', 12],
  ['reserved', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['reserved', '192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['broadcast', '255.255.255.255', 32],
  ['reserved', '240.0.0.0', 4],
];

/** Plain IPv6 ranges; the forms embedding IPv4 are decoded separately (see classifyV6). */
const V6_RULES: Rule<V6Reason>[] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['reserved', '::', 96], // deprecated IPv4-compatible ::a.b.c.d
  ['private', '64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['reserved', '100::', 64], // discard-only
  ['reserved', '2001::', 23], // IETF protocol assignments, incl. Teredo tunnels (2001::/32)
  ['documentation', '2001:db8::', 32],
  ['documentation', '3fff::', 20],
  ['private', 'fc00::', 7], // unique local
  ['private', 'fec0::', 10], // deprecated site-local
  ['link-local', 'fe80::', 10],
  ['multicast', 'ff00::', 8],
];

/** One BlockList per rule keeps the reason of the first match; node:net does the prefix arithmetic. */
function compile<R>(rules: Rule<R>[], family: 'ipv4' | 'ipv6'): Array<[R, BlockList]> {
  return rules.map(([reason, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return [reason, list];
  });
}

const V4 = compile(V4_RULES, 'ipv4');
const V6 = compile(V6_RULES, 'ipv6');
const GLOBAL_UNICAST = compile([['public', '2000::', 3]], 'ipv6')[0][1];

/**
 * Classifies an IP address as a destination for outbound requests: 'public', or the reason it is not.
 * Anything outside global unicast (2000::/3) is refused for IPv6, so unlisted ranges fail closed.
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/%.*$/, ''); // zone id (fe80::1%eth0) does not change the class
  const family = isIP(bare);
  if (family === 4) return classifyV4(bare);
  if (family === 6) return classifyV6(bare);
  return 'invalid';
}

function classifyV4(ip: string): 'public' | V4Reason {
  for (const [reason, list] of V4) if (list.check(ip, 'ipv4')) return reason;
  return 'public';
}

function classifyV6(ip: string): 'public' | V6Reason {
  const h = hextets(ip);
  const embedded = (prefix: 'ipv4-mapped' | 'nat64' | '6to4', hi: number, lo: number): 'public' | V6Reason => {
    const v4 = classifyV4(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    return v4 === 'public' ? 'public' : `${prefix}-${v4}`;
  };
  // ::ffff:a.b.c.d (also written ::ffff:7f00:1): the kernel connects to the IPv4 address itself.
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) return embedded('ipv4-mapped', h[6], h[7]);
  // 64:ff9b::/96 NAT64: a translator forwards to the embedded IPv4 address.
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) return embedded('nat64', h[6], h[7]);
  // 2002:AABB:CCDD::/48 6to4: tunnels to the IPv4 address AA.BB.CC.DD.
  if (h[0] === 0x2002) return embedded('6to4', h[1], h[2]);
  for (const [reason, list] of V6) if (list.check(ip, 'ipv6')) return reason;
  return GLOBAL_UNICAST.check(ip, 'ipv6') ? 'public' : 'reserved';
}

/** The eight 16-bit groups of a valid IPv6 address. WHATWG URL canonicalises first (dotted tails become hex). */
function hextets(ip: string): number[] {
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const [head, tail] = canonical.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16));
}
