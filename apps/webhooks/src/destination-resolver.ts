/**
 * The name resolver every destination is checked with, when it is subscribed and before every
 * attempt: the system's, under a token of its own so that a test can stand in for DNS.
 */
export const RESOLVER = Symbol('Resolver');
