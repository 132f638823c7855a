import type { PaymentRequirements } from '@townhall/x402';
import { Refusal, UsageError } from './failure.js';
import { checkMaxPrice, chooseOffer, offersOf } from './ticket-offer.js';

const offer = (tierId: string, price: string): PaymentRequirements => ({
  scheme: 'exact',
  network: 'ledger:development',
  maxAmountRequired: price,
  asset: 'USDC',
  payTo: 'host',
  resource: `http://x/events/e1/rsvp?tier=${tierId}`,
  description: '',
  mimeType: 'application/json',
  maxTimeoutSeconds: 300,
  extra: { eventId: 'e1', tierId },
});

describe('paying for a ticket', () => {
  it('reads the offers of a 402', () => {
    expect(offersOf({ accepts: [offer('general', '5')] })).toHaveLength(1);
    expect(offersOf({})).toEqual([]);
  });

  it('picks the named tier, or the only one', () => {
    expect(chooseOffer([offer('general', '5')], undefined).extra.tierId).toBe('general');
    const tiers = [offer('vip', '50'), offer('std', '10')];
    expect(chooseOffer(tiers, 'std').maxAmountRequired).toBe('10');
    expect(() => chooseOffer(tiers, undefined)).toThrow(UsageError);
    expect(() => chooseOffer(tiers, undefined)).toThrow(
      'choose a tier with --tier: vip at 0.00005 USDC (50), std at 0.00001 USDC (10)',
    );
    expect(() => chooseOffer(tiers, 'gold')).toThrow(Refusal);
    expect(() => chooseOffer([], undefined)).toThrow('no seat is left');
  });

  it('refuses a price above --max-price, comparing big integers exactly', () => {
    expect(() => checkMaxPrice(offer('general', '2500'), '2500')).not.toThrow();
    expect(() => checkMaxPrice(offer('general', '2500'), '2499')).toThrow(
      'a ticket in tier general costs 0.0025 USDC (2500), more than --max-price 2499; nothing was paid',
    );
    expect(() =>
      checkMaxPrice(offer('general', '100000000000000000000001'), '100000000000000000000000'),
    ).toThrow(Refusal);
  });
});
