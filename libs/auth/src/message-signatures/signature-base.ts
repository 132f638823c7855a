import { serializeInnerList, type InnerList } from 'structured-headers';
import type { DerivedComponent } from './profile.js';

/** A request's values for the derived components, from its target and the service's audience. */
export interface RequestComponents {
  method: string;
  /** The audience's origin, e.g. `https://api.example.com` (never the Host header). */
  origin: string;
  /** The raw path as sent. */
  path: string;
  /** The raw query as sent, without `?`; '' when there is none. */
  query: string;
}

// The audience is one origin per server: parsed once, not for every component of every request.
let parsed: { origin: string; url: URL } | undefined;
function originUrl(origin: string): URL {
  if (parsed?.origin !== origin) parsed = { origin, url: new URL(origin) };
  return parsed.url;
}

/** RFC 9421 section 2.2: the value of a derived component. `@query` of no query is `?`. */
export function derivedComponentValue(name: DerivedComponent, request: RequestComponents): string {
  const url = originUrl(request.origin);
  switch (name) {
    case '@method':
      return request.method.toUpperCase();
    case '@authority':
      return url.host.toLowerCase();
    case '@scheme':
      return url.protocol.slice(0, -1).toLowerCase();
    case '@target-uri':
      return `${url.origin}${request.path}${request.query === '' ? '' : `?${request.query}`}`;
    case '@request-target':
      return `${request.path}${request.query === '' ? '' : `?${request.query}`}`;
    case '@path':
      return request.path;
    case '@query':
      return `?${request.query}`;
  }
}

/**
 * RFC 9421 section 2.5: the signature base, one line per covered component (`"name": value`),
 * then `"@signature-params": ` and the signature's inner list serialized (RFC 8941), LF-joined
 * with no trailing LF. `valueOf` gives each component's value, derived or a header field's.
 */
export function signatureBase(signatureParams: InnerList, valueOf: (name: string) => string): string {
  const lines = signatureParams[0].map(([name]) => `"${String(name)}": ${valueOf(String(name))}`);
  lines.push(`"@signature-params": ${serializeInnerList(signatureParams)}`);
  return lines.join('\n');
}
