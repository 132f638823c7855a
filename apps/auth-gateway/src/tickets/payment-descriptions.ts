/*
 * The words of the paid routes (tickets.controller.ts) in the API document; docs/protocol/payments.md
 * section 4 is the reference: where it and this file disagree, it wins.
 */

export const RSVP_DESCRIPTION = `Free events issue a ticket at once. Paid events (\`single\`, \`tiered\`) use x402
(docs/protocol/payments.md section 4):

1. Without a payment the answer is **402**: a problem that is also an x402 v1
   \`PaymentRequired\` (\`x402Version\`, \`error\`, \`accepts\`: one \`exact\` requirement per tier
   that still has a seat, payable to the host's agentId, with \`resource\` =
   \`<server>/events/<id>/rsvp?tier=<tierId>\`), and a \`PAYMENT-REQUIRED\` header with the
   x402 v2 form of the same requirements (standard base64 of JSON).
2. Sign a payment for one requirement and send the same signed request again with
   \`X-PAYMENT\` (x402 v1) or \`PAYMENT-SIGNATURE\` (x402 v2): standard base64 of the JSON
   payment payload (on the built-in ledger, the \`LedgerPayment\` schema).
3. Success is **201** with the ticket and \`X-PAYMENT-RESPONSE\` (and \`PAYMENT-RESPONSE\`):
   standard base64 of \`{ success, transaction, network, payer }\` (\`PaymentResponse\`).

A refused payment is 402 \`payment.invalid\` whose \`error\` is the x402 reason
(\`amount_mismatch\`, \`resource_mismatch\`, \`expired\`, \`invalid_signature\`, ...), or 402
\`payment.insufficient_funds\`; a payment nonce reused with another payload is 409
\`payment.nonce_reused\`; a sold-out tier is 409 \`capacity.sold_out\`. In every one of those no
money moves. The same payment sent again returns the same ticket, and RSVP while holding a
ticket answers 200 with it (no second charge). Name the tier with \`tierId\` in the body or
\`?tier=\` (required for tiered events).

A host's code (\`code\` in the body or \`?code=\`, any case) changes what is offered: the 402 lists
the tiers it applies to (hidden tiers too, if it unlocks them) at the price it makes, and the
payment must be for that price; a code that makes the price 0 issues the ticket at once (201, no
payment). A code that does not exist is 404 \`code.not_found\`; one expired, used up or not for
the tier named, 409 \`code.expired\`, \`code.exhausted\` or \`code.not_for_tier\`.

x402's official extensions (docs/protocol/payments.md "Extensions") ride in the v2 forms: the
\`PAYMENT-REQUIRED\` header's \`extensions\` declare \`payment-identifier\` (a payment may carry an
id; the same id with the same payment answers with the same ticket, with another payment 409
\`payment.id_reused\`), carry \`offer-receipt\` offers (each accept signed by the service's key,
\`GET /.well-known/jwks.json\`) and describe the route for discovery (\`bazaar\`); a payment's
\`PAYMENT-RESPONSE\` carries the ticket's signed receipt in \`extensions["offer-receipt"]\`.

With an \`Idempotency-Key\`, a retry of the paying request (even with a newly signed payment:
payment headers are not part of the request's fingerprint) replays its 201 or 202, with its
\`X-PAYMENT-RESPONSE\`, and charges nothing. A 402 is not kept, so the key may already be on the
request that got it.`;

export const REFUND_PAY_DESCRIPTION = `A cancelled event owes a refund for each ticket paid on chain
(\`GET /events/{id}/refunds\`): the service holds no keys, so the host pays each one with its own key.
Sign the refund's \`payment\` (an x402 v2 \`exact\` requirement: to the holder, the ticket's price, the
memo \`townhall:refund:<refundId>\`, the facilitator's \`feePayer\`) with the official x402 client, and
send it here as \`PAYMENT-SIGNATURE\`. The transfer's authority must be the host that signs the request.

**200** once paid, with \`PAYMENT-RESPONSE\` (\`transaction\` is the chain signature) and a
\`townhall.refund.paid\` event; **202** while the facilitator has not said whether it settled (the refund
is \`paying\`, and is concluded from the chain). Exactly once: a paid refund answers 409
\`refund.already_paid\` and a second payment of one being paid 409 \`refund.in_flight\`, both before
anything is settled; the same payment again answers as the refund stands.`;

export const PAYMENT_HEADER_DESCRIPTION =
  'x402 v1 payment: standard base64 of the JSON payment payload (`LedgerPayment` on the built-in ledger).';

export const PAYMENT_SIGNATURE_HEADER_DESCRIPTION =
  'x402 v2 payment: standard base64 of the JSON payment payload (v2 form, with `accepted`).';
