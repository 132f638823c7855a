/** The live streams of an event open at one bucket, every gateway's summed. */
export interface ViewerPoint {
  at: Date;
  viewers: number;
}

/** The most points of `viewersOverTime`: a long event's buckets are merged into wider ones. */
export const MAX_VIEWER_POINTS = 200;

/**
 * Concurrent viewers over time (docs/product.md "The report"): the buckets as sampled (oldest
 * first), or, past `max` of them, merged into `max` spans of equal length, each the most viewers of
 * its buckets at the time of its first one, so that a peak survives. `peak` is the most of all
 * (0 without samples).
 */
export function viewersOverTime(
  points: readonly ViewerPoint[],
  max = MAX_VIEWER_POINTS,
): { overTime: Array<{ at: string; viewers: number }>; peak: number } {
  const sorted = [...points].sort((a, b) => a.at.getTime() - b.at.getTime());
  const peak = sorted.reduce((most, point) => Math.max(most, point.viewers), 0);
  if (sorted.length <= max)
    return { overTime: sorted.map(({ at, viewers }) => ({ at: at.toISOString(), viewers })), peak };
  const first = sorted[0]!.at.getTime();
  const span = sorted.at(-1)!.at.getTime() - first + 1;
  const merged: ViewerPoint[] = [];
  let current: { index: number; point: ViewerPoint } | undefined;
  for (const point of sorted) {
    const index = Math.floor(((point.at.getTime() - first) * max) / span);
    if (current?.index === index) current.point.viewers = Math.max(current.point.viewers, point.viewers);
    else merged.push((current = { index, point: { ...point } }).point);
  }
  return { overTime: merged.map(({ at, viewers }) => ({ at: at.toISOString(), viewers })), peak };
}
