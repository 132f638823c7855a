/**
 * Every problem code the service can answer with, its HTTP status and title.
 * Clients switch on `code`; it never changes once published. The gateway's problem
 * mapper and the OpenAPI document both read this table, so it is the only place a
 * code is declared.
 */
export const PROBLEM_CODES = {
  'validation.failed': { status: 400, title: 'The request is not valid' },
  'request.malformed_json': { status: 400, title: 'The body is not valid JSON' },
  'request.too_deep': { status: 400, title: 'The JSON body is nested too deeply' },
  'request.path_invalid': { status: 400, title: 'The request path is not acceptable' },
  'request.unknown_parameter': { status: 400, title: 'The query names a parameter this route does not take' },
  'request.malformed': { status: 400, title: 'The HTTP request is malformed' },
  'request.timeout': { status: 408, title: 'The request was not received in time' },
  'request.uri_too_long': { status: 414, title: 'The request path is longer than allowed' },
  'request.headers_too_large': { status: 431, title: 'The request headers are larger than allowed' },
  'request.unsupported_media_type': { status: 415, title: 'The body must be application/json' },
  'request.body_too_large': { status: 413, title: 'The body is larger than allowed' },
  'route.not_found': { status: 404, title: 'No such route' },
  'route.method_not_allowed': { status: 405, title: 'Method not allowed on this route' },

  'auth.malformed': { status: 401, title: 'The signed request headers are malformed' },
  'auth.timestamp_out_of_window': {
    status: 401,
    title: 'The signature timestamp is outside the freshness window',
  },
  'auth.agent_invalid': { status: 401, title: 'The agentId is not an acceptable Ed25519 public key' },
  'auth.signature_invalid': { status: 401, title: 'The signature does not verify' },
  'auth.nonce_replayed': { status: 401, title: 'The nonce was already used' },
  'auth.components_missing': {
    status: 401,
    title: 'The RFC 9421 signature does not cover what it must (see Accept-Signature)',
  },
  'auth.key_unknown': { status: 401, title: 'The signature names a key this service cannot find' },
  'auth.address_blocked': {
    status: 429,
    title: 'Too many signed requests from this address failed: it is refused signed requests for a while',
  },

  'role.forbidden': { status: 403, title: 'Your role in this event does not allow this' },
  'role.blocked': { status: 403, title: 'A moderator of this event has blocked you from taking part' },

  'event.not_found': { status: 404, title: 'No such event' },
  'event.invalid_transition': { status: 409, title: 'The event is not in a state that allows this' },
  'event.not_editable': { status: 409, title: 'Only a scheduled event can be edited' },
  'event.capacity_below_sold': { status: 409, title: 'Capacity cannot drop below the tickets already sold' },
  'series.not_found': { status: 404, title: 'No such series' },

  'payment.required': { status: 402, title: 'Payment required' },
  'payment.invalid': { status: 402, title: 'The payment was refused' },
  'payment.insufficient_funds': { status: 402, title: 'The payer cannot cover this payment' },
  'payment.nonce_reused': { status: 409, title: 'This payment nonce was already used for another payment' },
  'payment.id_reused': {
    status: 409,
    title: 'This payment identifier was already used for another payment',
  },
  'payment.settlement_failed': { status: 502, title: 'The payment facilitator did not settle the payment' },
  'capacity.sold_out': { status: 409, title: 'No seat is left' },
  'ticket.not_on_sale': { status: 409, title: 'This event does not sell tickets now' },
  'refund.not_found': { status: 404, title: 'No such refund for this event' },
  'refund.already_paid': { status: 409, title: 'This refund has been paid' },
  'refund.in_flight': { status: 409, title: 'Another payment of this refund is being settled' },
  'ticket.not_found': { status: 404, title: 'No such ticket' },
  'ticket.not_cancellable': {
    status: 409,
    title: 'Paid tickets are refunded only when the event is cancelled',
  },
  'ledger.faucet_disabled': { status: 404, title: 'The faucet is not available in this environment' },
  'ledger.faucet_over_cap': { status: 422, title: 'One faucet call cannot mint this much' },
  'ledger.faucet_rate_limited': { status: 429, title: 'This agent has used its faucet calls for the hour' },
  'waitlist.seats_available': { status: 409, title: 'Seats are available: RSVP instead of waiting' },
  'waitlist.not_found': { status: 404, title: 'You are not waiting for this event' },
  'access.not_invited': { status: 403, title: 'This event is invite only, and you are not invited' },
  'invite.not_found': { status: 404, title: 'This agent is not invited to this event' },
  'code.not_found': { status: 404, title: 'This event has no such code' },
  'code.exhausted': { status: 409, title: 'This code has been used as many times as it may be' },
  'code.expired': { status: 409, title: 'This code has expired' },
  'code.not_for_tier': { status: 409, title: 'This code does not apply to this tier' },
  'code.taken': { status: 409, title: 'This event has this code already' },
  'access.not_approved': {
    status: 403,
    title: 'This event needs approval: RSVP to ask the host, and wait for its answer',
  },
  'access.declined': { status: 403, title: 'The host declined your request to come to this event' },
  'request.not_found': { status: 404, title: 'This agent has not asked to come to this event' },
  'request.approved': { status: 409, title: 'This request was approved already: it cannot be declined' },

  'stage.closed': { status: 409, title: 'The stage is open only while the event is live' },
  'question.not_found': { status: 404, title: 'No such question' },
  'question.closed': { status: 409, title: 'Questions are taken while the event is scheduled or live' },
  'question.own_upvote': { status: 409, title: 'You cannot upvote your own question' },
  'question.own_report': { status: 409, title: 'You cannot report your own question' },
  'stage.message_not_found': { status: 404, title: 'No such stage message' },
  'question.invalid_transition': { status: 409, title: 'The question is not in a state that allows this' },
  'poll.not_found': { status: 404, title: 'No such poll' },
  'poll.closed': { status: 409, title: 'The poll is closed' },
  'poll.already_voted': { status: 409, title: 'You already voted in this poll' },
  'poll.not_live': { status: 409, title: 'Polls are opened only while the event is live' },
  'recording.not_found': {
    status: 404,
    title: 'No recording: the event has not ended, or it is not published',
  },
  'rate.limited': { status: 429, title: 'Too many requests' },
  'live.too_many_streams': { status: 429, title: 'Too many live streams open from this client address' },
  'live.at_capacity': { status: 503, title: 'This gateway serves as many live streams as it may' },
  'live.event_at_capacity': {
    status: 503,
    title: 'This gateway serves as many live streams of this event as it may',
  },

  'directory.card_not_found': { status: 404, title: 'This agent has no directory card' },
  'directory.handle_not_found': { status: 404, title: 'No agent holds this handle' },
  'directory.handle_taken': { status: 409, title: 'The handle belongs to another agent' },

  'idempotency.key_invalid': {
    status: 400,
    title: 'The Idempotency-Key must be 1 to 255 printable ASCII characters',
  },
  'idempotency.key_mismatch': {
    status: 422,
    title: 'This Idempotency-Key was used for a different request',
  },
  'idempotency.in_flight': {
    status: 409,
    title: 'The first request with this Idempotency-Key is still running',
  },
  'idempotency.too_many_keys': {
    status: 429,
    title: 'You hold as many Idempotency-Keys as allowed: send this write without one, or later',
  },

  'webhook.not_found': { status: 404, title: 'No such webhook subscription' },
  'event.limit_reached': {
    status: 409,
    title: 'You host as many scheduled or live events as allowed',
  },
  'series.limit_reached': { status: 409, title: 'You host as many series as allowed' },
  'webhook.limit_reached': { status: 409, title: 'You have as many webhook subscriptions as allowed' },
  'webhook.url_refused': {
    status: 400,
    title: 'The webhook URL is not allowed (scheme, or a private, loopback or link-local address)',
  },

  'dependency.unavailable': { status: 503, title: 'A dependency of the service is unavailable' },
  'service.unavailable': { status: 503, title: 'The service that owns this resource is unavailable' },
  'service.overloaded': { status: 503, title: 'The service that owns this resource is at capacity' },
  'service.timeout': { status: 504, title: 'The service that owns this resource did not answer in time' },
  'internal.error': { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export function isProblemCode(code: unknown): code is ProblemCode {
  return typeof code === 'string' && Object.hasOwn(PROBLEM_CODES, code);
}
