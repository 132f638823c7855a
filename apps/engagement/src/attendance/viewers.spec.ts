import { viewersOverTime } from './viewers.js';

const T0 = Date.parse('2031-03-04T19:00:00.000Z');
const point = (index: number, viewers: number, stepMs = 15_000) => ({
  at: new Date(T0 + index * stepMs),
  viewers,
});

describe('viewersOverTime', () => {
  it('answers the buckets as sampled, oldest first, and their peak', () => {
    expect(viewersOverTime([point(1, 4), point(0, 2), point(2, 3)])).toEqual({
      overTime: [
        { at: new Date(T0).toISOString(), viewers: 2 },
        { at: new Date(T0 + 15_000).toISOString(), viewers: 4 },
        { at: new Date(T0 + 30_000).toISOString(), viewers: 3 },
      ],
      peak: 4,
    });
    expect(viewersOverTime([])).toEqual({ overTime: [], peak: 0 });
  });

  it('merges a long event into at most 200 points, each the most of its buckets, so the peak survives', () => {
    // Four hours of 15 s buckets: 960 points, one spike.
    const points = Array.from({ length: 960 }, (_, index) => point(index, index === 537 ? 90 : index % 7));
    const { overTime, peak } = viewersOverTime(points);
    expect(overTime.length).toBeLessThanOrEqual(200);
    expect(overTime.length).toBeGreaterThan(150);
    expect(peak).toBe(90);
    expect(Math.max(...overTime.map((p) => p.viewers))).toBe(90);
    expect(overTime[0]!.at).toBe(new Date(T0).toISOString());
    const times = overTime.map((p) => Date.parse(p.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // Each merged point is the most of the buckets from it to the next one.
    overTime.forEach((merged, index) => {
      const from = Date.parse(merged.at);
      const to = index + 1 < overTime.length ? Date.parse(overTime[index + 1]!.at) : Infinity;
      const covered = points.filter((p) => p.at.getTime() >= from && p.at.getTime() < to);
      expect(covered.length).toBeLessThanOrEqual(5);
      expect(merged.viewers).toBe(Math.max(...covered.map((p) => p.viewers)));
    });
  });

  it('takes a smaller maximum', () => {
    const { overTime } = viewersOverTime([point(0, 1), point(1, 5), point(2, 2), point(3, 3)], 2);
    expect(overTime).toEqual([
      { at: new Date(T0).toISOString(), viewers: 5 },
      { at: new Date(T0 + 30_000).toISOString(), viewers: 3 },
    ]);
  });
});
