import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { Destination } from './destination.js';

/** What a receiver answered, or why it did not. */
export interface PostOutcome {
  /** The HTTP status; null when no response came (refused, reset, timed out). */
  status: number | null;
  /**
   * Why it is not a success; null for a 2xx. Never any of the receiver's body: what an address
   * answers is not for whoever made the service call it (a subscription to an internal address
   * would read its pages).
   */
  error: string | null;
}

/** What a GET answered, or why it did not. */
export interface GetOutcome {
  /** The HTTP status; null when no response came (refused, reset, timed out before the head). */
  status: number | null;
  /** The whole body of a 2xx, at most `maxBytes`; null whenever `error` is set. */
  body: Uint8Array | null;
  /** The response's Content-Type and Cache-Control, as sent (null when absent or no response). */
  contentType: string | null;
  cacheControl: string | null;
  /** Why it is not a success; null for a 2xx whose body arrived whole within the limits. */
  error: string | null;
}

/** Limits of one GET. */
export interface GetLimits {
  /** The whole exchange, connection to the body's last byte. */
  timeoutMs: number;
  /** A larger body is a failure, and its connection is ended as soon as that is known. */
  maxBytes: number;
}

/**
 * POSTs `body` (JSON) to the destination's URL, connecting to exactly its checked address (see
 * `openPinned`). Redirects are not followed (a 3xx is a failure). Resolves within `timeoutMs`: a
 * 2xx as soon as its status arrives. Never throws.
 */
export function postPinned(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const payload = Buffer.from(body, 'utf8');
  const request = openPinned(destination, 'POST', {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(payload.length),
  });
  return settleWithin<PostOutcome>(
    request,
    timeoutMs,
    (error) => ({ status: null, error }),
    `no 2xx within ${timeoutMs} ms`,
    (response, finish) => {
      // The status is all that is kept: the body is never read (finish ends the connection).
      const status = response.statusCode ?? 0;
      finish({ status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` });
    },
    () => request.end(payload),
  );
}

/**
 * GETs the destination's URL, connecting to exactly its checked address (see `openPinned`), and
 * reads the body of a 2xx up to `maxBytes`. Redirects are not followed (a 3xx is a failure); any
 * other status's body is never read. Resolves within `timeoutMs`, the body included. Never throws.
 */
export function getPinned(
  destination: Destination,
  headers: Record<string, string>,
  { timeoutMs, maxBytes }: GetLimits,
): Promise<GetOutcome> {
  const request = openPinned(destination, 'GET', headers);
  let head: Pick<GetOutcome, 'status' | 'contentType' | 'cacheControl'> = {
    status: null,
    contentType: null,
    cacheControl: null,
  };
  const failed = (error: string): GetOutcome => ({ ...head, body: null, error });
  return settleWithin<GetOutcome>(
    request,
    timeoutMs,
    failed,
    `no whole answer within ${timeoutMs} ms`,
    (response, finish) => {
      const status = response.statusCode ?? 0;
      head = {
        status,
        contentType: response.headers['content-type'] ?? null,
        cacheControl: response.headers['cache-control'] ?? null,
      };
      if (status < 200 || status >= 300) return finish(failed(`HTTP ${status}`));
      const tooLarge = `body over ${maxBytes} bytes`;
      if (Number(response.headers['content-length']) > maxBytes) return finish(failed(tooLarge));
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) finish(failed(tooLarge));
        else chunks.push(chunk);
      });
      response.on('end', () =>
        finish({ ...head, body: new Uint8Array(Buffer.concat(chunks, received)), error: null }),
      );
      // After 'end', a no-op; before it, the connection went while the body was on its way.
      response.on('close', () => finish(failed('the answer was cut off')));
      response.on('error', (error: NodeJS.ErrnoException) => finish(failed(describe(error))));
    },
    () => request.end(),
  );
}

/**
 * A request to the destination's URL that connects to exactly its checked address: the
 * connection's name lookup answers with that address, while the Host header and the TLS server
 * name (SNI and certificate check) stay the URL's host. No agent: nothing is pooled or reused.
 */
function openPinned(destination: Destination, method: 'GET' | 'POST', headers: Record<string, string>) {
  const { url, hostname, address } = destination;
  const pinned: LookupFunction = (_name, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        address,
      ]);
    else callback(null, address.address, address.family);
  };
  return (url.protocol === 'https:' ? httpsRequest : httpRequest)({
    protocol: url.protocol,
    hostname,
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method,
    agent: false,
    lookup: pinned,
    // SNI carries names only (RFC 6066); a literal address is checked against the certificate's IPs.
    ...(url.protocol === 'https:' && !isIP(hostname) ? { servername: hostname } : {}),
    headers: { ...headers, host: url.host },
  });
}

/**
 * Runs `request` to one outcome: the first of `onResponse`'s `finish`, a request error, or the
 * timeout. Settling destroys the request (and with it the connection and any unread body).
 */
function settleWithin<T>(
  request: ClientRequest,
  timeoutMs: number,
  failed: (error: string) => T,
  timeoutError: string,
  onResponse: (response: IncomingMessage, finish: (outcome: T) => void) => void,
  send: () => void,
): Promise<T> {
  return new Promise<T>((resolve) => {
    let settled = false;
    const finish = (outcome: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish(failed(timeoutError)), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(failed(describe(error))));
    request.on('response', (response: IncomingMessage) => onResponse(response, finish));
    send();
  });
}

function describe(error: NodeJS.ErrnoException): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
