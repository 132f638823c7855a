import { ipv6Bytes, refusedAddressReason } from './public-address.js';

describe('refusedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'this network'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::FFFF:10.0.0.1', 'IPv4-mapped'],
    // Mapped public addresses too: an IPv4 address is checked as IPv4, never in this disguise.
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::ffff:0:8.8.8.8', 'IPv4-translated'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['64:ff9b:1::1', 'local NAT64'],
    ['2002:7f00:1::', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard-only'],
    ['localhost', 'not an IP address'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(refusedAddressReason(address)).toContain(reason);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '192.169.0.1',
    '169.253.255.255',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:4860:4860::8888',
    '2003::1',
    'fbff::1',
    'fe7f::1',
  ])('%s is public', (address) => {
    expect(refusedAddressReason(address)).toBeUndefined();
  });

  it('expands IPv6 forms to the same 16 bytes', () => {
    const loopback = [...new Array<number>(15).fill(0), 1];
    expect(ipv6Bytes('::1')).toEqual(loopback);
    expect(ipv6Bytes('0:0:0:0:0:0:0:1')).toEqual(loopback);
    expect(ipv6Bytes('::ffff:127.0.0.1')).toEqual(ipv6Bytes('::ffff:7f00:1'));
    expect(ipv6Bytes('fe80::')).toEqual([0xfe, 0x80, ...new Array<number>(14).fill(0)]);
    expect(ipv6Bytes('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
  });
});
