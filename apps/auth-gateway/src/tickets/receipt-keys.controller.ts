import { Controller, Inject, Req, Res } from '@nestjs/common';
import { ReceiptKeySetSchema, Tickets, type ReceiptKeySet } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { metaOf } from '../request-context.js';
import { Route } from '../routes/route.decorator.js';

/**
 * Verifiers may keep the set five minutes. A rotation keeps the older keys published
 * (RECEIPT_PUBLISHED_KEYS), so a kept set lacks only a key newer than itself: a verifier that
 * meets an unknown `kid` fetches the set again.
 */
export const RECEIPT_KEYS_CACHE_CONTROL = 'public, max-age=300';

/**
 * The public keys of the service's x402 offers and receipts (docs/protocol/payments.md "The
 * receipt"), as a JWK set: ticketing holds the private key and says which public ones are
 * published; the gateway serves them to anyone, cacheable.
 */
@Controller()
export class ReceiptKeysController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Route({
    method: 'GET',
    path: '/.well-known/jwks.json',
    tag: 'Tickets',
    summary: 'The keys x402 offers and payment receipts are signed with (a JWK set)',
    description:
      'Each 402 of a paid RSVP carries offers, and each ticket a payment issued a receipt (`PAYMENT-RESPONSE` `extensions["offer-receipt"].info.receipt`, and `receipt` on the ticket): JWS (EdDSA) whose `kid` names one of these keys. The current key comes first; older keys stay published after a rotation, so receipts they signed still verify (`verifyReceiptSignatureJWS` of `@x402/extensions/offer-receipt`, or `townhall ticket verify`).',
    reply: ReceiptKeySetSchema,
    replyHeaders: ['Cache-Control'],
    codes: [],
  })
  async keys(
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ReceiptKeySet> {
    const keys = await this.services.send(Tickets.receiptKeys, {}, metaOf(request));
    reply.header('cache-control', RECEIPT_KEYS_CACHE_CONTROL);
    return keys;
  }
}
