import { request as httpRequest, type IncomingMessage } from 'node:http';
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

/**
 * POSTs `body` to the destination's URL, connecting to exactly its checked address: the
 * connection's name lookup answers with that address, while the Host header and the TLS server
 * name (SNI and certificate check) stay the URL's host. Redirects are not followed (a 3xx is a
 * failure). Resolves within `timeoutMs`: a 2xx as soon as its status arrives.
 */
export function postPinned(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const { url, hostname, address } = destination;
  const pinned: LookupFunction = (_name, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
        address,
      ]);
    else callback(null, address.address, address.family);
  };
  const payload = Buffer.from(body, 'utf8');
  const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
    protocol: url.protocol,
    hostname,
    port: url.port || (url.protocol === 'https:' ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    agent: false,
    lookup: pinned,
    // SNI carries names only (RFC 6066); a literal address is checked against the certificate's IPs.
    ...(url.protocol === 'https:' && !isIP(hostname) ? { servername: hostname } : {}),
    headers: {
      ...headers,
      host: url.host,
      'content-type': 'application/json',
      'content-length': String(payload.length),
      'user-agent': 'Townhall-Webhooks/1',
    },
  });
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => finish({ status: null, error: `no 2xx within ${timeoutMs} ms` }),
      timeoutMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish({ status: null, error: error.code ? `${error.code}: ${error.message}` : error.message }),
    );
    // The status is all that is kept: the body is never read (finish ends the connection).
    request.on('response', (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      finish({ status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` });
    });
    request.end(payload);
  });
}
