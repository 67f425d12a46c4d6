import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a scrape may connect to. Refused by default: every address that is not public —
 * private, loopback, link-local (cloud metadata at 169.254.169.254), CGNAT, unspecified, multicast,
 * documentation and benchmarking ranges, and their IPv4-mapped and NAT64 IPv6 forms. The allow list
 * (`SCRAPE_ALLOWED_HOSTS`) names host names and CIDRs let through anyway (intranets, tests).
 */
export interface AddressPolicy {
  /** Whether `host` (a name, as written in the URL) is allowed by name. */
  allowsHost(host: string): boolean;
  /** Null when the resolved address may be used; else why not. */
  refusal(address: string): string | null;
}

const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];
const BLOCKED_V6: Array<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

const blocked = new BlockList();
for (const [network, prefix] of BLOCKED_V4) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of BLOCKED_V6) blocked.addSubnet(network, prefix, 'ipv6');

/** The 16 bytes of a valid IPv6 address (as `isIP` accepts it: zone ids and a dotted tail allowed). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const before = head ? head.split(':') : [];
  const after = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - before.length - after.length).fill('0');
  return [...before, ...zeros, ...after].flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 255];
  });
}

const startsWith = (bytes: readonly number[], prefix: readonly number[]): boolean =>
  prefix.every((byte, index) => bytes[index] === byte);

/**
 * The IPv4 address an IPv6 one carries, if any, so that it is judged by that address: IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96` and 6to4 `2002::/16` (whose IPv4 address follows the prefix), in any spelling.
 */
function embeddedIpv4(address: string): string | null {
  const bytes = ipv6Bytes(address);
  const zeros = (count: number): number[] => Array<number>(count).fill(0);
  const last = (): string => bytes.slice(12).join('.');
  if (startsWith(bytes, [...zeros(10), 0xff, 0xff])) return last();
  if (startsWith(bytes, [...zeros(8), 0xff, 0xff, 0, 0])) return last();
  if (startsWith(bytes, zeros(12))) return last();
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, ...zeros(8)])) return last();
  if (startsWith(bytes, [0x20, 0x02])) return bytes.slice(2, 6).join('.');
  return null;
}

const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/**
 * What is wrong with an entry of the allow list (`SCRAPE_ALLOWED_HOSTS`), or null: an entry is a
 * host name, an IP address (IPv6 optionally in brackets) or a CIDR — never a port or a URL, which
 * would otherwise be taken for a name that matches nothing, silently.
 */
export function allowEntryProblem(entry: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(entry.toLowerCase())) return 'a host, not a URL';
  const [network = '', prefix, extra] = entry.toLowerCase().split('/');
  if (extra !== undefined) return 'a CIDR has one "/"';
  const bare = network.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) {
    if (/:\d*$/.test(network)) return 'a port is not part of a host: leave it out';
    if (prefix !== undefined) return 'a prefix length needs an IP address before it';
    return HOST_NAME.test(network) ? null : 'not a host name, an IP address or a CIDR';
  }
  const most = family === 4 ? 32 : 128;
  if (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > most)) {
    return `the prefix length must be from 0 to ${most}`;
  }
  return null;
}

/** Host names that name the machine itself or a cloud's metadata service, whatever they resolve to. */
const BLOCKED_NAMES = /^(localhost|.*\.localhost|metadata\.google\.internal|metadata|instance-data)\.?$/i;

export function createAddressPolicy(allowed: readonly string[]): AddressPolicy {
  const names = new Set<string>();
  const networks = new BlockList();
  for (const entry of allowed.map((item) => item.trim().toLowerCase()).filter(Boolean)) {
    const [network, prefix] = entry.split('/');
    const family = isIP(network!.replace(/^\[|\]$/g, ''));
    if (family === 0) names.add(entry.replace(/\.$/, ''));
    else {
      const bare = network!.replace(/^\[|\]$/g, '');
      const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
      networks.addSubnet(bare, bits, family === 4 ? 'ipv4' : 'ipv6');
    }
  }
  const isAllowedAddress = (address: string): boolean => {
    const family = isIP(address);
    if (family === 0) return false;
    if (networks.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
    const v4 = family === 6 ? embeddedIpv4(address) : null;
    return v4 !== null && networks.check(v4, 'ipv4');
  };
  return {
    allowsHost(host) {
      const bare = host
        .toLowerCase()
        .replace(/^\[|\]$/g, '')
        .replace(/\.$/, '');
      if (names.has(bare)) return true;
      return isIP(bare) !== 0 && isAllowedAddress(bare);
    },
    refusal(address) {
      if (isAllowedAddress(address)) return null;
      const family = isIP(address);
      if (family === 0) return `${address} is not an IP address`;
      const v4 = family === 6 ? embeddedIpv4(address) : null;
      const isBlocked =
        v4 !== null ? blocked.check(v4, 'ipv4') : blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
      return isBlocked ? `${address} is a private, loopback, link-local or reserved address` : null;
    },
  };
}

export function isBlockedHostName(host: string): boolean {
  return BLOCKED_NAMES.test(host);
}
