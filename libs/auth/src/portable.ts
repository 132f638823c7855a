// The browser-safe half of the library (no `node:` imports): what an agent needs to sign.
export * from './errors.js';
export * from './signing-string.js';
export * from './header.js';
export * from './agent-id.js';
export * from './signer.js';
// RFC 9421 HTTP Message Signatures with the same key (docs/protocol/signing.md "RFC 9421 signatures").
export * from './message-signatures/profile.js';
export * from './message-signatures/jwk.js';
export * from './message-signatures/content-digest.js';
export * from './message-signatures/signature-base.js';
export * from './message-signatures/signer.js';
