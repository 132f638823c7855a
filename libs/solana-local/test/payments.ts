import {
  createKeyPairSignerFromPrivateKeyBytes,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type KeyPairSigner,
} from '@solana/kit';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { LocalChain } from '../src/index.js';

/** A key from a fixed seed, as an agent would hold it (`seedByte` tells the test's parties apart). */
export function keyFromSeed(seedByte: number): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(
    Uint8Array.from({ length: 32 }, (_, i) => (seedByte + i) % 256),
  );
}

export function requirementsFor(chain: LocalChain, payTo: string, amount = '2500000'): PaymentRequirements {
  return {
    scheme: 'exact',
    network: chain.network as `${string}:${string}`,
    amount,
    asset: chain.mint,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { feePayer: chain.feePayer, memo: 'townhall:test' },
  };
}

/** What a stranger's wallet does: the official x402 client, over the chain's JSON-RPC only. */
export async function pay(
  buyer: KeyPairSigner,
  rpcUrl: string,
  requirements: PaymentRequirements,
): Promise<PaymentPayload> {
  const created = await new ExactSvmScheme(buyer, { rpcUrl }).createPaymentPayload(2, requirements);
  return {
    x402Version: 2,
    accepted: requirements,
    payload: created.payload,
    resource: { url: 'http://x/y', description: '', mimeType: 'application/json' },
  };
}

export function wireTransactionOf(payment: PaymentPayload): string {
  const transaction = payment.payload['transaction'];
  if (typeof transaction !== 'string') throw new Error('the payload carries no transaction');
  return transaction;
}

export function blockhashOf(payment: PaymentPayload): string {
  const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wireTransactionOf(payment)));
  return getCompiledTransactionMessageDecoder().decode(transaction.messageBytes).lifetimeToken;
}
