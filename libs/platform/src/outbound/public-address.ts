import { isIPv4, isIPv6 } from 'node:net';

/**
 * Why an IP address is no place to send a request to, or undefined for a public unicast
 * address. A webhook URL, or a Signature-Agent's origin, is chosen by any agent, so without this
 * it would be a way to make our apps send requests into their own network (SSRF): loopback,
 * private ranges, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast,
 * reserved and documentation ranges, and IPv6 forms that carry an IPv4 address (mapped,
 * compatible, NAT64, 6to4, Teredo) are refused.
 */
export function refusedAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(bare)) return refusedIPv4(ipv4Bytes(bare));
  if (isIPv6(bare)) return refusedIPv6(ipv6Bytes(bare));
  return 'not an IP address';
}

type Range = readonly [prefix: readonly number[], bits: number, reason: string];

const IPV4_REFUSED: readonly Range[] = [
  [[0], 8, '"this network" (0.0.0.0/8)'],
  [[10], 8, 'private (10.0.0.0/8)'],
  [[100, 64], 10, 'carrier-grade NAT (100.64.0.0/10)'],
  [[127], 8, 'loopback (127.0.0.0/8)'],
  [[169, 254], 16, 'link-local (169.254.0.0/16)'],
  [[172, 16], 12, 'private (172.16.0.0/12)'],
  [[192, 0, 0], 24, 'IETF protocol assignments (192.0.0.0/24)'],
  [[192, 0, 2], 24, 'documentation (192.0.2.0/24)'],
  [[192, 88, 99], 24, '6to4 relay anycast (192.88.99.0/24)'],
  [[192, 168], 16, 'private (192.168.0.0/16)'],
  [[198, 18], 15, 'benchmarking (198.18.0.0/15)'],
  [[198, 51, 100], 24, 'documentation (198.51.100.0/24)'],
  [[203, 0, 113], 24, 'documentation (203.0.113.0/24)'],
  [[224], 4, 'multicast (224.0.0.0/4)'],
  [[240], 4, 'reserved (240.0.0.0/4, broadcast included)'],
];

const IPV6_REFUSED: readonly Range[] = [
  [[], 128, 'unspecified (::)'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback (::1)'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 'IPv4-mapped (::ffff:0:0/96)'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96, 'IPv4-translated (::ffff:0:0:0/96)'],
  [[], 96, 'IPv4-compatible (::/96)'],
  [[0, 0x64, 0xff, 0x9b], 96, 'NAT64 (64:ff9b::/96)'],
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48, 'local NAT64 (64:ff9b:1::/48)'],
  [[0x01, 0, 0, 0, 0, 0, 0, 0], 64, 'discard-only (100::/64)'],
  [[0x20, 0x01, 0, 0], 32, 'Teredo (2001::/32)'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation (2001:db8::/32)'],
  [[0x20, 0x02], 16, '6to4 (2002::/16)'],
  [[0xfc], 7, 'unique local (fc00::/7)'],
  [[0xfe, 0x80], 10, 'link-local (fe80::/10)'],
  [[0xfe, 0xc0], 10, 'site-local (fec0::/10)'],
  [[0xff], 8, 'multicast (ff00::/8)'],
];

function refusedIPv4(bytes: readonly number[]): string | undefined {
  return IPV4_REFUSED.find(([prefix, bits]) => inRange(bytes, prefix, bits))?.[2];
}

function refusedIPv6(bytes: readonly number[]): string | undefined {
  return IPV6_REFUSED.find(([prefix, bits]) => inRange(bytes, prefix, bits))?.[2];
}

/** Whether the first `bits` of `bytes` equal those of `prefix` (missing prefix bytes are 0). */
function inRange(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const index = bit / 8;
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (`::` expanded, a trailing dotted IPv4 read as 4 bytes). */
export function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...ipv4Bytes(dotted[1]!));
    text = text.slice(0, -dotted[1]!.length) + '0:0';
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  const words = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = words.flatMap((word) => [word >> 8, word & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}
