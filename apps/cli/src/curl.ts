// Ready-to-paste shell text for a signed request (`townhall sign`).

/** Single-quotes a word for POSIX shells: `it's` becomes `'it'\''s'`. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface SignedCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** One `-H 'name: value'` per header, joined with line continuations. */
export function headerLines(call: SignedCall): string[] {
  const entries = Object.entries(call.headers);
  return entries.map(
    ([name, value], index) =>
      `-H ${shellQuote(`${name}: ${value}`)}${index < entries.length - 1 ? ' \\' : ''}`,
  );
}

/** A whole curl command; it sends the body byte for byte (`--data-raw`), as it was signed. */
export function curlCommand(call: SignedCall): string[] {
  const lines = [
    `curl -sS -X ${call.method} ${shellQuote(call.url)}`,
    ...headerLines(call).map((line) => `  ${line}`),
  ];
  if (call.body !== undefined) lines.push(`  --data-raw ${shellQuote(call.body)}`);
  return lines.map((line, index) => (index < lines.length - 1 && !line.endsWith('\\') ? `${line} \\` : line));
}
