// Charts as inline SVG for the report's HTML page: no script, no font or image to fetch; the
// page's CSS colours them (classes `line`, `area`, `point`, `bar`, `grid`), so they follow its
// light or dark scheme.
import { formatInstant } from '../when.js';
import { clip } from './terminal-charts.js';

/** Text for HTML, in an element or a quoted attribute (inline SVG is parsed as HTML is). */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A chart draws at most this many points: a long event's viewers, sampled every few seconds, are thousands. */
export const MAX_CHART_POINTS = 200;

export interface TimePoint {
  /** RFC 3339. */
  at: string;
  value: number;
}

/** At most `max` points, each the largest of the run it stands for (a peak is never lost). */
export function thin(points: readonly TimePoint[], max = MAX_CHART_POINTS): TimePoint[] {
  if (points.length <= max) return [...points];
  const kept: TimePoint[] = [];
  for (let slot = 0; slot < max; slot++) {
    const run = points.slice(
      Math.floor((slot * points.length) / max),
      Math.floor(((slot + 1) * points.length) / max),
    );
    kept.push(run.reduce((top, point) => (point.value > top.value ? point : top)));
  }
  return kept;
}

const WIDTH = 640;
const round = (n: number) => Math.round(n * 10) / 10;

export interface LineChartOptions {
  points: readonly TimePoint[];
  /** What the chart shows, for a screen reader (and the `<title>`). */
  label: string;
  /** A class of its own, e.g. `registrations`. */
  name: string;
  /** Fill the area under the line. */
  area?: boolean;
}

/**
 * A series over time: a line through the points (and the area under it), a dot at each, the
 * value axis from 0 to the largest value, the first and last times under it. No points: a line
 * of text saying so.
 */
export function lineChart({ points, label, name, area = false }: LineChartOptions): string {
  if (points.length === 0) return `<p class="empty">${escapeHtml(label)}: no data yet.</p>`;
  const shown = thin(points);
  const height = 200;
  const left = 44;
  const right = 12;
  const top = 12;
  const bottom = height - 28;
  const times = shown.map((point) => Date.parse(point.at));
  const first = Math.min(...times);
  const last = Math.max(...times);
  const max = Math.max(1, ...shown.map((point) => point.value));
  const x = (time: number) =>
    round(
      last === first
        ? (left + WIDTH - right) / 2
        : left + ((time - first) / (last - first)) * (WIDTH - left - right),
    );
  const y = (value: number) => round(bottom - (Math.max(0, value) / max) * (bottom - top));
  const coordinates = shown.map((point, at) => [x(times[at]!), y(point.value)] as const);
  const line = coordinates.map(([px, py]) => `${px},${py}`).join(' ');
  const shape = [
    `<line class="grid" x1="${left}" y1="${bottom}" x2="${WIDTH - right}" y2="${bottom}"/>`,
    `<line class="grid" x1="${left}" y1="${top}" x2="${WIDTH - right}" y2="${top}"/>`,
    `<text x="${left - 6}" y="${top + 4}" text-anchor="end">${max}</text>`,
    `<text x="${left - 6}" y="${bottom + 4}" text-anchor="end">0</text>`,
    `<text x="${left}" y="${height - 8}">${escapeHtml(formatInstant(new Date(first).toISOString()))}</text>`,
    ...(last === first
      ? []
      : [
          `<text x="${WIDTH - right}" y="${height - 8}" text-anchor="end">${escapeHtml(formatInstant(new Date(last).toISOString()))}</text>`,
        ]),
    ...(area && coordinates.length > 1
      ? [
          `<path class="area" d="M${coordinates[0]![0]},${bottom} L${line.replaceAll(' ', ' L')} L${coordinates.at(-1)![0]},${bottom} Z"/>`,
        ]
      : []),
    `<polyline class="line" points="${line}"/>`,
    ...shown.map(
      (point, at) =>
        `<circle class="point" cx="${coordinates[at]![0]}" cy="${coordinates[at]![1]}" r="${shown.length > 60 ? 1.5 : 3}"><title>${escapeHtml(`${formatInstant(point.at)}: ${point.value}`)}</title></circle>`,
    ),
  ];
  return svg(name, label, height, shape);
}

export interface Bar {
  label: string;
  value: number;
  /** After the value, e.g. `67%`. */
  note?: string;
}

export interface BarChartOptions {
  bars: readonly Bar[];
  label: string;
  name: string;
  /** Label characters shown before the bar; a longer label is cut (its whole text is the row's `<title>`). */
  labelLength?: number;
}

/** One horizontal bar per item, the largest filling the width; its value (and note) after it. */
export function barChart({ bars, label, name, labelLength = 28 }: BarChartOptions): string {
  if (bars.length === 0) return `<p class="empty">${escapeHtml(label)}: none.</p>`;
  const row = 28;
  const labelWidth = Math.min(260, 20 + labelLength * 7.5);
  const valueWidth = 90;
  const span = WIDTH - labelWidth - valueWidth;
  const max = Math.max(1, ...bars.map((item) => item.value));
  const rows = bars.map((item, at) => {
    const top = 4 + at * row;
    const width = round((Math.max(0, item.value) / max) * span);
    const value = `${item.value}${item.note ? ` · ${item.note}` : ''}`;
    return (
      `<g class="row"><title>${escapeHtml(`${item.label}: ${value}`)}</title>` +
      `<text class="label" x="0" y="${top + 15}">${escapeHtml(clip(item.label, labelLength))}</text>` +
      `<rect class="bar" x="${labelWidth}" y="${top + 2}" width="${width}" height="${row - 10}" rx="3"/>` +
      `<text class="value" x="${round(labelWidth + width + 6)}" y="${top + 15}">${escapeHtml(value)}</text></g>`
    );
  });
  return svg(name, label, bars.length * row + 8, rows);
}

function svg(name: string, label: string, height: number, shapes: string[]): string {
  return [
    `<svg class="chart ${escapeHtml(name)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeHtml(label)}">`,
    `<title>${escapeHtml(label)}</title>`,
    ...shapes,
    '</svg>',
  ].join('\n');
}
