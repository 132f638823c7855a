import { validateDiscoveryExtension, validateDiscoveryExtensionSpec } from '@x402/extensions/bazaar';
import type { DiscoveryExtension } from '@x402/extensions/bazaar';
import { appendPaymentIdentifierToExtensions, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import {
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  verifyOfferSignatureJWS,
  verifyReceiptSignatureJWS,
} from '@x402/extensions/offer-receipt';
import { encodePaymentResponse } from '../payload.js';
import type { PaymentPayload } from '../payload.js';
import { paymentRequiredBody, toPaymentRequiredV2, type PaymentRequirements } from '../requirements.js';
import { parseReceipt, ReceiptError, verifyTicketReceipt } from '../receipts.js';
import { bazaarExtension } from './bazaar.js';
import { offerExtension, receiptExtension, signReceipt } from './offer-receipt.js';
import {
  PaymentIdentifierError,
  paymentIdentifierDeclaration,
  paymentIdentifierOf,
} from './payment-identifier.js';
import { parsePublishedKeys, ReceiptKeyError, receiptKeySet, ReceiptSigner } from './receipt-signer.js';

const accept = (tierId: string): PaymentRequirements => ({
  scheme: 'exact',
  network: 'ledger:test',
  maxAmountRequired: '2500',
  asset: 'USDC',
  payTo: 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z',
  resource: `https://api.example.com/events/e1/rsvp?tier=${tierId}`,
  description: `Ticket (${tierId}) for event e1`,
  mimeType: 'application/json',
  maxTimeoutSeconds: 300,
  extra: { eventId: 'e1', tierId },
});

describe('ReceiptSigner', () => {
  it('is the same key, with the same kid (its RFC 7638 thumbprint), from the same seed', () => {
    const { signer, seed } = ReceiptSigner.generate();
    const again = ReceiptSigner.fromSeed(seed);
    expect(again.publicKey).toEqual(signer.publicKey);
    expect(signer.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ReceiptSigner.fromSeed(seed, 'key-2026').kid).toBe('key-2026');
  });

  it('refuses a seed that is not 32 bytes of base64, and a kid with spaces', () => {
    expect(() => ReceiptSigner.fromSeed('c2hvcnQ=')).toThrow(ReceiptKeyError);
    expect(() => ReceiptSigner.fromSeed('not base64!')).toThrow(ReceiptKeyError);
    expect(() => ReceiptSigner.fromSeed(ReceiptSigner.generate().seed, 'a kid')).toThrow(ReceiptKeyError);
  });

  it('publishes the current key first and the older ones once, never a private key', () => {
    const current = ReceiptSigner.generate().signer.publicKey;
    const older = ReceiptSigner.generate().signer.publicKey;
    const set = receiptKeySet(current, parsePublishedKeys(JSON.stringify({ keys: [older, current] })));
    expect(set.keys.map((key) => key.kid)).toEqual([current.kid, older.kid]);
    expect(() => parsePublishedKeys(JSON.stringify({ keys: [{ ...older, d: 'secret' }] }))).toThrow(
      /private key/,
    );
    expect(() => parsePublishedKeys('[]')).toThrow(ReceiptKeyError);
    expect(() => parsePublishedKeys(JSON.stringify({ keys: [{ kty: 'EC' }] }))).toThrow(ReceiptKeyError);
  });
});

describe('offer-receipt', () => {
  const { signer } = ReceiptSigner.generate();

  it('signs one offer per accept, each naming its own tier’s resource, that the package verifies', async () => {
    const required = toPaymentRequiredV2(
      paymentRequiredBody('X-PAYMENT header is required', [accept('vip'), accept('general')]),
    );
    const extension = await offerExtension(signer, required, (a) => String(a.extra?.['resource']));
    const offers = extractOffersFromPaymentRequired({
      ...required,
      extensions: { 'offer-receipt': extension },
    } as Parameters<typeof extractOffersFromPaymentRequired>[0]);
    expect(offers).toHaveLength(2);
    const [vip, general] = await Promise.all(
      offers.map((offer) => verifyOfferSignatureJWS(offer as never, signer.publicKey)),
    );
    expect(vip).toMatchObject({
      resourceUrl: accept('vip').resource,
      amount: '2500',
      payTo: accept('vip').payTo,
    });
    expect(general!.resourceUrl).toBe(accept('general').resource);
    const other = ReceiptSigner.generate().signer;
    await expect(verifyOfferSignatureJWS(offers[0] as never, other.publicKey)).rejects.toThrow();
  });

  it('gives a receipt naming the resource, payer, amount, network and transaction, found where the package looks', async () => {
    const claims = {
      resourceUrl: accept('vip').resource,
      payer: 'payer1',
      network: 'ledger:test',
      transaction: 'tx-1',
      amount: '2500',
      asset: 'USDC',
      issuedAt: new Date('2026-01-01T00:00:00Z'),
    };
    const receipt = await signReceipt(signer, claims);
    const extension = await receiptExtension(receipt, claims);
    const header = encodePaymentResponse({
      success: true,
      transaction: 'tx-1',
      network: 'ledger:test',
      payer: 'payer1',
      extensions: { 'offer-receipt': extension },
    });
    const found = extractReceiptFromResponse(new Response(null, { headers: { 'PAYMENT-RESPONSE': header } }));
    expect(found).toEqual(receipt);
    expect(await verifyReceiptSignatureJWS(receipt, signer.publicKey)).toEqual({
      version: 1,
      resourceUrl: claims.resourceUrl,
      payer: 'payer1',
      network: 'ledger:test',
      transaction: 'tx-1',
      amount: '2500',
      asset: 'USDC',
      issuedAt: 1767225600,
    });

    // Offline, against the published set: the header, the JSON or the JWS alone.
    const set = receiptKeySet(signer.publicKey, []);
    for (const kept of [header, JSON.stringify(receipt), receipt.signature])
      expect((await verifyTicketReceipt(parseReceipt(kept), set)).amount).toBe('2500');
    // A character in the middle of the signature part: the last one may carry only padding bits.
    const at = receipt.signature.length - 20;
    const flipped = receipt.signature[at] === 'A' ? 'B' : 'A';
    const forged = {
      ...receipt,
      signature: `${receipt.signature.slice(0, at)}${flipped}${receipt.signature.slice(at + 1)}`,
    };
    await expect(verifyTicketReceipt(forged, set)).rejects.toThrow(ReceiptError);
    await expect(
      verifyTicketReceipt(receipt, receiptKeySet(ReceiptSigner.generate().signer.publicKey, [])),
    ).rejects.toThrow(/no key of the set/);
    expect(() => parseReceipt('nonsense')).toThrow(ReceiptError);
  });
});

describe('payment-identifier', () => {
  const payment = (extensions?: Record<string, unknown>): PaymentPayload => ({
    x402Version: 2,
    scheme: 'exact',
    network: 'ledger:test',
    payload: {},
    ...(extensions ? { extensions } : {}),
  });

  it('reads the id the official client appends to the declaration', () => {
    const extensions = { [PAYMENT_IDENTIFIER]: structuredClone(paymentIdentifierDeclaration()) };
    appendPaymentIdentifierToExtensions(extensions, 'pay_0123456789abcdef');
    expect(paymentIdentifierOf(payment(extensions))).toBe('pay_0123456789abcdef');
    expect(paymentIdentifierOf(payment())).toBeUndefined();
    expect(
      paymentIdentifierOf(payment({ [PAYMENT_IDENTIFIER]: { info: { required: false } } })),
    ).toBeUndefined();
  });

  it.each([
    ['a NUL', 'pay_0123456789abc\u0000'],
    ['a lone surrogate', 'pay_0123456789abc\ud800'],
    ['too long', 'p'.repeat(129)],
    ['too short', 'pay_1'],
    ['a number', 1234567890123456],
    ['null', null],
  ])('refuses an id that is %s', (_, id) => {
    expect(() =>
      paymentIdentifierOf(payment({ [PAYMENT_IDENTIFIER]: { info: { required: false, id } } })),
    ).toThrow(PaymentIdentifierError);
  });

  it('refuses an extension that is not an object, and never compiles the schema a client sends', () => {
    expect(() => paymentIdentifierOf(payment({ [PAYMENT_IDENTIFIER]: 'pay_0123456789abcdef' }))).toThrow(
      PaymentIdentifierError,
    );
    const hostile = {
      info: { required: false, id: 'pay_0123456789abcdef' },
      schema: { pattern: '(a+)+$', type: 'nope' },
    };
    expect(paymentIdentifierOf(payment({ [PAYMENT_IDENTIFIER]: hostile }))).toBe('pay_0123456789abcdef');
  });
});

describe('bazaar', () => {
  it('describes a JSON route so that the package’s own checks pass, with its method and path parameters', () => {
    const extension = bazaarExtension({
      method: 'POST',
      routePattern: '/events/:id/rsvp',
      path: '/events/e1/rsvp',
      body: { tierId: 'vip' },
      bodySchema: { type: 'object', properties: { tierId: { type: 'string', enum: ['vip'] } } },
      output: { id: 't1' },
      outputSchema: { properties: { id: { type: 'string' } }, required: ['id'] },
    });
    expect(validateDiscoveryExtension(extension as DiscoveryExtension)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(extension as unknown as Record<string, unknown>).valid).toBe(true);
    expect(extension).toMatchObject({
      routeTemplate: '/events/:id/rsvp',
      info: {
        input: { method: 'POST', bodyType: 'json', body: { tierId: 'vip' }, pathParams: { id: 'e1' } },
      },
    });
  });

  it("is refused by the package's checks when its example breaks its own schema (so the checks above can fail)", () => {
    const extension = bazaarExtension({
      method: 'POST',
      routePattern: '/events/:id/rsvp',
      path: '/events/e1/rsvp',
      body: { tierId: 7 },
      bodySchema: { type: 'object', properties: { tierId: { type: 'string' } } },
      output: { id: 't1' },
      outputSchema: {},
    });
    expect(validateDiscoveryExtension(extension).valid).toBe(false);
  });
});
