import { z } from 'zod';
import { CursorKey, cursorCodec } from './cursor.js';
import { DomainError } from './domain-error.js';

const events = cursorCodec(z.tuple([CursorKey.instant, CursorKey.uuid]));
const sequences = cursorCodec(z.strictObject({ s: CursorKey.int }));
const ledger = cursorCodec(CursorKey.bigint);
const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function code(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return `${error.code} ${error.errors?.[0]?.field ?? ''}`;
    throw error;
  }
  return 'accepted';
}

describe('keyset cursors: one codec for every list', () => {
  it('round-trips what a list gives', () => {
    const position: [string, string] = ['2026-12-01T18:00:00.000Z', '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f'];
    expect(events.decode(events.encode(position))).toEqual(position);
    expect(sequences.decode(sequences.encode({ s: 2_147_483_647 }))).toEqual({ s: 2_147_483_647 });
    expect(ledger.decode(ledger.encode('9223372036854775807'))).toBe('9223372036854775807');
    expect(events.encode(position)).toBe(b64(position)); // the format: base64url JSON
  });

  it.each([
    ['not base64url', '***'],
    ['empty', ''],
    ['base64 of no JSON', b64('hello')],
    ['JSON of another shape', b64({ s: 1 })],
    ['an impossible date', b64(['2026-02-30T00:00:00.000Z', '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f'])],
    ['a year out of range', b64(['0000-01-01T00:00:00.000Z', '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f'])],
    ['an offset date', b64(['2026-01-01T00:00:00+01:00', '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f'])],
    ['a non-uuid id', b64(['2026-01-01T00:00:00.000Z', "x' OR 1=1"])],
    ['an extra member', b64(['2026-01-01T00:00:00.000Z', '0b9f6d2e-3c4a-4b5d-8e6f-7a8b9c0d1e2f', 1])],
    ['invalid UTF-8 inside', Buffer.from([0x5b, 0xff, 0x5d]).toString('base64url')],
    ['too long', 'A'.repeat(600)],
  ])('refuses %s with 400 validation.failed on cursor', (_label, cursor) => {
    expect(code(() => events.decode(cursor))).toBe('validation.failed cursor');
  });

  it('refuses integers an integer column cannot hold, and bigint strings past 2^63-1', () => {
    for (const s of [2_147_483_648, -1, 1.5, 1e308, '1'])
      expect(code(() => sequences.decode(b64({ s })))).toBe('validation.failed cursor');
    expect(code(() => sequences.decode(b64({ s: 1, t: 2 })))).toBe('validation.failed cursor');
    for (const seq of ['9223372036854775808', '99999999999999999999', '-1', '01', '1e3'])
      expect(code(() => ledger.decode(b64(seq)))).toBe('validation.failed cursor');
  });
});
