import { Agent, request } from 'node:http';

/**
 * One request exactly as the fuzzer means it: fetch() would normalise dot segments, percent-encode
 * raw bytes and refuse some headers, so the fuzzer talks node:http with the target as written.
 * The target's characters U+0080..U+00FF go out as single bytes (latin1): a UTF-8 path is given
 * as its bytes, one character per byte.
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

  close(): void {
    this.agent.destroy();
  }
}
