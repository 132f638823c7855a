import { formatDuration, formatInstant, parseDuration, parseInstant } from './when.js';

describe('times on the command line', () => {
  const now = new Date('2027-03-04T10:00:00.000Z');

  it('reads durations', () => {
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('2d')).toBe(2 * 86_400_000);
    expect(parseDuration('1w')).toBe(7 * 86_400_000);
    expect(parseDuration('45')).toBe(45 * 60_000);
    expect(parseDuration('')).toBeUndefined();
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('1m1h')).toBeUndefined();
  });

  it('reads instants: now, offsets from now, RFC 3339 with an offset', () => {
    expect(parseInstant('now', now)).toBe('2027-03-04T10:00:00.000Z');
    expect(parseInstant('+1h30m', now)).toBe('2027-03-04T11:30:00.000Z');
    expect(parseInstant('2027-03-04T19:00:00+01:00', now)).toBe('2027-03-04T18:00:00.000Z');
    expect(parseInstant('2027-03-04T19:00Z', now)).toBe('2027-03-04T19:00:00.000Z');
    // Without an offset the instant is ambiguous: refused, never guessed.
    expect(parseInstant('2027-03-04T19:00', now)).toBeUndefined();
    expect(parseInstant('tomorrow', now)).toBeUndefined();
    expect(parseInstant('+', now)).toBeUndefined();
  });

  it('formats instants and durations for people', () => {
    expect(formatInstant('2027-03-04T19:00:00.000Z')).toBe('2027-03-04 19:00 UTC');
    expect(formatInstant(null)).toBe('-');
    expect(formatDuration(90 * 60_000)).toBe('1h 30m');
    expect(formatDuration(26 * 3_600_000)).toBe('1d 2h');
    expect(formatDuration(0)).toBe('0m');
  });
});
