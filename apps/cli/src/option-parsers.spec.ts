import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from 'commander';
import {
  amount,
  code,
  collect,
  duration,
  instant,
  integer,
  jsonObject,
  link,
  localDateTime,
  tier,
  tierIds,
} from './option-parsers.js';

describe('option parsers', () => {
  it('accepts integers in range only', () => {
    expect(integer(1, 100)('42')).toBe(42);
    expect(() => integer(1, 100)('0')).toThrow('must be between 1 and 100');
    expect(() => integer(1, 100)('4.2')).toThrow(InvalidArgumentError);
    expect(() => integer(1, 100)('many')).toThrow('must be an integer');
  });

  it('keeps amounts as positive integer strings', () => {
    expect(amount(' 2500 ')).toBe('2500');
    expect(amount('123456789012345678901234567890')).toBe('123456789012345678901234567890');
    for (const bad of ['0', '-1', '2.5', '1e3', '0100', 'abc'])
      expect(() => amount(bad)).toThrow(InvalidArgumentError);
  });

  it('reads instants, durations and local date-times', () => {
    expect(instant('2027-03-04T19:00:00Z')).toBe('2027-03-04T19:00:00.000Z');
    expect(() => instant('next week')).toThrow(InvalidArgumentError);
    expect(duration('1h')).toBe(3_600_000);
    expect(() => duration('30s')).toThrow('must be a duration');
    expect(localDateTime('2027-03-04T19:00')).toBe('2027-03-04T19:00');
    expect(() => localDateTime('2027-03-04T19:00Z')).toThrow(InvalidArgumentError);
  });

  it('collects repeatable options in order', () => {
    expect(collect('b', collect('a', undefined))).toEqual(['a', 'b']);
    expect(link('docs=https://x.example/a=b', undefined)).toEqual([
      { label: 'docs', url: 'https://x.example/a=b' },
    ]);
    expect(() => link('docs', undefined)).toThrow('must be label=url');
    expect(tier('vip:VIP seats:2500:20', undefined)).toEqual([
      { id: 'vip', name: 'VIP seats', price: '2500', capacity: 20 },
    ]);
    expect(() => tier('vip:VIP:2500', undefined)).toThrow('id:name:price:capacity');
    expect(() => tier('vip:VIP:free:20', undefined)).toThrow(InvalidArgumentError);
    // A hidden tier: sold only with a code that unlocks it.
    expect(tier('crew:Crew:1:5:hidden', tier('std:Standard:1000:45', undefined))).toEqual([
      { id: 'std', name: 'Standard', price: '1000', capacity: 45 },
      { id: 'crew', name: 'Crew', price: '1', capacity: 5, hidden: true },
    ]);
    expect(() => tier('crew:Crew:1:5:secret', undefined)).toThrow(':hidden');
  });

  it("reads a host's code and lists of tier ids", () => {
    expect(code(' Spring_25 ')).toBe('Spring_25');
    for (const bad of ['ab', '-spring', 'spring 25', 'x'.repeat(33), 'früh'])
      expect(() => code(bad)).toThrow('3 to 32 letters, digits, _ and -');
    expect(tierIds('vip, crew,vip')).toEqual(['vip', 'crew']);
    for (const bad of ['', ',', 'VIP', 'a b', Array.from({ length: 11 }, (_, n) => `t${n}`).join(',')])
      expect(() => tierIds(bad)).toThrow('tier ids, comma separated');
  });

  it('reads JSON objects inline or from @file', async () => {
    expect(jsonObject('{"agenda":[]}')).toEqual({ agenda: [] });
    expect(() => jsonObject('[1]')).toThrow('must be a JSON object');
    expect(() => jsonObject('{')).toThrow('must be a JSON object');
    const dir = await mkdtemp(join(tmpdir(), 'townhall-cli-'));
    try {
      await writeFile(join(dir, 'event.json'), '{"description":"from a file"}');
      expect(jsonObject(`@${join(dir, 'event.json')}`)).toEqual({ description: 'from a file' });
      expect(() => jsonObject(`@${join(dir, 'missing.json')}`)).toThrow('cannot read');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
