import {
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';
import { generateAgentKey } from '@townhall/auth';
import {
  encodePaymentHeader,
  encodePaymentRequiredHeader,
  signLedgerPayment,
  toPaymentRequirementsV2,
  type PaymentRequiredBody,
  type PaymentRequirements,
} from '@townhall/x402';
import { ReceiptSigner } from '@townhall/x402/extensions';
import { PAYMENT_REQUIRED_BUDGET, PaymentExtensions } from './payment-extensions.js';

const EVENT = '3f2c9a4e-7b1d-4c5e-9a8f-2d6b1e0c4a7f';
const host = generateAgentKey();

/** The largest 402 there can be: ten tiers with 32-character ids, at a long origin. */
const accepts: PaymentRequirements[] = Array.from({ length: 10 }, (_, index) => {
  const tierId = `tier-${index}`.padEnd(32, 'x');
  return {
    scheme: 'exact',
    network: 'ledger:production',
    maxAmountRequired: '123456789012345678901234567890',
    asset: 'USDC',
    payTo: host.agentId,
    resource: `https://townhall-api.some-long-company-name.example.com/events/${EVENT}/rsvp?tier=${tierId}`,
    description: `Ticket (${'N'.repeat(100)}) for event ${EVENT}`,
    mimeType: 'application/json',
    maxTimeoutSeconds: 300,
    extra: { eventId: EVENT, tierId },
  };
});

describe('the extensions of a 402', () => {
  const extensions = new PaymentExtensions({
    signer: ReceiptSigner.generate().signer,
    published: { keys: [] },
  });

  const largest = async (count: number) => {
    const problem = await extensions.paymentRequired(
      'payment.required',
      'pay',
      'X-PAYMENT header is required',
      accepts.slice(0, count),
      EVENT,
    );
    const body = problem.extensions?.['x402'] as PaymentRequiredBody;
    const declared = problem.extensions?.['x402Extensions'] as Record<string, unknown>;
    const required = encodePaymentRequiredHeader(body, undefined, declared);
    // What the official client sends back: every extension echoed, and its id.
    const last = accepts[count - 1]!;
    const payment = encodePaymentHeader({
      ...signLedgerPayment(generateAgentKey(), last),
      x402Version: 2,
      accepted: toPaymentRequirementsV2(last),
      extensions: { ...declared, 'payment-identifier': { info: { required: false, id: 'p'.repeat(128) } } },
    });
    return { declared, required, payment };
  };

  it('declares all three for a usual event', async () => {
    const { declared, required, payment } = await largest(3);
    expect(Object.keys(declared)).toEqual(['payment-identifier', 'offer-receipt', 'bazaar']);
    // What a facilitator's discovery runs before it lists the resource: the package's own checks.
    expect(declared['bazaar']).toMatchObject({ routeTemplate: '/events/:id/rsvp' });
    expect(validateDiscoveryExtension(declared['bazaar'] as DiscoveryExtension)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(declared['bazaar'] as Record<string, unknown>).valid).toBe(true);
    expect(required.length).toBeLessThanOrEqual(PAYMENT_REQUIRED_BUDGET);
    expect(payment.length).toBeLessThan(PAYMENT_REQUIRED_BUDGET);
  });

  it('keeps the largest 402 within its budget, and the payment echoing it within its header, by leaving offers out', async () => {
    const { declared, required, payment } = await largest(10);
    expect(Object.keys(declared)).toContain('payment-identifier');
    expect(Object.keys(declared)).not.toContain('offer-receipt');
    expect(required.length).toBeLessThanOrEqual(PAYMENT_REQUIRED_BUDGET);
    expect(payment.length).toBeLessThan(PAYMENT_REQUIRED_BUDGET);
  });

  it('is a 409, with no extensions, when nothing is left to buy', async () => {
    const problem = await extensions.paymentRequired('payment.required', 'pay', 'why', [], EVENT);
    expect(problem.code).toBe('capacity.sold_out');
    expect(problem.extensions?.['x402Extensions']).toBeUndefined();
  });
});
