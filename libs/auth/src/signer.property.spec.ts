import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import fc from 'fast-check';
import { agentKeyFromSecret, signMessage, type AgentKey } from './signer.js';

// On Node the signer signs with node:crypto (OpenSSL); in a browser, with noble. Ed25519 is
// deterministic, so the two must agree on every byte: the public key a seed gives, and every signature.
describe('the signer on node:crypto and noble agree', () => {
  it('derives the same public key and makes the same signature for any seed and message', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 2_048 }),
        (seed, message) => {
          const key = agentKeyFromSecret(seed);
          expect(key.publicKey).toEqual(ed.getPublicKey(seed));
          expect(signMessage(key, message)).toBe(bs58.encode(ed.sign(message, seed)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('signs with a key built by hand (not by agentKeyFromSecret) as with the same key built by it', () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
    const made = agentKeyFromSecret(seed);
    const byHand: AgentKey = {
      agentId: made.agentId,
      publicKey: made.publicKey,
      secretKey: Uint8Array.from(seed),
    };
    expect(signMessage(byHand, 'hello')).toBe(signMessage(made, 'hello'));
    expect(signMessage(byHand, 'hello')).toBe(bs58.encode(ed.sign(new TextEncoder().encode('hello'), seed)));
  });
});
