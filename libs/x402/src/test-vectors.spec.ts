import { readFileSync } from 'node:fs';
import { createPublicKey, verify as cryptoVerify } from 'node:crypto';
import { agentKeyFromSecret, SignatureVerifier } from '@townhall/auth';
import { hexToBytes } from '@noble/hashes/utils.js';
import bs58 from 'bs58';
import { checkLedgerPayment, paymentFingerprint } from './ledger-check.js';
import {
  decodePaymentHeader,
  encodePaymentHeader,
  ledgerAuthorizationMessage,
  signLedgerPayment,
} from './payload.js';
import type { LedgerAuthorization } from './payload.js';
import type { PaymentRequirements } from './requirements.js';

interface VectorFile {
  version: string;
  key: { secretKeyHex: string; publicKeyHex: string; agentId: string };
  now: string;
  validForSeconds: number;
  requirements: PaymentRequirements;
  network: string;
  authorization: LedgerAuthorization;
  message: string;
  signature: string;
  xPayment: string;
  fingerprint: string;
}

const vector = JSON.parse(
  readFileSync(new URL('../test-vectors/x402-ledger-v1.json', import.meta.url), 'utf8'),
) as VectorFile;
const key = agentKeyFromSecret(hexToBytes(vector.key.secretKeyHex));
const now = new Date(vector.now);

describe('x402-ledger-v1 test vector', () => {
  it('uses the RFC 8032 section 7.1 TEST 1 key and fixed fields', () => {
    expect(vector.version).toBe('x402-ledger-v1');
    expect(vector.key.secretKeyHex).toBe('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
    expect(Buffer.from(key.publicKey).toString('hex')).toBe(vector.key.publicKeyHex);
    expect(key.agentId).toBe(vector.key.agentId);
    expect(vector.authorization.nonce).toBe(Buffer.from([...Array(32).keys()]).toString('hex'));
  });

  it('gives the exact message, byte for byte', () => {
    expect(ledgerAuthorizationMessage(vector.network, vector.authorization)).toBe(vector.message);
    expect(vector.message).toBe(
      [
        'x402-ledger-v1',
        'ledger:staging',
        'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z',
        '586Z7H2vpX9qNhN2T4e9Utugie3ogjbxzGaMtM3E6HR5',
        '2500000',
        'USDC',
        'https://api.example.com/events/evt_01/rsvp?tier=vip',
        '1735732795',
        '1735733100',
        '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
      ].join('\n'),
    );
  });

  it('is reproduced exactly by signLedgerPayment (Ed25519 is deterministic)', () => {
    const payment = signLedgerPayment(key, vector.requirements, {
      now,
      nonce: vector.authorization.nonce,
      validForSeconds: vector.validForSeconds,
    });
    expect(payment.payload).toEqual({ signature: vector.signature, authorization: vector.authorization });
    expect(encodePaymentHeader(payment)).toBe(vector.xPayment);
    expect(paymentFingerprint(payment)).toBe(vector.fingerprint);
  });

  it('verifies under node:crypto (OpenSSL), independently of this library', () => {
    const publicKey = createPublicKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(vector.key.publicKeyHex, 'hex').toString('base64url'),
      },
      format: 'jwk',
    });
    expect(
      cryptoVerify(null, Buffer.from(vector.message, 'utf8'), publicKey, bs58.decode(vector.signature)),
    ).toBe(true);
  });

  it('is accepted by checkLedgerPayment at its own instant', () => {
    const verifier = new SignatureVerifier();
    const payment = decodePaymentHeader(vector.xPayment);
    expect(
      checkLedgerPayment(payment, vector.requirements, {
        caller: key.agentId,
        now,
        verify: (agentId, message, signature) => verifier.verifyMessage(agentId, message, signature),
      }),
    ).toEqual(vector.authorization);
  });
});
