/**
 * Server-Sent Events framing (WHATWG HTML, "Server-sent events"): fields are lines, a blank line
 * ends a message. A `data:` line cannot hold a line break, so a value with breaks becomes several
 * `data:` lines, which the client joins back with LF.
 */
export function sseMessage(fields: { id: string; event: string; data: string }): string {
  const data = fields.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `id: ${singleLine(fields.id)}\nevent: ${singleLine(fields.event)}\n${data}\n`;
}

/** Tells the client how long to wait before reconnecting after a dropped connection. */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.trunc(ms))}\n\n`;
}

/** A comment: ignored by clients, it keeps proxies and load balancers from closing an idle stream. */
export const SSE_HEARTBEAT = ': keep-alive\n\n';

// An id or event name with a line break would end the field early and inject another one.
function singleLine(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`An SSE field value must be one line: ${JSON.stringify(value)}`);
  return value;
}
