import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type KeyPairSigner,
} from '@solana/kit';
import {
  findAssociatedTokenPda,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import fc from 'fast-check';
import { PaymentError, type PaymentFailure } from '../errors.js';
import type { PaymentPayload } from '../payload.js';
import type { PaymentRequirements } from '../requirements.js';
import { checkExactSvmPayment } from './check-exact-svm.js';
import { MEMO_PROGRAM, readExactSvmTransfer } from './exact-svm-transfer.js';

// Properties of the Solana `exact` checks (docs/protocol/payments.md "What the server checks,
// before the facilitator") over transactions fast-check makes up or mutates: whatever a client puts
// in PAYMENT-SIGNATURE is a transfer or a PaymentError, never another exception (a 500); a payment
// made for the requirements passes; and one for anything else fails with the reason that says so.

const DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
const MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
const FEE_PAYER = 'ArB4iSXvt3npqvzig1kMPAJVFE93VUWZqKGMnuX6R5St';
const BLOCKHASH = 'CmpNeggWJ4JaWJeJ8YKN1Zypmk7uvQq3PECGUCAEMbky' as Blockhash;
const seed = (byte: number) => new Uint8Array(32).fill(byte);

let buyer: KeyPairSigner;
let host: KeyPairSigner;

beforeAll(async () => {
  buyer = await createKeyPairSignerFromPrivateKeyBytes(seed(1));
  host = await createKeyPairSignerFromPrivateKeyBytes(seed(2));
});

function requirementsFor(
  overrides: Partial<PaymentRequirements> = {},
  memo = 'townhall:e1:general',
): PaymentRequirements {
  return {
    scheme: 'exact',
    network: DEVNET,
    maxAmountRequired: '2500000',
    asset: MINT,
    payTo: host.address,
    resource: 'https://api.example.com/events/e1/rsvp?tier=general',
    description: 'Ticket',
    mimeType: 'application/json',
    maxTimeoutSeconds: 300,
    extra: { eventId: 'e1', tierId: 'general', feePayer: FEE_PAYER, memo },
    ...overrides,
  };
}

/** The transaction the official client builds (compute budget aside): TransferChecked + Memo, signed by `from`. */
async function transfer(
  from: KeyPairSigner,
  options: { to?: string; amount?: bigint; mint?: string; memo?: string } = {},
): Promise<string> {
  const mint = address(options.mint ?? MINT);
  const [source] = await findAssociatedTokenPda({
    owner: from.address,
    mint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const [destination] = await findAssociatedTokenPda({
    owner: address(options.to ?? host.address),
    mint,
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (tx) => setTransactionMessageFeePayerSigner(createNoopSigner(address(FEE_PAYER)), tx),
    (tx) =>
      appendTransactionMessageInstructions(
        [
          getTransferCheckedInstruction({
            source,
            mint,
            destination,
            authority: from,
            amount: options.amount ?? 2_500_000n,
            decimals: 6,
          }),
          {
            programAddress: address(MEMO_PROGRAM),
            data: new TextEncoder().encode(options.memo ?? 'townhall:e1:general'),
          },
        ],
        tx,
      ),
    (tx) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: BLOCKHASH, lastValidBlockHeight: 100n }, tx),
  );
  return getBase64EncodedWireTransaction(await partiallySignTransactionMessageWithSigners(message));
}

function payment(transaction: unknown): PaymentPayload {
  return {
    x402Version: 2,
    scheme: 'exact',
    network: DEVNET,
    payload: { transaction } as Record<string, unknown>,
  };
}

/** The PaymentError reason, 'ok', or the property fails on any other throw. */
async function outcome(run: () => Promise<unknown>): Promise<PaymentFailure | 'ok'> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (error instanceof PaymentError) return error.reason;
    throw error;
  }
}

describe('Solana exact payments: what checkExactSvmPayment makes of any transaction', () => {
  it('reads a payment made for the requirements, and lets it through', async () => {
    const wire = await transfer(buyer);
    expect(readExactSvmTransfer(payment(wire))).toMatchObject({
      authority: buyer.address,
      mint: MINT,
      amount: 2_500_000n,
      decimals: 6,
      memo: 'townhall:e1:general',
      feePayer: FEE_PAYER,
      blockhash: BLOCKHASH,
    });
    expect(
      await outcome(() => checkExactSvmPayment(payment(wire), requirementsFor(), { payer: buyer.address })),
    ).toBe('ok');
  });

  it('refuses, each for its reason: another signer, mint, recipient, amount, memo or network', async () => {
    const stranger = await createKeyPairSignerFromPrivateKeyBytes(seed(3));
    const check = async (wire: string, requirements = requirementsFor(), payer = buyer.address) =>
      outcome(() => checkExactSvmPayment(payment(wire), requirements, { payer }));
    expect(await check(await transfer(stranger))).toBe('payer_mismatch');
    expect(await check(await transfer(buyer), requirementsFor(), stranger.address)).toBe('payer_mismatch');
    expect(await check(await transfer(buyer, { mint: FEE_PAYER }))).toBe('asset_mismatch');
    expect(await check(await transfer(buyer, { to: stranger.address }))).toBe('recipient_mismatch');
    expect(await check(await transfer(buyer, { amount: 1_000_000n }))).toBe('amount_mismatch');
    expect(await check(await transfer(buyer, { amount: 9_000_000n }))).toBe('amount_mismatch');
    expect(await check(await transfer(buyer, { memo: 'townhall:e2:general' }))).toBe('resource_mismatch');
    expect(
      await check(
        await transfer(buyer),
        requirementsFor({ network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }),
      ),
    ).toBe('invalid_network');
  });

  it('answers any mutation of a payment with a transfer or a PaymentError, never another exception', async () => {
    const wire = Buffer.from(await transfer(buyer), 'base64');
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(wire.length - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.option(fc.nat(wire.length), { nil: undefined }),
        async (changes, cut) => {
          const bytes = Buffer.from(wire);
          for (const [at, value] of changes) bytes[at] = value;
          const mutated = (cut === undefined ? bytes : bytes.subarray(0, cut)).toString('base64');
          const result = await outcome(() =>
            checkExactSvmPayment(payment(mutated), requirementsFor(), { payer: buyer.address }),
          );
          expect(typeof result).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers any payload whatever with a PaymentError, never another exception', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.base64String({ maxLength: 2_000 }),
          fc.uint8Array({ maxLength: 1_300 }).map((bytes) => Buffer.from(bytes).toString('base64')),
          fc.anything(),
        ),
        async (transaction) => {
          const result = await outcome(() =>
            checkExactSvmPayment(payment(transaction), requirementsFor(), { payer: buyer.address }),
          );
          expect(result).not.toBe('ok');
        },
      ),
      { numRuns: 500 },
    );
    // And payloads that are not `{ transaction }` at all.
    for (const payload of [{}, { transaction: 'AA==', extra: 1 }, { signature: 'x' }, null, []]) {
      expect(
        await outcome(() =>
          checkExactSvmPayment(
            { x402Version: 2, scheme: 'exact', network: DEVNET, payload: payload as Record<string, unknown> },
            requirementsFor(),
            { payer: buyer.address },
          ),
        ),
      ).toBe('malformed');
    }
  });
});
