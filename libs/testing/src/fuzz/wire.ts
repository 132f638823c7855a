import { Agent, request } from 'node:http';
import { connect } from 'node:net';

/**
 * One request exactly as the fuzzer means it: fetch() would normalise dot segments, percent-encode
 * raw bytes and refuse some headers, so the fuzzer talks node:http with the target as written.
 * The target's characters U+0080..U+00FF go out as single bytes (latin1): a UTF-8 path is given
 * as its bytes, one character per byte. A header value node:http will not send (NUL, CR, LF,
 * characters above U+00FF) goes out as written on a raw socket instead: see `rawBytes`.
 */
export interface WireRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  /** At most MAX_BODY bytes, as UTF-8. */
  body: string;
  durationMs: number;
}

export class WireError extends Error {
  constructor(
    readonly kind: 'timeout' | 'connection' | 'refused-by-client',
    message: string,
  ) {
    super(message);
    this.name = 'WireError';
  }
}

// Kept whole up to here: the OpenAPI document alone is about 300 KiB.
const MAX_BODY = 1024 * 1024;

export class Wire {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private readonly host: string;
  private readonly port: number;

  constructor(
    baseUrl: string,
    private readonly timeoutMs = 15_000,
  ) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  /**
   * Sends on a kept-alive connection; if that connection turns out to be dead (the server closed it
   * after an earlier answer), once more on a new one. A second failure is the answer to this request.
   */
  async send(wire: WireRequest): Promise<WireResponse> {
    if (wire.headers.some(([, value]) => UNSENDABLE.test(value))) return this.sendRaw(wire);
    try {
      return await this.sendOnce(wire, this.agent);
    } catch (error) {
      if (!(error instanceof WireError) || error.kind !== 'connection') throw error;
      return this.sendOnce(wire, false);
    }
  }

  private sendOnce(wire: WireRequest, agent: Agent | false): Promise<WireResponse> {
    const started = performance.now();
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of wire.headers) {
      const existing = headers[name];
      headers[name] =
        existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
    if (wire.body !== undefined) headers['content-length'] = String(wire.body.byteLength);
    return new Promise((resolve, reject) => {
      let req;
      try {
        req = request({
          host: this.host,
          port: this.port,
          method: wire.method,
          path: wire.target,
          headers,
          agent,
          // A request to the gateway is sent with 127.0.0.1, whatever `Host` the case sets.
          setHost: !wire.headers.some(([name]) => name.toLowerCase() === 'host'),
        });
      } catch (error) {
        reject(new WireError('refused-by-client', error instanceof Error ? error.message : String(error)));
        return;
      }
      const timer = setTimeout(() => {
        req.destroy(new WireError('timeout', `no complete answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error instanceof WireError ? error : new WireError('connection', error.message));
      });
      req.on('response', (response) => {
        const contentType = String(response.headers['content-type'] ?? '');
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            contentType,
            body: Buffer.concat(chunks).toString('utf8'),
            durationMs: performance.now() - started,
          });
        };
        // A stream (SSE) never ends by itself: its head is the answer.
        if (contentType.startsWith('text/event-stream')) {
          finish();
          response.destroy();
          return;
        }
        response.on('data', (chunk: Buffer) => {
          if (size < MAX_BODY) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', finish);
        response.on('error', (error) => {
          clearTimeout(timer);
          reject(new WireError('connection', error.message));
        });
      });
      req.end(wire.body === undefined ? undefined : Buffer.from(wire.body));
    });
  }

  /** On a socket of its own, `connection: close`: the answer ends when the server closes it. */
  private sendRaw(wire: WireRequest): Promise<WireResponse> {
    const started = performance.now();
    const lines = [`${wire.method} ${wire.target} HTTP/1.1`];
    if (!wire.headers.some(([name]) => name.toLowerCase() === 'host'))
      lines.push(`host: ${this.host}:${this.port}`);
    for (const [name, value] of wire.headers) lines.push(`${name}: ${value}`);
    if (wire.body !== undefined) lines.push(`content-length: ${wire.body.byteLength}`);
    lines.push('connection: close', '', '');
    const bytes = Buffer.concat([rawBytes(lines.join('\r\n')), Buffer.from(wire.body ?? [])]);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port });
      const chunks: Buffer[] = [];
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        outcome();
      };
      socket.setTimeout(this.timeoutMs, () =>
        settle(() => reject(new WireError('timeout', `no complete answer within ${this.timeoutMs} ms`))),
      );
      socket.on('error', (error) => settle(() => reject(new WireError('connection', error.message))));
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        const answer = parseRawResponse(Buffer.concat(chunks), false);
        if (answer) settle(() => resolve({ ...answer, durationMs: performance.now() - started }));
      });
      socket.on('close', () => {
        const answer = parseRawResponse(Buffer.concat(chunks), true);
        settle(() =>
          answer
            ? resolve({ ...answer, durationMs: performance.now() - started })
            : reject(new WireError('connection', 'the connection closed before a complete answer')),
        );
      });
      // Written, not ended: a client that half-closes has its request aborted by Node's server
      // (httpAllowHalfOpen is off) whenever the answer takes a moment; `connection: close` ends it.
      socket.write(bytes);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** What node:http refuses in a header value (its checkInvalidHeaderChar): control characters, above U+00FF. */
const UNSENDABLE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * The bytes of a raw request's head: U+0000..U+00FF as one byte each (latin1, as node:http sends
 * them), anything above as UTF-8, a lone surrogate as the three bytes UTF-8 would give it (WTF-8).
 */
export function rawBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code <= 0xff) {
      bytes.push(code);
      continue;
    }
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 63));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63));
    else
      bytes.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 63),
        0x80 | ((code >> 6) & 63),
        0x80 | (code & 63),
      );
  }
  return Buffer.from(bytes);
}

/**
 * An HTTP/1.1 answer from its bytes, once complete: by Content-Length, chunked, an event stream's
 * head, or (`closed`) whatever came before the server closed. Undefined while incomplete.
 */
export function parseRawResponse(
  bytes: Buffer,
  closed: boolean,
): Omit<WireResponse, 'durationMs'> | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...fields] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string | string[] | undefined> = {};
  for (const field of fields) {
    const colon = field.indexOf(':');
    if (colon <= 0) continue;
    const name = field.slice(0, colon).trim().toLowerCase();
    const value = field.slice(colon + 1).trim();
    const existing = headers[name];
    headers[name] =
      existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const contentType = String(headers['content-type'] ?? '');
  // A stream (SSE) never ends by itself, chunked or not: its head is the answer.
  if (!closed && contentType.startsWith('text/event-stream'))
    return { status, headers, contentType, body: '' };
  let body = bytes.subarray(end + 4);
  const length = Number(headers['content-length'] ?? Number.NaN);
  if (String(headers['transfer-encoding'] ?? '').toLowerCase() === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      if (lineEnd < 0)
        return closed
          ? { status, headers, contentType, body: Buffer.concat(parts).toString('utf8') }
          : undefined;
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!Number.isFinite(size) || size === 0) break;
      if (body.length < lineEnd + 2 + size)
        return closed
          ? { status, headers, contentType, body: Buffer.concat(parts).toString('utf8') }
          : undefined;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (Number.isFinite(length)) {
    if (body.length < length && !closed) return undefined;
    body = body.subarray(0, length);
  } else if (!closed) return undefined;
  return { status, headers, contentType, body: body.subarray(0, MAX_BODY).toString('utf8') };
}
