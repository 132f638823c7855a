import bs58 from 'bs58';
import fc from 'fast-check';
import { decodeBase58Exact } from './base58.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** What the fast decoder must answer: bs58's bytes when they are `length` long, else null. */
function expected(text: string, length: number): Uint8Array | null {
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(text);
  } catch {
    return null;
  }
  return bytes.length === length ? bytes : null;
}

describe('decodeBase58Exact (the verifier decodes signatures with it, bs58 for anything else)', () => {
  it('decodes every 64-byte value as bs58 encoded it, leading zero bytes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.nat({ max: 64 }), (bytes, zeros) => {
        bytes.fill(0, 0, zeros);
        expect(decodeBase58Exact(bs58.encode(bytes), 64)).toEqual(bytes);
      }),
      { numRuns: 5_000 },
    );
  });

  it('answers what bs58 answers, or null, for any text: other lengths, other characters', () => {
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom(...BASE58), minLength: 0, maxLength: 100 }),
      fc.string({ unit: fc.constantFrom(...`${BASE58}0OIl+/= é`), minLength: 0, maxLength: 100 }),
      fc
        .tuple(fc.nat({ max: 70 }), fc.uint8Array({ minLength: 60, maxLength: 68 }))
        .map(([ones, bytes]) => '1'.repeat(ones) + bs58.encode(bytes)),
    );
    fc.assert(
      fc.property(text, fc.constantFrom(32, 64), (candidate, length) => {
        expect(decodeBase58Exact(candidate, length)).toEqual(expected(candidate, length));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['empty', ''],
    ['64 ones: 64 zero bytes', '1'.repeat(64)],
    ['65 ones', '1'.repeat(65)],
    ['63 ones and z', `${'1'.repeat(63)}z`],
    ['a 65-byte value', bs58.encode(Uint8Array.from([1, ...new Array<number>(64).fill(0)]))],
    ['the largest 64-byte value', bs58.encode(new Uint8Array(64).fill(255))],
    ['one past it', bs58.encode(Uint8Array.from([1, ...new Array<number>(64).fill(0)])).slice(0, -1) + '2'],
    ['not base58', 'O0Il'],
    ['a character past 127', `${bs58.encode(new Uint8Array(64).fill(7))}é`],
  ])('%s', (_, text) => {
    expect(decodeBase58Exact(text, 64)).toEqual(expected(text, 64));
  });
});
