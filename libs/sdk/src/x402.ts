// `@townhall/sdk/x402`: the x402 ledger scheme by hand (docs/protocol/payments.md), for a client that
// pays without AgentClient's `tickets.rsvp(..., { maxPrice })`: signLedgerPayment, encodePaymentHeader,
// decodePaymentResponse and their types. AgentClient loads the same module only when it pays.
export * from '@townhall/x402';
