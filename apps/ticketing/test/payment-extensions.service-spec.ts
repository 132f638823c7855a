import { generateAgentKey } from '@townhall/auth';
import { Tickets, type ReceiptKeySet } from '@townhall/contracts';
import { ConfigError, createLogger } from '@townhall/platform/service';
import { refusalOf, type ServiceHarness } from '@townhall/testing/service';
import { signLedgerPayment, toPaymentRequirementsV2 } from '@townhall/x402';
import { ReceiptSigner, receiptKeySet } from '@townhall/x402/extensions';
import { verifyTicketReceipt } from '@townhall/x402/receipts';
import { ticketing } from '../src/service.js';
import { paid, TicketingFixtures } from './fixtures.js';

const base64Json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64');

/** x402's extensions on ticketing's side (docs/protocol/payments.md "Extensions"). */
describe('x402 extensions: payment ids, receipts and the key set', () => {
  const fixtures = new TicketingFixtures();
  const { anEvent, offerOf, funded, balanceOf, answer } = fixtures;
  const current = ReceiptSigner.generate();
  const older = ReceiptSigner.generate().signer;
  let service: ServiceHarness;

  beforeAll(async () => {
    service = await fixtures.start({
      LEDGER_FAUCET: 'true',
      RECEIPT_SIGNING_KEY: current.seed,
      RECEIPT_PUBLISHED_KEYS: JSON.stringify(receiptKeySet(older.publicKey, [])),
    });
  });
  afterAll(() => service.stop());

  /** A v2 ledger payment (PAYMENT-SIGNATURE) of `offer` carrying `id` as its payment-identifier. */
  const identified = (
    agent: ReturnType<typeof generateAgentKey>,
    offer: Parameters<typeof signLedgerPayment>[1],
    id: unknown,
  ) => {
    const signed = signLedgerPayment(agent, offer);
    return base64Json({
      x402Version: 2,
      accepted: toPaymentRequirementsV2(offer),
      payload: signed.payload,
      extensions: { 'payment-identifier': { info: { required: false, id } } },
    });
  };

  it('publishes the current key first, then the older ones still configured', async () => {
    const set: ReceiptKeySet = await service.send(Tickets.receiptKeys, {});
    expect(set.keys.map((key) => key.kid)).toEqual([current.signer.kid, older.kid]);
    expect(set.keys[0]).toEqual(current.signer.publicKey);
  });

  it('of many payments under one id at once, issues one ticket and moves the money once', async () => {
    const event = anEvent(10, paid('700'));
    const buyer = await funded('10000');
    const offer = await offerOf(buyer, event.eventId);
    const id = 'pay_race_0123456789abcdef';
    const headers = Array.from({ length: 6 }, () => identified(buyer, offer, id));
    const answers = await Promise.allSettled(headers.map((header) => answer(buyer, event.eventId, header)));
    const created = answers.filter((a) => a.status === 'fulfilled' && 'ticket' in a.value && a.value.created);
    expect(created).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status === 'rejected'))
      expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: 'payment.id_reused' });
    expect(await balanceOf(buyer)).toBe('9300');

    // The ticket's receipt is the service's, naming what was paid.
    const [winner] = created as PromiseFulfilledResult<{
      ticket: { receipt?: { format: 'jws'; signature: string } };
    }>[];
    const claims = await verifyTicketReceipt(
      winner!.value.ticket.receipt!,
      receiptKeySet(current.signer.publicKey, []),
    );
    expect(claims).toMatchObject({
      payer: buyer.agentId,
      amount: '700',
      asset: 'USDC',
      resourceUrl: offer.resource,
    });

    // The id with another payment, later: 409, whatever the event.
    const other = anEvent(10, paid('700'));
    const again = identified(buyer, await offerOf(buyer, other.eventId), id);
    expect((await refusalOf(answer(buyer, other.eventId, again))).code).toBe('payment.id_reused');
    expect(await balanceOf(buyer)).toBe('9300');
  });

  it('refuses a malformed payment-identifier with validation.failed, and takes nothing', async () => {
    const event = anEvent(10, paid('700'));
    const buyer = await funded('1000');
    const offer = await offerOf(buyer, event.eventId);
    for (const id of [
      'short',
      'x'.repeat(129),
      'pay_0123456789abc\u0000',
      'pay_0123456789abc\ud800',
      42,
      {},
    ]) {
      const refused = await refusalOf(answer(buyer, event.eventId, identified(buyer, offer, id)));
      expect(refused.code).toBe('validation.failed');
    }
    expect(await balanceOf(buyer)).toBe('1000');
  });

  it('needs RECEIPT_SIGNING_KEY in production, and refuses a broken key or a private key to publish', async () => {
    const logger = createLogger('test', 'silent');
    const define = (env: Record<string, string>) => ticketing.defineFrom(env, logger);
    await expect(
      define({ TOWNHALL_ENV: 'production', PUBLIC_BASE_URL: 'https://townhall.example' }),
    ).rejects.toThrow(/RECEIPT_SIGNING_KEY: required in production/);
    await expect(define({ RECEIPT_SIGNING_KEY: 'c2hvcnQ=' })).rejects.toThrow(ConfigError);
    await expect(
      define({
        RECEIPT_SIGNING_KEY: current.seed,
        RECEIPT_PUBLISHED_KEYS: JSON.stringify({ keys: [{ ...older.publicKey, d: 'secret' }] }),
      }),
    ).rejects.toThrow(/RECEIPT_PUBLISHED_KEYS: keys\[0\] holds a private key/);
  });
});
