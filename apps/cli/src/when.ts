// Times on the command line: RFC 3339 instants, `now`, or offsets from now like `+90m`.

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const DURATION = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** Milliseconds of `90m`, `1h30m`, `2d`, `1w`, `45s`; a bare number is minutes. Undefined if not one. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * UNIT_MS.m;
  const match = DURATION.exec(trimmed);
  if (!match || trimmed === '') return undefined;
  const [, w, d, h, m, s] = match;
  return (
    Number(w ?? 0) * UNIT_MS.w +
    Number(d ?? 0) * UNIT_MS.d +
    Number(h ?? 0) * UNIT_MS.h +
    Number(m ?? 0) * UNIT_MS.m +
    Number(s ?? 0) * UNIT_MS.s
  );
}

/**
 * An instant as RFC 3339 UTC: `now`, `+<duration>` from now (`+10m`, `+1h30m`, `+2d`), or an
 * RFC 3339 time with `Z` or an offset. Undefined if it is none of these (a time without an
 * offset is ambiguous, so it is refused rather than guessed).
 */
export function parseInstant(text: string, now: Date = new Date()): string | undefined {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'now') return now.toISOString();
  if (trimmed.startsWith('+')) {
    const ms = parseDuration(trimmed.slice(1));
    return ms === undefined ? undefined : new Date(now.getTime() + ms).toISOString();
  }
  if (!INSTANT.test(trimmed)) return undefined;
  const time = Date.parse(trimmed);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** `2026-03-04 19:00 UTC` from an RFC 3339 instant: short, sortable, unambiguous. */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `1h 30m` from milliseconds. */
export function formatDuration(ms: number): string {
  const minutes = Math.round(ms / UNIT_MS.m);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  const parts = [days ? `${days}d` : '', hours ? `${hours}h` : '', rest ? `${rest}m` : ''].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : '0m';
}
