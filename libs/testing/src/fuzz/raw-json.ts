/**
 * JSON text the fuzzer writes itself. JSON.stringify cannot say `-0`, `1e999`, `NaN`, a lone
 * surrogate or a 10,000-level nesting as the attacker sends them; a RawJson member of a value is
 * written verbatim, everything else as JSON.stringify writes it (which escapes NUL and lone
 * surrogates as `\u0000` and `\ud800`, exactly the bytes a hostile client sends).
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): string {
    return `<raw ${this.text.length > 60 ? `${this.text.slice(0, 60)}...` : this.text}>`;
  }
}

export function serializeJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => serializeJson(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value).map(
      ([key, member]) => `${JSON.stringify(key)}:${serializeJson(member)}`,
    );
    return `{${members.join(',')}}`;
  }
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** `depth` levels of arrays (or objects), built as text: no recursion on our side. */
export function deeplyNested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
