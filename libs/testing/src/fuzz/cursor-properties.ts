import fc from 'fast-check';

/**
 * For the keyset-cursor property tests of every list (events, engagement, tickets, ledger): what a
 * hostile client can put in `?cursor=`, and what a column can hold. A decoded cursor is compared
 * with a column in SQL; if the column cannot hold the value, Postgres fails the query and the
 * client gets a 500, so "decodes to a value the column holds, or is refused as 400" is the
 * property. The oracles here are written independently of the codecs they judge.
 */

const b64url = (text: string | Uint8Array) => Buffer.from(text).toString('base64url');

const MIN_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');
const UTC_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a `timestamptz` column holds without surprise: a real UTC instant of years 0001-9999. */
export function isColumnInstant(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const match = UTC_INSTANT.exec(value);
  if (!match) return false;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || ms < MIN_INSTANT || ms > MAX_INSTANT) return false;
  // Date.parse rolls 2026-02-30 over into March; the column refuses it.
  return new Date(ms).toISOString().slice(0, 19) === value.slice(0, 19);
}

export function isColumnUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}

/** A Postgres `integer` that a keyset compares with (never negative here). */
export function isColumnInt(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 2_147_483_647;
}

/** A Postgres `bigint` sequence, carried as a decimal string. */
export function isColumnBigint(value: unknown): boolean {
  return typeof value === 'string' && /^(0|[1-9][0-9]{0,18})$/.test(value) && BigInt(value) <= 2n ** 63n - 1n;
}

/** Instants a list really hands out: `toISOString()` of years 0001 to 9999. */
export function columnInstant(): fc.Arbitrary<string> {
  return fc
    .date({ min: new Date(MIN_INSTANT), max: new Date(MAX_INSTANT), noInvalidDate: true })
    .map((date) => date.toISOString());
}

const nearMissInstants = fc.constantFrom(
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-14:00',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00.000Z',
  '2026-02-30T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-01-01',
  'Tue, 01 Jan 2030 00:00:00 GMT',
  '2026-01-01T00:00:00.000+01:00',
  '',
  'now',
);

const nearMissIds = fc.constantFrom(
  'not-a-uuid',
  '',
  '\u0000',
  'x'.repeat(200),
  '00000000-0000-0000-0000-00000000000g',
);

const nearMissNumbers = fc.oneof(
  fc.constantFrom(2_147_483_648, -1, 1.5, 1e308, -0, Number('9007199254740993'), Number.MAX_SAFE_INTEGER),
  fc.double(),
  fc.integer(),
  fc.string({ maxLength: 5 }),
  fc.constant(null),
);

const nearMissSequences = fc.oneof(
  fc.constantFrom('9223372036854775808', '99999999999999999999', '-1', '1e3', '01', ' 1', '0x10', ''),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.integer({ min: -10, max: 1_000 }),
);

/**
 * Strings a client may send as `cursor`: anything at all, base64url of anything, and base64url
 * JSON of every list's key shape with members no column holds.
 */
export function hostileCursorText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ maxLength: 64 }),
    fc.string({ maxLength: 64, unit: 'binary' }),
    fc.uint8Array({ maxLength: 64 }).map(b64url),
    fc.jsonValue({ maxDepth: 3 }).map((value) => b64url(JSON.stringify(value))),
    fc
      .tuple(fc.oneof(columnInstant(), nearMissInstants, fc.string()), fc.oneof(fc.uuid(), nearMissIds))
      .map((tuple) => b64url(JSON.stringify(tuple))),
    fc
      .tuple(columnInstant(), fc.uuid(), fc.anything({ maxDepth: 1 }))
      .map((tuple) => b64url(JSON.stringify(tuple.slice(0, 3)))),
    fc
      .record({ s: nearMissNumbers, u: nearMissNumbers }, { requiredKeys: [] })
      .map((keys) => b64url(JSON.stringify(keys))),
    nearMissSequences.map((seq) => b64url(typeof seq === 'string' ? seq : JSON.stringify(seq))),
    nearMissSequences.map((seq) => b64url(JSON.stringify(String(seq)))),
    fc.constantFrom(b64url('{"s":1e999}'), b64url('["\\ud800","x"]'), 'A'.repeat(600), '%00', '===='),
  );
}
