import { clientAddressKey } from './client-address.js';

describe('clientAddressKey', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as the IPv4 address', () => {
    expect(clientAddressKey('203.0.113.9')).toBe('ip:203.0.113.9');
    expect(clientAddressKey('::ffff:203.0.113.9')).toBe('ip:203.0.113.9');
    expect(clientAddressKey('::FFFF:203.0.113.9')).toBe('ip:203.0.113.9');
  });

  it('keys IPv6 by its /64, however the address is written', () => {
    const key = 'ip:2001:db8:0:1::/64';
    expect(clientAddressKey('2001:db8:0:1::1')).toBe(key);
    expect(clientAddressKey('2001:0db8:0000:0001:abcd:ef01:2345:6789')).toBe(key);
    expect(clientAddressKey('2001:DB8:0:1::ffff:1.2.3.4')).toBe(key);
    expect(clientAddressKey('2001:db8:0:2::1')).not.toBe(key);
    expect(clientAddressKey('::1')).toBe('ip:0:0:0:0::/64');
    expect(clientAddressKey('::')).toBe('ip:0:0:0:0::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('ip:fe80:0:0:0::/64');
  });

  it('keeps anything else as it is, and names a missing address', () => {
    expect(clientAddressKey(undefined)).toBe('ip:unknown');
    expect(clientAddressKey('not an address')).toBe('ip:not an address');
  });
});
