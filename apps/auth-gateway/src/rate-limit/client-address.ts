import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a client's unsigned requests are counted under: its IPv4 address, or the /64 network
 * of its IPv6 address, since one host usually holds a whole /64 and could otherwise take a new
 * address (and a new budget) per request. An IPv4-mapped IPv6 address counts as the IPv4 one.
 */
export function clientAddressKey(ip: string | undefined): string {
  if (!ip) return 'ip:unknown';
  const address = ip.replace(/%.*$/, '').toLowerCase(); // a zone id (fe80::1%eth0) names no other host
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped?.[1] && isIPv4(mapped[1])) return `ip:${mapped[1]}`;
  if (isIPv4(address)) return `ip:${address}`;
  if (!isIPv6(address)) return `ip:${address}`;
  return `ip:${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address;
  const embedded = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (embedded) {
    const [a, b, c, d] = embedded.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, embedded.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left = '', right] = text.split('::');
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const zeros = right === undefined ? [] : Array<string>(8 - head.length - tail.length).fill('0');
  return [...head, ...zeros, ...tail].map((group) => parseInt(group, 16).toString(16));
}
