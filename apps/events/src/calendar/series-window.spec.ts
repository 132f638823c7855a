import { seriesCalendarTag, seriesCalendarWindow } from './series-window.js';

describe("a series' calendar window", () => {
  it('holds the occurrences from 3 calendar months back to 12 ahead, in UTC', () => {
    const { from, to } = seriesCalendarWindow(new Date('2027-05-31T10:15:00.000Z'));
    // Month ends clamp: 31 May less 3 months is 28 February, plus 12 months is 31 May a year on.
    expect(from.toISOString()).toBe('2027-02-28T10:15:00.000Z');
    expect(to.toISOString()).toBe('2028-05-31T10:15:00.000Z');
  });

  it('moves with time: across a year end and a leap day', () => {
    const january = seriesCalendarWindow(new Date('2028-01-15T00:00:00.000Z'));
    expect([january.from.toISOString(), january.to.toISOString()]).toEqual([
      '2027-10-15T00:00:00.000Z',
      '2029-01-15T00:00:00.000Z',
    ]);
    const leap = seriesCalendarWindow(new Date('2028-02-29T23:59:59.999Z'));
    expect([leap.from.toISOString(), leap.to.toISOString()]).toEqual([
      '2027-11-29T23:59:59.999Z',
      '2029-02-28T23:59:59.999Z',
    ]);
  });

  it('tags the file by the series and its occurrences, not by when it was asked', () => {
    const updated = new Date('2027-01-01T00:00:00.000Z');
    const tag = seriesCalendarTag(updated, '3:abc', 'https://townhall.example');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(seriesCalendarTag(updated, '3:abc', 'https://townhall.example')).toBe(tag);
    expect(seriesCalendarTag(updated, '3:abd', 'https://townhall.example')).not.toBe(tag);
    expect(seriesCalendarTag(new Date(updated.getTime() + 1), '3:abc', 'https://townhall.example')).not.toBe(
      tag,
    );
    expect(seriesCalendarTag(updated, '3:abc', 'https://other.example')).not.toBe(tag);
  });
});
