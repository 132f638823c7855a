import { loadConfig } from '@townhall/platform';
import { GatewayConfigSchema } from '../config.js';

describe('rate-limit configuration', () => {
  it('defaults to docs/product.md "Limits": 20 writes/s per agent, bursts of 40, 200 reads/s; no proxy trusted', () => {
    expect(loadConfig(GatewayConfigSchema, {})).toMatchObject({
      RATE_LIMIT_WRITES_PER_SECOND: 20,
      RATE_LIMIT_WRITE_BURST: 40,
      RATE_LIMIT_READS_PER_SECOND: 200,
      TRUST_PROXY: false,
    });
  });

  it('reads TRUST_PROXY as true, false or a list of addresses and ranges', () => {
    const trust = (value: string) => loadConfig(GatewayConfigSchema, { TRUST_PROXY: value }).TRUST_PROXY;
    expect(trust('true')).toBe(true);
    expect(trust('false')).toBe(false);
    expect(trust('loopback, 10.0.0.0/8,fd00::/8, 192.168.1.7')).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.168.1.7',
    ]);
  });

  it('refuses hop counts, bad addresses, and a burst below the rate, naming the variable', () => {
    expect(() => loadConfig(GatewayConfigSchema, { TRUST_PROXY: '1' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig(GatewayConfigSchema, { TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
    expect(() =>
      loadConfig(GatewayConfigSchema, { RATE_LIMIT_WRITES_PER_SECOND: '50', RATE_LIMIT_WRITE_BURST: '40' }),
    ).toThrow(/RATE_LIMIT_WRITE_BURST: must be at least RATE_LIMIT_WRITES_PER_SECOND/);
    expect(() => loadConfig(GatewayConfigSchema, { RATE_LIMIT_READS_PER_SECOND: '-1' })).toThrow(
      /RATE_LIMIT_READS_PER_SECOND/,
    );
    // 0 turns writes off, whatever the burst says.
    expect(
      loadConfig(GatewayConfigSchema, { RATE_LIMIT_WRITES_PER_SECOND: '0', RATE_LIMIT_WRITE_BURST: '0' }),
    ).toMatchObject({ RATE_LIMIT_WRITES_PER_SECOND: 0 });
  });
});
