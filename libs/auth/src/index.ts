export * from './portable.js';
export * from './verifier.js';
