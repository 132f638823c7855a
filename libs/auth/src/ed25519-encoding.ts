// Byte-level range checks shared by the portable key check and the Node verifier's hot path, where
// bigint arithmetic and noble are deliberately avoided.

/** Group order L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
const ORDER_L_LE = Uint8Array.from([
  0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
]);

/** Field prime p = 2^255 - 19, little-endian. */
const PRIME_P_LE = Uint8Array.from([0xed, ...new Array<number>(30).fill(0xff), 0x7f]);

function isBelow(bytes: Uint8Array, offset: number, bound: Uint8Array, topMask: number): boolean {
  for (let i = 31; i >= 0; i--) {
    const raw = bytes[offset + i] ?? 0;
    const b = i === 31 ? raw & topMask : raw;
    const limit = bound[i] ?? 0;
    if (b !== limit) return b < limit;
  }
  return false;
}

/** RFC 8032 5.1.7: S must be < L, otherwise S and S + L are two signatures for one message. */
export function isScalarCanonical(bytes: Uint8Array, offset = 0): boolean {
  return isBelow(bytes, offset, ORDER_L_LE, 0xff);
}

/** A point encoding is canonical only if its y (sign bit cleared) is < p. */
export function isPointEncodingCanonical(bytes: Uint8Array, offset = 0): boolean {
  return isBelow(bytes, offset, PRIME_P_LE, 0x7f);
}
