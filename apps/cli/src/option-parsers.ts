// Parsers for commander options and arguments: a bad value is a usage error (exit 2) that names
// what was expected, before any request is made.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';
import { parseDuration, parseInstant } from './when.js';

/** An integer within [min, max]. */
export function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`must be an integer`);
    const number = Number(value);
    if (number < min || number > max) throw new InvalidArgumentError(`must be between ${min} and ${max}`);
    return number;
  };
}

/** A positive amount in atomic units, as the integer string the API wants (no floats near money). */
export function amount(value: string): string {
  const trimmed = value.trim();
  if (!/^[1-9][0-9]{0,29}$/.test(trimmed))
    throw new InvalidArgumentError('must be a positive integer amount of atomic units, e.g. 2500');
  return trimmed;
}

/** `now`, `+90m`, or an RFC 3339 time with an offset; the result is RFC 3339 UTC. */
export function instant(value: string): string {
  const parsed = parseInstant(value);
  if (parsed === undefined)
    throw new InvalidArgumentError('must be now, +<duration> (e.g. +1h) or RFC 3339 with an offset');
  return parsed;
}

/** `90m`, `1h30m`, `2d`: milliseconds, at least a minute. */
export function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms < 60_000)
    throw new InvalidArgumentError('must be a duration like 45m, 1h30m or 2d');
  return ms;
}

/** A local date-time without offset, as series recurrences use (`2027-03-04T19:00`). */
export function localDateTime(value: string): string {
  const trimmed = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(trimmed))
    throw new InvalidArgumentError('must be a local date-time without offset, e.g. 2027-03-04T19:00');
  return trimmed;
}

/** For repeatable options: every value, in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `label=url`, for repeatable link options. */
export function link(value: string, previous: Array<{ label: string; url: string }> | undefined) {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1) throw new InvalidArgumentError('must be label=url');
  return [...(previous ?? []), { label: value.slice(0, at), url: value.slice(at + 1) }];
}

/** A tier as `--tier` gives it: `hidden` only when the host hid it (sold only with a code that unlocks it). */
export interface TierOption {
  id: string;
  name: string;
  price: string;
  capacity: number;
  hidden?: true;
}

/** `id:name:price:capacity`, or `...:hidden` for a tier sold only with a code; for repeatable tier options. */
export function tier(value: string, previous: TierOption[] | undefined): TierOption[] {
  const parts = value.split(':');
  const hidden = parts.length === 5 && parts[4] === 'hidden';
  if (parts.length !== 4 && !hidden)
    throw new InvalidArgumentError(
      'must be id:name:price:capacity, e.g. vip:VIP:2500:20 (add :hidden for a tier sold only with a code)',
    );
  const [id, name, price, capacity] = parts as [string, string, string, string];
  return [
    ...(previous ?? []),
    {
      id,
      name,
      price: amount(price),
      capacity: integer(1, 1_000_000)(capacity),
      ...(hidden ? { hidden: true as const } : {}),
    },
  ];
}

/** `a,b`: tier ids, comma separated (at most 10, as an event has). */
export function tierIds(value: string): string[] {
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id.length > 0);
  if (ids.length === 0 || ids.length > 10 || !ids.every((id) => /^[a-z0-9][a-z0-9_-]{0,31}$/.test(id)))
    throw new InvalidArgumentError('must be 1 to 10 tier ids, comma separated, e.g. vip,crew');
  return [...new Set(ids)];
}

/** A host's code: 3 to 32 letters, digits, `_` and `-`, starting with a letter or digit (@townhall/contracts `CodeSchema`). */
export function code(value: string): string {
  const trimmed = value.trim();
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{2,31}$/.test(trimmed))
    throw new InvalidArgumentError(
      'must be 3 to 32 letters, digits, _ and -, starting with a letter or digit',
    );
  return trimmed;
}

/** A JSON object given inline, or `@file` to read it from a file. */
export function jsonObject(value: string): Record<string, unknown> {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw new InvalidArgumentError(`cannot read ${value.slice(1)}: ${(error as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError('must be a JSON object (or @file holding one)');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('must be a JSON object (or @file holding one)');
  return parsed as Record<string, unknown>;
}
