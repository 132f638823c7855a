/** One dispatched Server-Sent Events message. */
export interface SseMessage {
  /** The last event id in force when the message was dispatched ('' if none was ever set). */
  id: string;
  /** The `event:` field, or 'message' when there was none. */
  event: string;
  data: string;
}

/**
 * An incremental Server-Sent Events parser (WHATWG HTML, "Interpreting an event stream"):
 * feed it decoded text as it arrives, in chunks cut anywhere, and it returns the messages
 * completed so far. Comments (heartbeats) are skipped; `retry:` is kept in `retryMs`.
 */
export class SseParser {
  /** The last event id seen, as EventSource keeps it to resume with. */
  lastEventId = '';
  /** The reconnection delay the server asked for, if it did. */
  retryMs: number | undefined;
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private idBuffer = '';
  private started = false;
  // A chunk that ends in CR may be followed by the LF of the same line break.
  private skipLeadingLf = false;

  push(text: string): SseMessage[] {
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.skipLeadingLf && text.startsWith('\n')) text = text.slice(1);
    this.skipLeadingLf = false;
    this.buffer += text;

    const messages: SseMessage[] = [];
    const lineBreak = /\r\n|\r|\n/g;
    let start = 0;
    for (let match = lineBreak.exec(this.buffer); match; match = lineBreak.exec(this.buffer)) {
      // A CR that ends the buffer may be the first half of a CRLF: wait for the next chunk.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) {
        this.skipLeadingLf = true;
      }
      const message = this.line(this.buffer.slice(start, match.index));
      if (message) messages.push(message);
      start = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(start);
    return messages;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    this.lastEventId = this.idBuffer;
    const { data, event } = this;
    this.data = [];
    this.event = '';
    if (data.length === 0) return undefined;
    return { id: this.lastEventId, event: event || 'message', data: data.join('\n') };
  }
}
