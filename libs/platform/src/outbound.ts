// Requests to URLs that strangers choose (webhook receivers, Signature-Agent key directories):
// the address rules (SSRF), the check-and-resolve, and requests pinned to the checked address.
// Node built-ins only, so any app may load it (the gateway included).
export * from './outbound/public-address.js';
export * from './outbound/destination.js';
export * from './outbound/pinned-request.js';
