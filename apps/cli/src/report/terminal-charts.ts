// Charts in a terminal: a sparkline for a series over time, a bar for one number against others.

const LEVELS = '▁▂▃▄▅▆▇█';
/** A bar's last cell, in eighths of a cell. */
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/**
 * At most `width` values, each the largest of the run of values it stands for: a peak is never
 * lost, and a running total keeps its last (largest) value.
 */
export function resample(values: readonly number[], width: number): number[] {
  if (values.length <= width) return [...values];
  const kept: number[] = [];
  for (let column = 0; column < width; column++) {
    const from = Math.floor((column * values.length) / width);
    const to = Math.floor(((column + 1) * values.length) / width);
    kept.push(Math.max(...values.slice(from, to)));
  }
  return kept;
}

/** `▁▃▅█`: each value as one of eight heights, from 0 to the largest; empty for no values. */
export function sparkline(values: readonly number[], width = 60): string {
  const columns = resample(values, width);
  const max = Math.max(0, ...columns);
  return columns
    .map((value) => LEVELS[max <= 0 ? 0 : Math.max(0, Math.round((value / max) * (LEVELS.length - 1)))])
    .join('');
}

/**
 * `████▌`: `value` as a bar of up to `width` cells, `max` filling them all, to an eighth of a cell.
 * A value above 0 shows at least an eighth, so that nothing counted looks like nothing.
 */
export function bar(value: number, max: number, width = 30): string {
  if (max <= 0 || value <= 0) return '';
  const eighths = Math.max(1, Math.round((Math.min(value, max) / max) * width * 8));
  return '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

/**
 * What a person wrote, made safe to print on one terminal line: control characters (an escape
 * sequence could recolour, move the cursor or retitle the terminal), line breaks and the
 * direction overrides that reorder what is shown become spaces.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, ' ');
}

/** `text` cut to `length` characters (not UTF-16 units), with `…` when cut. */
export function clip(text: string, length: number): string {
  const characters = Array.from(text);
  return characters.length <= length ? text : `${characters.slice(0, length - 1).join('')}…`;
}
