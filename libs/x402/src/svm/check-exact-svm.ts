import { address } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { PaymentError } from '../errors.js';
import type { PaymentPayload } from '../payload.js';
import type { PaymentRequirements } from '../requirements.js';
import { readExactSvmTransfer, type ExactSvmTransfer } from './exact-svm-transfer.js';

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
export async function associatedTokenAccount(
  owner: string,
  mint: string,
  tokenProgram: string,
): Promise<string> {
  const [ata] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: address(tokenProgram),
  });
  return ata;
}

/**
 * Everything a server can check of an `exact` Solana payment before it asks a facilitator, in a
 * fixed order so a given payment always fails for the same reason (docs/protocol/payments.md
 * "Solana exact"): the network; the transfer decodes; its authority is the agent that signed the
 * request (`payer_mismatch`: the brief's "signed by the same Ed25519 key"); the mint; the
 * destination is `payTo`'s token account; the amount is exactly the price; the memo is this
 * server's for this event and tier (`resource_mismatch`: a payment made for another event or
 * tier). The facilitator then checks what only it can: signatures, the fee payer, simulation.
 */
export async function checkExactSvmPayment(
  payment: PaymentPayload,
  requirements: PaymentRequirements & { extra: { memo?: string } },
  signer: { payer: string },
): Promise<ExactSvmTransfer> {
  if (payment.network !== requirements.network) {
    throw new PaymentError(
      'invalid_network',
      `the payment is for ${payment.network}, this sale is on ${requirements.network}`,
    );
  }
  const transfer = readExactSvmTransfer(payment);
  if (transfer.authority !== signer.payer) {
    throw new PaymentError(
      'payer_mismatch',
      `the transfer is authorized by ${transfer.authority}, not by the agent that signed the request`,
    );
  }
  if (transfer.mint !== requirements.asset) {
    throw new PaymentError(
      'asset_mismatch',
      `the transfer moves ${transfer.mint}, not ${requirements.asset}`,
    );
  }
  let expected: string;
  try {
    expected = await associatedTokenAccount(requirements.payTo, requirements.asset, transfer.tokenProgram);
  } catch {
    throw new PaymentError('recipient_mismatch', 'payTo has no associated token account address');
  }
  if (transfer.destination !== expected) {
    throw new PaymentError(
      'recipient_mismatch',
      `the transfer goes to ${transfer.destination}, not to payTo's token account`,
    );
  }
  if (transfer.amount !== BigInt(requirements.maxAmountRequired)) {
    throw new PaymentError(
      'amount_mismatch',
      `the transfer moves ${transfer.amount}, the price is ${requirements.maxAmountRequired}`,
    );
  }
  const memo = requirements.extra.memo;
  if (memo !== undefined && transfer.memo !== memo) {
    throw new PaymentError(
      'resource_mismatch',
      'the payment was made for another event or tier (its memo differs)',
    );
  }
  return transfer;
}
