import { InstantSchema } from './time.js';

describe('InstantSchema: RFC 3339 with an offset, within years 0001-9999 in UTC', () => {
  it.each([
    ['2026-12-01T18:00:00Z', '2026-12-01T18:00:00.000Z'],
    ['2026-12-01T19:00:00+01:00', '2026-12-01T18:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['2028-02-29T00:00:00Z', '2028-02-29T00:00:00.000Z'],
  ])('accepts %s as %s', (input, utc) => {
    expect(InstantSchema.parse(input)).toBe(utc);
  });

  it.each([
    ['9999-12-31T23:59:59-14:00', 'year 10000 once in UTC'],
    ['0001-01-01T00:00:00+01:00', 'year 0000 once in UTC'],
    ['0000-01-01T00:00:00Z', 'year 0000'],
    ['2026-02-30T00:00:00Z', 'no such day'],
    ['2026-02-29T00:00:00Z', 'not a leap year'],
    ['2026-01-01T24:00:00Z', 'hour 24'],
    ['2026-01-01T23:59:60Z', 'a leap second'],
    ['2026-01-01T00:00:00', 'no offset'],
    ['+012345-01-01T00:00:00Z', 'an expanded year'],
  ])('refuses %s (%s)', (input) => {
    expect(InstantSchema.safeParse(input).success).toBe(false);
  });
});
