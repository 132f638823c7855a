// The browser-safe half of the library (no `node:` imports): what an agent needs to sign.
export * from './errors.js';
export * from './signing-string.js';
export * from './header.js';
export * from './agent-id.js';
export * from './signer.js';
