import { bar, clip, printable, resample, sparkline } from './terminal-charts.js';

describe('sparkline', () => {
  it('is empty for no values', () => {
    expect(sparkline([])).toBe('');
  });

  it('draws one value as one column, and nothing counted at the bottom', () => {
    expect(sparkline([5])).toBe('█');
    expect(sparkline([0])).toBe('▁');
    expect(sparkline([0, 0, 0])).toBe('▁▁▁');
  });

  it('scales many values from 0 to the largest', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([7, 0, 7])).toBe('█▁█');
  });

  it('fits a long series in the width, keeping its peaks', () => {
    const values = Array.from({ length: 1000 }, (_, n) => (n === 501 ? 100 : 1));
    const line = sparkline(values, 50);
    expect(Array.from(line)).toHaveLength(50);
    expect(line).toContain('█');
    expect(line.replace('█', '')).toMatch(/^▁+$/);
  });
});

describe('resample', () => {
  it('keeps a short series as it is', () => {
    expect(resample([1, 2, 3], 5)).toEqual([1, 2, 3]);
  });

  it('keeps the largest of each run, so a running total ends at its total', () => {
    const totals = Array.from({ length: 100 }, (_, n) => n + 1);
    const kept = resample(totals, 10);
    expect(kept).toHaveLength(10);
    expect(kept.at(-1)).toBe(100);
    expect(kept[0]).toBe(10);
  });
});

describe('bar', () => {
  it('is empty for nothing, full for the largest, to an eighth of a cell', () => {
    expect(bar(0, 10, 10)).toBe('');
    expect(bar(3, 0, 10)).toBe('');
    expect(bar(10, 10, 10)).toBe('██████████');
    expect(bar(5, 10, 10)).toBe('█████');
    expect(bar(1, 16, 2)).toBe('▏');
    expect(bar(3, 16, 2)).toBe('▍');
  });

  it('shows any value above 0, however small', () => {
    expect(bar(1, 1_000_000, 10)).toBe('▏');
  });
});

describe('printable', () => {
  it('turns escape sequences, line breaks and direction overrides into spaces', () => {
    expect(printable('a\u001b]0;pwned\u0007b')).toBe('a ]0;pwned b');
    expect(printable('one\ntwo\r\u2028three')).toBe('one two  three');
    expect(printable('abc\u202edcba')).toBe('abc dcba');
    expect(printable('\u009b31m')).toBe(' 31m');
  });

  it('keeps text, accents and emoji', () => {
    expect(printable('Où est-ce? 🎉 「こんにちは」')).toBe('Où est-ce? 🎉 「こんにちは」');
  });
});

describe('clip', () => {
  it('cuts by characters, not UTF-16 units', () => {
    expect(clip('short', 10)).toBe('short');
    expect(clip('abcdefghij', 5)).toBe('abcd…');
    expect(clip('🎉🎉🎉🎉', 3)).toBe('🎉🎉…');
  });
});
