import fc from 'fast-check';
import { assetUnits, decimalAmount, formatAmount } from './amounts.js';
import { SOLANA_DEVNET, SOLANA_MAINNET, USDC_MINTS } from './solana-clusters.js';

describe('decimalAmount', () => {
  it.each([
    ['0', '0'],
    ['1', '0.000001'],
    ['999999', '0.999999'],
    ['1000000', '1'],
    ['2500', '0.0025'],
    ['1500000', '1.5'],
    ['7500', '0.0075'],
    ['10000000', '10'],
    ['000002500', '0.0025'],
    ['18446744073709551616', '18446744073709.551616'],
    ['340282366920938463463374607431768211456', '340282366920938463463374607431768.211456'],
    ['-2500', '-0.0025'],
    ['-1000000', '-1'],
    ['-0', '0'],
  ])('%s atomic units of 6 decimals are %s', (atomic, shown) => {
    expect(decimalAmount(atomic, 6)).toBe(shown);
  });

  it('takes a bigint, exactly past 2^64', () => {
    expect(decimalAmount(2n ** 64n, 6)).toBe('18446744073709.551616');
    expect(decimalAmount(2n ** 64n + 1n, 6)).toBe('18446744073709.551617');
  });

  it('counts 0 decimals as whole units, and any other number of decimals', () => {
    expect(decimalAmount('2500', 0)).toBe('2500');
    expect(decimalAmount('2500', 2)).toBe('25');
    expect(decimalAmount('2501', 8)).toBe('0.00002501');
  });

  it.each(['', '1.5', '1e6', ' 1', '+1', '0x10', 'abc', '--1'])('refuses %j', (amount) => {
    expect(() => decimalAmount(amount, 6)).toThrow(RangeError);
  });

  it('reads back as the same number of atomic units, for any integer', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 128n), max: 2n ** 128n }),
        fc.integer({ min: 0, max: 18 }),
        (atomic, decimals) => {
          const shown = decimalAmount(atomic, decimals);
          const [whole, fraction = ''] = shown.replace('-', '').split('.');
          const back =
            BigInt(`${whole}${fraction.padEnd(decimals, '0')}`) * (shown.startsWith('-') ? -1n : 1n);
          expect(back).toBe(atomic);
          expect(fraction.endsWith('0')).toBe(false);
        },
      ),
    );
  });
});

describe('formatAmount', () => {
  it('shows USDC in its own units, by its ledger name and by its mint on each cluster', () => {
    expect(formatAmount('2500', 'USDC')).toBe('0.0025 USDC');
    expect(formatAmount('2500000', USDC_MINTS[SOLANA_MAINNET]!)).toBe('2.5 USDC');
    expect(formatAmount('1', USDC_MINTS[SOLANA_DEVNET]!)).toBe('0.000001 USDC');
    expect(formatAmount('0', 'USDC')).toBe('0 USDC');
    expect(formatAmount(-2500n, 'USDC')).toBe('-0.0025 USDC');
  });

  it('puts the atomic units beside it when asked', () => {
    expect(formatAmount('2500', 'USDC', { atomic: true })).toBe('0.0025 USDC (2500)');
    expect(formatAmount('1000000', 'USDC', { atomic: true })).toBe('1 USDC (1000000)');
  });

  it('shows an asset whose decimals it does not know as atomic units, never a guess', () => {
    expect(assetUnits('EURC')).toBeUndefined();
    expect(formatAmount('2500', 'EURC')).toBe('2500 atomic units of EURC');
    expect(formatAmount('2500', 'EURC', { atomic: true })).toBe('2500 atomic units of EURC');
    expect(() => formatAmount('2.5', 'EURC')).toThrow(RangeError);
  });
});
