import { generateAgentKey } from '@townhall/auth';
import { createLocalFacilitator } from '@townhall/solana-local';
import { land, signTransfer, startLocalSvm, type LocalSvm } from '@townhall/testing/solana';
import {
  FACILITATOR_FAILURES,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResult,
} from '@townhall/x402';
import { InProcessFacilitator } from '@townhall/x402/server';
import { readExactSvmTransfer } from '@townhall/x402/svm';
import { leavesOpen } from './settle-answers.js';

// Which /settle answers decide a payment (every facilitator here settles on Solana): only those
// @x402/svm's facilitator gives before it sends anything, asked of the real facilitator over a local
// SVM; anything else, and any reason no list knows, leaves the payment to the chain.

const PRICE = 500_000n;
const MEMO = 'townhall:settle-answers';

describe('leavesOpen: which /settle answers decide a payment', () => {
  let svm: LocalSvm;
  let facilitator: InProcessFacilitator;

  beforeAll(async () => {
    svm = await startLocalSvm();
    facilitator = new InProcessFacilitator(createLocalFacilitator(svm.chain));
  });
  afterAll(() => svm?.stop());

  /** A funded buyer's payment of PRICE to a host, and the requirements it meets. */
  async function aPayment(funds = 10n * PRICE): Promise<{
    payment: PaymentPayload;
    requirements: PaymentRequirements;
  }> {
    const [buyer, host] = [generateAgentKey(), generateAgentKey()];
    if (funds > 0n) await svm.chain.faucet(buyer.agentId, funds);
    else await svm.chain.ensureTokenAccount(buyer.agentId);
    await svm.chain.ensureTokenAccount(host.agentId);
    const payment = await signTransfer(svm.chain, svm.rpcUrl, buyer, host.agentId, {
      amount: PRICE,
      memo: MEMO,
    });
    const requirements: PaymentRequirements = {
      scheme: 'exact',
      network: svm.chain.network,
      maxAmountRequired: PRICE.toString(),
      asset: svm.chain.mint,
      payTo: host.agentId,
      resource: 'https://townhall.test/events/e/rsvp?tier=general',
      description: 'a ticket',
      mimeType: 'application/json',
      maxTimeoutSeconds: 60,
      extra: { eventId: 'e', tierId: 'general', feePayer: svm.chain.feePayer, memo: MEMO },
    };
    return { payment, requirements };
  }

  /** The facilitator's answer, and how many transactions the payer signed landed meanwhile. */
  async function settled(payment: PaymentPayload, requirements: PaymentRequirements) {
    const { authority } = readExactSvmTransfer(payment);
    const before = svm.chain.signaturesFor(authority).length;
    const result = await facilitator.settle(payment, requirements);
    return { result, sent: svm.chain.signaturesFor(authority).length - before };
  }

  it.each([
    ['another amount', (r: PaymentRequirements) => ({ ...r, maxAmountRequired: String(PRICE + 1n) })],
    ['another memo', (r: PaymentRequirements) => ({ ...r, extra: { ...r.extra, memo: 'elsewhere' } })],
    [
      'a fee payer it does not manage',
      (r: PaymentRequirements) => ({ ...r, extra: { ...r.extra, feePayer: generateAgentKey().agentId } }),
    ],
  ])('decides a refusal of @x402/svm before sending: %s', async (_case, change) => {
    const { payment, requirements } = await aPayment();
    const { result, sent } = await settled(payment, change(requirements));
    expect(result.success).toBe(false);
    expect(result.errorReason).toMatch(/^invalid_exact_svm_/);
    expect(sent).toBe(0);
    expect(leavesOpen(result)).toBe(false);
  });

  it('decides a failed simulation (the payer cannot pay), refused before sending', async () => {
    const { payment, requirements } = await aPayment(0n);
    const { result, sent } = await settled(payment, requirements);
    expect(result.errorReason).toBe('invalid_exact_svm_transaction_simulation_failed');
    expect(sent).toBe(0);
    expect(leavesOpen(result)).toBe(false);
  });

  it('leaves open what comes after a send: a duplicate settlement of a payment that landed', async () => {
    const { payment, requirements } = await aPayment();
    const first = await facilitator.settle(payment, requirements);
    expect(first.success).toBe(true);
    expect(leavesOpen(first)).toBe(false);
    const again = await facilitator.settle(payment, requirements);
    expect(again).toMatchObject({ success: false, errorReason: 'duplicate_settlement' });
    expect(leavesOpen(again)).toBe(true);
  });

  it('leaves open a send the chain refused (here: the payment had landed already, sent by another)', async () => {
    const { payment, requirements } = await aPayment();
    await land(svm.chain, payment);
    const result = await facilitator.settle(payment, requirements);
    expect(result).toMatchObject({ success: false, errorReason: 'invalid_exact_svm_transaction_failed' });
    expect(leavesOpen(result)).toBe(true);
  });

  const answer = (errorReason: string): SettleResult => ({
    success: false,
    errorReason,
    transaction: '',
    network: '',
  });

  it.each([
    'facilitator_backend_exploded',
    'invalid_exact_svm_transaction_failed',
    'transaction_failed',
    'settlement_pending',
    'post_settlement_transfer_not_confirmed',
    FACILITATOR_FAILURES.timeout,
    FACILITATOR_FAILURES.unreachable,
    FACILITATOR_FAILURES.httpError,
    FACILITATOR_FAILURES.invalidResponse,
    FACILITATOR_FAILURES.settleRefused,
    'invalid_exact_svm_transaction_failed: invalid_exact_svm_payload_amount_mismatch',
  ])('leaves open %s', (reason) => {
    expect(leavesOpen(answer(reason))).toBe(true);
  });

  it.each([
    'invalid_exact_svm_payload_amount_mismatch',
    'invalid_exact_svm_smart_wallet_program_not_allowed: SQDS4ep65T869zMMBKyuUq6aD6EgTu8psMjkvj52pCf',
    'transaction_simulation_failed',
    FACILITATOR_FAILURES.invalidPayload,
    FACILITATOR_FAILURES.invalidRequirements,
  ])('decides %s', (reason) => {
    expect(leavesOpen(answer(reason))).toBe(false);
  });
});
