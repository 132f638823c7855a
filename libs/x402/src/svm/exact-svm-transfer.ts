import {
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
} from '@solana/kit';
import { sha256 } from '@noble/hashes/sha2.js';
import { PaymentError } from '../errors.js';
import type { PaymentPayload } from '../payload.js';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
/** SPL Token's TransferChecked: discriminator 12, amount u64 LE, decimals u8. */
const TRANSFER_CHECKED = 12;
// A Solana transaction is at most 1232 bytes on the wire; base64 of that is 1644 characters.
const MAX_TRANSACTION_BASE64 = 1_644;

/**
 * What an x402 `exact` payment on Solana moves, read from the transaction the payer signed (the
 * SPL Token `TransferChecked` it carries, the memo, the fee payer and the blockhash). The x402
 * client builds compute budget + TransferChecked + Memo; anything with more than one token
 * instruction, another token instruction, or address lookup tables is not such a payment.
 */
export interface ExactSvmTransfer {
  /** The transfer's authority: who pays (the owner of `source`). */
  authority: string;
  source: string;
  destination: string;
  mint: string;
  amount: bigint;
  decimals: number;
  tokenProgram: string;
  /** The memo instruction's text, if there is exactly one. */
  memo: string | undefined;
  /** The transaction's fee payer (its first account): the facilitator's key. */
  feePayer: string;
  /** The recent blockhash: the transaction can land only while it is valid (about a minute). */
  blockhash: string;
  /** x402's transactionMessageHash: base64 SHA-256 of the message, the payment's identity before it lands. */
  messageHash: string;
  /** The message bytes, to find the landed transaction on chain. */
  message: Uint8Array;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The base64 wire transaction of an `exact` SVM payment payload (`{ transaction }`), or PaymentError('malformed'). */
export function svmTransactionOf(payment: PaymentPayload): string {
  const payload = payment.payload;
  if (!isRecord(payload) || Object.keys(payload).length !== 1 || typeof payload['transaction'] !== 'string') {
    throw new PaymentError(
      'malformed',
      'an exact Solana payment is { transaction: <base64 wire transaction> }',
    );
  }
  const transaction = payload['transaction'];
  if (transaction.length === 0 || transaction.length > MAX_TRANSACTION_BASE64) {
    throw new PaymentError(
      'malformed',
      'the transaction is not a Solana wire transaction (at most 1232 bytes)',
    );
  }
  return transaction;
}

/** Reads the transfer an `exact` SVM payment carries, or PaymentError('malformed'). */
export function readExactSvmTransfer(payment: PaymentPayload): ExactSvmTransfer {
  const wire = svmTransactionOf(payment);
  let transaction;
  let compiled;
  try {
    const bytes = getBase64Encoder().encode(wire);
    if (getBase64Decoder().decode(bytes) !== wire) throw new Error('not canonical base64');
    transaction = getTransactionDecoder().decode(bytes);
    compiled = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
  } catch (error) {
    throw new PaymentError(
      'malformed',
      `the transaction does not decode: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  // The x402 client compiles a v0 message; v1 (config values) and legacy ones are not its payments.
  if (compiled.version !== 0) {
    throw new PaymentError('malformed', `the transaction is a ${String(compiled.version)} message, not v0`);
  }
  const accounts = compiled.staticAccounts.map(String);
  if ((compiled.addressTableLookups?.length ?? 0) > 0) {
    throw new PaymentError('malformed', 'the transaction uses address lookup tables');
  }
  const instructions = compiled.instructions.map((instruction) => ({
    program: accounts[instruction.programAddressIndex],
    accounts: (instruction.accountIndices ?? []).map((index) => accounts[index]),
    data: Uint8Array.from(instruction.data ?? []),
  }));
  if (instructions.some((ix) => ix.program === undefined || ix.accounts.some((a) => a === undefined))) {
    throw new PaymentError('malformed', 'an instruction names an account the message does not hold');
  }
  const tokenInstructions = instructions.filter(
    (ix) => ix.program === TOKEN_PROGRAM || ix.program === TOKEN_2022_PROGRAM,
  );
  const transfer = tokenInstructions[0];
  if (
    tokenInstructions.length !== 1 ||
    !transfer ||
    transfer.data.length !== 10 ||
    transfer.data[0] !== TRANSFER_CHECKED ||
    transfer.accounts.length < 4
  ) {
    throw new PaymentError('malformed', 'the transaction must carry exactly one SPL Token TransferChecked');
  }
  const memos = instructions.filter((ix) => ix.program === MEMO_PROGRAM);
  let memo: string | undefined;
  if (memos.length === 1) {
    try {
      memo = new TextDecoder('utf-8', { fatal: true }).decode(memos[0]!.data);
    } catch {
      throw new PaymentError('malformed', 'the memo is not UTF-8');
    }
  }
  const view = new DataView(transfer.data.buffer, transfer.data.byteOffset, transfer.data.byteLength);
  const messageBytes = Uint8Array.from(transaction.messageBytes);
  const [source, mint, destination, authority] = transfer.accounts as [string, string, string, string];
  return {
    authority,
    source,
    destination,
    mint,
    amount: view.getBigUint64(1, true),
    decimals: transfer.data[9]!,
    tokenProgram: transfer.program!,
    memo,
    feePayer: accounts[0]!,
    blockhash: String(compiled.lifetimeToken),
    messageHash: getBase64Decoder().decode(sha256(messageBytes)),
    message: messageBytes,
  };
}
