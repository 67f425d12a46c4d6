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

/** The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
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
