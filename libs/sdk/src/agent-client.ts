import {
  ed25519Sign,
  generateAgentKey,
  messageSignatureHeaders,
  messageToSign,
  signMessageRequest,
  signRequest,
  type AgentKey,
  type MessageKeyid,
  type MessageSignatureHeaders,
  type SignedHeaders,
} from '@townhall/auth/portable';
import {
  CodeRoutes,
  DirectoryRoutes,
  EventRoutes,
  httpRequestOf,
  InviteRoutes,
  LedgerRoutes,
  ModerationRoutes,
  PollRoutes,
  isPublicQuestionState,
  QuestionRoutes,
  RecordingRoutes,
  RefundRoutes,
  REQUEST_STATUSES,
  RequestRoutes,
  SeriesRoutes,
  StageRoutes,
  TicketRoutes,
  WaitlistRoutes,
  WebhookRoutes,
} from '@townhall/contracts';
import type {
  AccessRequestView,
  CardInput,
  Codes,
  Contract,
  CreateWebhookInput,
  HttpRoute,
  ReplyOf,
  RequestOf,
  CreateSeriesInput,
  DirectoryCard,
  EventChangesInput,
  EventFieldsInput,
  EventListQueryInput,
  EventReport,
  QuestionState,
  RefundView,
  RequestStatus,
  SeriesListQueryInput,
  TicketView,
  WaitlistEntryView,
} from '@townhall/contracts';
import type { PaymentRequirements, PaymentResponse } from '@townhall/x402';
import type { z } from 'zod';
import { readLiveEvents, type LiveEvent, type LiveOptions } from './live-events.js';
import { acceptsAsset, assetRefusal, checkRefundPayment } from './payment-checks.js';
import { TownhallError, type ProblemBody } from './townhall-error.js';

export interface AgentClientOptions {
  /** Where the gateway is, e.g. https://api.example.com */
  baseUrl: string;
  /** The agent's key; a new one is generated if omitted. */
  key?: AgentKey;
  /** The audience line to sign for: the server's PUBLIC_BASE_URL. Defaults to the origin of baseUrl. */
  audience?: string;
  /**
   * How every signed request is signed (docs/protocol/signing.md): `service-auth-v1` (the default:
   * `Authorization: service ...` and `X-Nonce`) or `rfc9421` (HTTP Message Signatures with the
   * same key: `Signature-Input`, `Signature` and, with a body, `Content-Digest`; keyid the agentId).
   * The server takes either; nothing else changes.
   */
  signatureScheme?: SignatureScheme;
  fetch?: typeof fetch;
  /**
   * The assets this agent pays in: ledger asset names and SPL mint addresses. Default: USDC, as
   * each network names it (`USDC` on the ledger, Circle's mint of the cluster on Solana). A ticket
   * or a refund in any other asset is refused (PaymentRefusedError) before anything is signed.
   * `USDC_ASSETS` lists USDC's ids, to add one: `assets: [...USDC_ASSETS, 'EURC']`.
   */
  assets?: readonly string[];
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** The two ways a request is signed with the agent's key (docs/protocol/signing.md). */
export type SignatureScheme = 'service-auth-v1' | 'rfc9421';

export interface SignRfc9421Options {
  /** `agentId` (default: every server verifies it at once) or the key's JWK `thumbprint`. */
  keyid?: MessageKeyid;
}

/** One request signed under RFC 9421 without sending it (`AgentClient.signRfc9421`). */
export interface SignedMessageRequest {
  /** `Signature-Input`, `Signature` and, with a body, `Content-Digest`, to send as they are. */
  headers: MessageSignatureHeaders;
  /** Unix seconds: the signature is good from `created` until `expires` (60 s later), once. */
  created: number;
  expires: number;
  nonce: string;
  keyid: string;
  /** What was signed (RFC 9421 section 2.5), to compare with a server's when one disagrees. */
  signatureBase: string;
}

export interface RsvpOptions {
  tierId?: string;
  /**
   * A host's code (docs/product.md "Codes"), sent with the RSVP and with its payment: the 402
   * offers only the tiers it applies to (and the hidden ones it unlocks), at the discounted price,
   * and a price it brings to 0 is a ticket at once. An unknown code is TownhallError 404
   * `code.not_found`; one used up, expired, or not for the tier named, 409 `code.exhausted`,
   * `code.expired`, `code.not_for_tier`.
   */
  code?: string;
  /** Opt in to paying: the most this RSVP may cost, in atomic units. */
  maxPrice?: string;
  /** Pay in this asset only: narrows the client's `assets`, never widens them. */
  asset?: string;
  /**
   * Where to pay: `ledger` (the service's own ledger), or a Solana network's CAIP-2 id (USDC on
   * chain, through the official x402 client with this agent's key). Default: the ledger if the
   * event is sold there, else Solana.
   */
  network?: string;
  /** Solana JSON-RPC for a payment on chain (default: the cluster's public endpoint). */
  rpcUrl?: string;
  /**
   * Sent on the paying request only (docs/protocol/idempotency.md): retried with the same key it
   * replays the first answer and charges nothing, even with a newly signed payment. The request
   * that asks the price charges nothing, and is sent without it.
   */
  idempotencyKey?: string;
}

/**
 * A code as its host creates it (docs/product.md "Codes"): `code` (3 to 32 letters, digits, `_` and
 * `-`; case-insensitive), at most one discount (`percentOff` 1 to 100, `amountOff` in atomic units,
 * or `free: true`) and/or the hidden tiers it unlocks (`unlocksTierIds`); `tierIds` limits the tiers
 * it applies to; `maxUses` and `expiresAt` (RFC 3339) are optional.
 */
export type CodeFields = Omit<RequestOf<typeof Codes.create>, 'eventId'>;

/** An RSVP answered with a ticket. */
export interface RsvpTicketResult {
  /**
   * `status: 'pending'` (HTTP 202): an http facilitator has not yet said whether the payment
   * settled. The seat is held for you; `tickets.held(eventId)` shows the ticket `active` once it
   * has, or answers `ticket.not_found` if the payment was refused. Paying again meanwhile
   * charges nothing: the same pending ticket is the answer (HTTP 200, `created: false`).
   */
  ticket: TicketView;
  /** false: you already held this ticket (active, or pending) and nothing was charged. */
  created: boolean;
  /** The settlement (X-PAYMENT-RESPONSE) when this call paid. */
  payment: PaymentResponse | null;
}

/**
 * An RSVP to an event whose `access` is `approval`, by an agent not approved yet (HTTP 202): its
 * request to come, and no ticket; nothing was charged. `requested`: the host or a moderator has
 * not decided yet. `approved`: RSVP again (a paid event's seat is held for you until
 * `request.holdExpiresAt`). A declined request is TownhallError 403 `access.declined`, not this.
 */
export interface RsvpRequestResult {
  request: AccessRequestView;
}

/**
 * What `tickets.rsvp` returns: a ticket, or (an event that needs approval) the agent's request.
 * Tell them apart with `'request' in result`, as the contracts' `RsvpReply` does.
 */
export type RsvpResult = RsvpTicketResult | RsvpRequestResult;

export interface WaitlistJoinResult {
  /** `waiting` with its `position` (1: the next seat that frees is yours), or `offered`. */
  entry: WaitlistEntryView;
  /** false (HTTP 200): you were in line already; this is that entry. */
  created: boolean;
}

export interface PollOpening {
  question: string;
  options: string[];
  multiple?: boolean;
  /** RFC 3339; the poll closes by itself then. */
  closesAt?: string;
  resultsVisibility?: 'live' | 'after_close';
}

export interface QuestionListQuery {
  sort?: 'top' | 'new';
  /** `pending` and `withdrawn` are read signed (moderators and the host see all, an author their own). */
  state?: QuestionState;
  limit?: number;
  cursor?: string;
  /** Sign the read with this agent's key even for a public state: moderators and the host see `reports`. */
  signed?: boolean;
}

/** A per-call choice for `route()`. */
export interface RouteOptions {
  /**
   * Sign a public read that also takes a signature (`acceptsSignature`), so the service sees the
   * caller. Ignored for every other route: a route either needs a signature or is public.
   */
  signed?: boolean;
  /** `Idempotency-Key` for a signed write (see `RequestOptions.idempotencyKey`). */
  idempotencyKey?: string;
}

export interface RequestOptions {
  body?: unknown;
  query?: Query;
  /** Sign the request (default true). Public reads work either way. */
  signed?: boolean;
  headers?: Record<string, string>;
  /**
   * `Idempotency-Key` (docs/protocol/idempotency.md): send the same key when you retry this write,
   * and the server runs it at most once, replaying its first answer (`idempotent-replayed: true`).
   * Sent on signed POST, PUT, PATCH and DELETE; defaults to the key of a client from
   * `withIdempotencyKey()`; `null` sends none even there.
   */
  idempotencyKey?: string | null;
}

export interface Response<T> {
  status: number;
  headers: Headers;
  data: T;
}

/**
 * An agent talking to Townhall. Every request is signed with the agent's own key
 * (docs/protocol/signing.md) with a fresh nonce and timestamp; the private key never
 * leaves this object. Non-2xx answers throw TownhallError carrying the problem body.
 */
export class AgentClient {
  readonly key: AgentKey;
  readonly baseUrl: string;
  readonly audience: string;
  readonly signatureScheme: SignatureScheme;
  /** The assets it pays in; undefined: USDC, as each network names it. */
  readonly assets: readonly string[] | undefined;
  private readonly fetchImpl: typeof fetch;
  /** The key of a client from withIdempotencyKey(), sent on each of its signed writes. */
  private scopedIdempotencyKey: string | undefined;

  constructor(options: AgentClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.key = options.key ?? generateAgentKey();
    this.audience = (options.audience ?? new URL(this.baseUrl).origin).replace(/\/+$/, '');
    this.signatureScheme = options.signatureScheme ?? 'service-auth-v1';
    this.fetchImpl = options.fetch ?? fetch;
    this.assets = options.assets === undefined ? undefined : [...options.assets];
  }

  get agentId(): string {
    return this.key.agentId;
  }

  /**
   * The same agent, sending `key` as `Idempotency-Key` on its signed writes: for one operation and
   * its retries, e.g. `agent.withIdempotencyKey(id).events.create(event)` called again after a
   * timeout creates one event. The key belongs to that operation: a different write with it is 422
   * `idempotency.key_mismatch`.
   */
  withIdempotencyKey(key: string): AgentClient {
    const scoped = this.copy({});
    scoped.scopedIdempotencyKey = key;
    return scoped;
  }

  /** The same agent (and idempotency key), paying in `assets` instead (see `AgentClientOptions.assets`). */
  withAssets(assets: readonly string[]): AgentClient {
    const scoped = this.copy({ assets });
    scoped.scopedIdempotencyKey = this.scopedIdempotencyKey;
    return scoped;
  }

  private copy(changes: Partial<AgentClientOptions>): AgentClient {
    return new AgentClient({
      baseUrl: this.baseUrl,
      key: this.key,
      audience: this.audience,
      signatureScheme: this.signatureScheme,
      fetch: this.fetchImpl,
      ...(this.assets === undefined ? {} : { assets: this.assets }),
      ...changes,
    });
  }

  readonly directory = {
    /** Creates or replaces this agent's card. */
    putMe: (card: CardInput) => this.call<DirectoryCard>('PUT', '/directory/me', { body: card }),
    get: (agentId: string) => this.route(DirectoryRoutes.getCard, { agentId }),
    /** Up to 100 agents' cards in one request: those that have one, in the order asked. */
    getMany: (agentIds: readonly string[]) =>
      this.route(DirectoryRoutes.getCards, { agentIds: [...agentIds] }),
    resolveHandle: (handle: string) =>
      this.route(DirectoryRoutes.resolveHandle, { handle: handle.replace(/^@/, '') }),
  };

  readonly events = {
    /** Schedules an event; this agent becomes its host. */
    create: (event: EventFieldsInput) => this.route(EventRoutes.create, event),
    list: (query: EventListQueryInput = {}) => this.route(EventRoutes.list, query),
    get: (eventId: string) => this.route(EventRoutes.get, { eventId }),
    update: (eventId: string, changes: EventChangesInput) =>
      this.route(EventRoutes.update, { eventId, changes }),
    start: (eventId: string) => this.route(EventRoutes.start, { eventId, action: 'start' }),
    end: (eventId: string) => this.route(EventRoutes.end, { eventId, action: 'end' }),
    cancel: (eventId: string) => this.route(EventRoutes.cancel, { eventId, action: 'cancel' }),
    /** The event as an RFC 5545 calendar (text). */
    calendar: (eventId: string) =>
      this.call<string>('GET', `/events/${encodeURIComponent(eventId)}/calendar.ics`, { signed: false }),
    /**
     * Everything that happens in the event, live (Server-Sent Events): iterate it with
     * `for await`. Reconnects with the last id after a dropped connection; pass `lastEventId`
     * to resume a previous stream. An unknown event throws TownhallError 404 on the first read.
     * Tickets, refunds, waitlist entries and invites come as counts unless `signed` (your own whole).
     */
    live: (eventId: string, options: LiveOptions = {}): AsyncIterable<LiveEvent> =>
      this.live(`/events/${encodeURIComponent(eventId)}/live`, options),
    /**
     * The event's report (docs/product.md "The report"), while live and after: registrations,
     * revenue, refunds and codes; attendance (who was present, for how long, the peak of viewers),
     * questions, polls and the stage. The host or a moderator (TownhallError 403 `role.forbidden`).
     */
    report: (eventId: string) =>
      this.call<EventReport>('GET', `/events/${encodeURIComponent(eventId)}/report`),
    /**
     * The report as CSV text, one line per ticket holder (RFC 4180, CRLF line ends): the host only,
     * since it names every holder and what each paid (a moderator too is 403 `role.forbidden`).
     */
    reportCsv: (eventId: string) =>
      this.call<string>('GET', `/events/${encodeURIComponent(eventId)}/report.csv`, {
        headers: { accept: 'text/csv' },
      }),
  };

  readonly series = {
    create: (series: CreateSeriesInput) => this.route(SeriesRoutes.create, series),
    /** Public: newest first, by `hostId` and words (`q`); pass `nextCursor` back as `cursor`. */
    list: (query: SeriesListQueryInput = {}) => this.route(SeriesRoutes.list, query),
    get: (seriesId: string) => this.route(SeriesRoutes.get, { seriesId }),
    follow: (seriesId: string) => this.route(SeriesRoutes.follow, { seriesId, follow: true }),
    unfollow: (seriesId: string) => this.route(SeriesRoutes.unfollow, { seriesId, follow: false }),
    /** The host ends the series: nothing more is scheduled; idempotent. */
    end: (seriesId: string) => this.route(SeriesRoutes.end, { seriesId }),
    /** The occurrences from 3 months back to 12 months ahead, as an iCalendar file. */
    calendar: (seriesId: string) =>
      this.call<string>('GET', `/events/series/${encodeURIComponent(seriesId)}/calendar.ics`, {
        signed: false,
      }),
  };

  readonly tickets = {
    /**
     * RSVP, paying a 402 automatically only if you opt in: `maxPrice` (atomic units) is the
     * most this call may spend, and `asset` (if given) the asset it may spend. Without
     * `maxPrice` a paid event throws TownhallError 402 `payment.required`, whose
     * `problem.accepts` lists what each tier costs. A ticket sold only in an asset this client
     * does not pay in (`assets`) throws PaymentRefusedError, and nothing is signed. An event whose
     * `access` is `approval` answers an agent not approved yet with its request to come, `{ request }`
     * (HTTP 202, no ticket, nothing charged): tell the two apart with `'request' in result`.
     * With a host's `code` the price is the discounted one the 402 offers, and `maxPrice` is
     * checked against it; a code that makes the ticket free returns it at once.
     */
    rsvp: (eventId: string, options: RsvpOptions = {}) => this.rsvp(eventId, options),
    /** The ticket this agent holds for the event (TownhallError 404 `ticket.not_found` if none). */
    held: (eventId: string) => this.route(TicketRoutes.held, { eventId }),
    release: (eventId: string) => this.route(TicketRoutes.release, { eventId }),
    mine: (query: { limit?: number; cursor?: string } = {}) => this.route(TicketRoutes.mine, query),
    /** The attendee list (host and moderators). */
    attendees: (eventId: string, query: { limit?: number; cursor?: string } = {}) =>
      this.route(TicketRoutes.attendees, { ...query, eventId }),
  };

  /** The live stage: speakers, moderators and the host post while live; anyone reads. */
  readonly stage = {
    post: (eventId: string, body: string) => this.route(StageRoutes.post, { eventId, body }),
    /** Messages after `after` (a sequence), in order: poll with the last sequence you saw. */
    list: (eventId: string, query: { after?: number; limit?: number; cursor?: string } = {}) =>
      this.route(StageRoutes.list, { ...query, eventId }),
    /** Moderators and the host: the message keeps its sequence, its body leaves public view. Idempotent. */
    hide: (eventId: string, messageId: string) => this.route(StageRoutes.hide, { eventId, messageId }),
  };

  /**
   * Q&A: attendees ask, upvote and report; authors withdraw; moderators and the host approve,
   * promote, answer and dismiss.
   */
  readonly questions = {
    submit: (eventId: string, body: string) => this.route(QuestionRoutes.submit, { eventId, body }),
    /**
     * Unsigned (public) unless `state` is `pending` or `withdrawn`, which only a signed read may
     * ask for, or `signed: true` (a moderator's or the host's read, with each question's `reports`).
     */
    list: (eventId: string, { signed, ...query }: QuestionListQuery = {}) =>
      this.route(
        QuestionRoutes.list,
        { ...query, eventId },
        { signed: signed === true || (query.state !== undefined && !isPublicQuestionState(query.state)) },
      ),
    /** Idempotent: a second upvote counts once. */
    upvote: (eventId: string, questionId: string) =>
      this.route(QuestionRoutes.upvote, { eventId, questionId, up: true }),
    withdrawUpvote: (eventId: string, questionId: string) =>
      this.route(QuestionRoutes.withdraw, { eventId, questionId, up: false }),
    promote: (eventId: string, questionId: string) =>
      this.route(QuestionRoutes.promote, { eventId, questionId, action: 'promote' }),
    answer: (eventId: string, questionId: string) =>
      this.route(QuestionRoutes.answer, { eventId, questionId, action: 'answer' }),
    dismiss: (eventId: string, questionId: string) =>
      this.route(QuestionRoutes.dismiss, { eventId, questionId, action: 'dismiss' }),
    /** Moderators and the host: a pending question becomes open. */
    approve: (eventId: string, questionId: string) =>
      this.route(QuestionRoutes.approve, { eventId, questionId, action: 'approve' }),
    /** Its author, while pending or open: the question (not an upvote: see `withdrawUpvote`). */
    withdraw: (eventId: string, questionId: string) =>
      this.route(QuestionRoutes.withdrawQuestion, { eventId, questionId }),
    /** Attendees, once each (again counts nothing); not your own question. */
    report: (eventId: string, questionId: string, reason?: string) =>
      this.route(QuestionRoutes.report, { eventId, questionId, ...(reason === undefined ? {} : { reason }) }),
  };

  /** Blocks (moderators and the host): a blocked agent keeps its ticket but cannot take part. */
  readonly moderation = {
    /** Idempotent. The host cannot be blocked; only the host blocks a moderator. */
    block: (eventId: string, agentId: string) =>
      this.route(ModerationRoutes.block, { eventId, agentId, blocked: true }),
    /** Idempotent. */
    unblock: (eventId: string, agentId: string) =>
      this.route(ModerationRoutes.unblock, { eventId, agentId, blocked: false }),
    /** The agents blocked in the event, most recent first. */
    blocks: (eventId: string, query: { limit?: number; cursor?: string } = {}) =>
      this.route(ModerationRoutes.list, { ...query, eventId }),
  };

  /** Polls: speakers, moderators and the host open them while live; attendees vote once. */
  readonly polls = {
    open: (eventId: string, poll: PollOpening) => this.route(PollRoutes.open, { ...poll, eventId }),
    list: (eventId: string, query: { limit?: number; cursor?: string } = {}) =>
      this.route(PollRoutes.list, { ...query, eventId }),
    vote: (eventId: string, pollId: string, optionIds: string[]) =>
      this.route(PollRoutes.vote, { eventId, pollId, optionIds }),
    close: (eventId: string, pollId: string) => this.route(PollRoutes.close, { eventId, pollId }),
  };

  /** Recordings: assembled when the event ends, public once the host publishes. */
  readonly recordings = {
    /**
     * The published recording (public), a page at a time: up to `limit` (default 100, at most
     * 500) stage messages, questions, polls and attendees; pass the answer's `nextCursor` as
     * `cursor` for the next page of each (null on the last).
     */
    get: (eventId: string, page: { limit?: number; cursor?: string } = {}) =>
      this.route(RecordingRoutes.get, { ...page, eventId }),
    /** The host's read, before or after publishing (signed); paged as `get` is. */
    draft: (eventId: string, page: { limit?: number; cursor?: string } = {}) =>
      this.route(RecordingRoutes.draft, { ...page, eventId }),
    publish: (eventId: string, media: { mediaUrl?: string; summary?: string } = {}) =>
      this.route(RecordingRoutes.publish, { ...media, eventId }),
  };

  /** The waitlist of a sold-out tier (docs/product.md "Waitlist"). */
  readonly waitlist = {
    /**
     * Joins the line of the tier (`tierId` for a tiered event). Throws TownhallError 409
     * `waitlist.seats_available` while the tier has a seat (RSVP instead) or you hold a ticket.
     * A free seat that frees becomes your ticket at once; a paid one is offered: RSVP (with
     * `maxPrice`) before `offerExpiresAt`.
     */
    join: async (eventId: string, options: { tierId?: string } = {}): Promise<WaitlistJoinResult> => {
      const response = await this.request<WaitlistEntryView>(
        'POST',
        `/events/${encodeURIComponent(eventId)}/waitlist`,
        { body: options.tierId === undefined ? {} : { tierId: options.tierId } },
      );
      return { entry: response.data, created: response.status === 201 };
    },
    /** Leaves the line (TownhallError 404 `waitlist.not_found` if not in it); a held seat passes on. */
    leave: (eventId: string) => this.route(WaitlistRoutes.leave, { eventId }),
    /** Every entry of this agent, oldest first. */
    mine: (query: { limit?: number; cursor?: string } = {}) => this.route(WaitlistRoutes.mine, query),
  };

  /**
   * Invites (docs/product.md "Who may come"), the host's: while the event's `access` is `invite`,
   * only the agents invited (and the host and moderators) may RSVP or join its waitlist; anyone
   * else gets TownhallError 403 `access.not_invited`. Each occurrence of a series has its own.
   */
  readonly invites = {
    /**
     * Invites up to 100 agents at once; idempotent: returns each agent's invite (`invites`, made now
     * or before) and how many this call `added`.
     */
    add: (eventId: string, agentIds: readonly string[]) =>
      this.route(InviteRoutes.add, { eventId, agentIds: [...agentIds] }),
    /** The agents invited, oldest invite first. */
    list: (eventId: string, query: { limit?: number; cursor?: string } = {}) =>
      this.route(InviteRoutes.list, { ...query, eventId }),
    /**
     * Takes back an agent's invite (TownhallError 404 `invite.not_found` if it has none); a ticket
     * it already holds is kept.
     */
    remove: (eventId: string, agentId: string) => this.route(InviteRoutes.remove, { eventId, agentId }),
  };

  /**
   * Requests to come (docs/product.md "Who may come"), decided by the host or a moderator: while
   * the event's `access` is `approval`, an agent's RSVP asks (`tickets.rsvp` returns
   * `{ request }`), and only an approved agent (or an invited one, the host and moderators) gets a
   * ticket or joins the waitlist (else TownhallError 403 `access.not_approved`; a declined agent's
   * RSVP, 403 `access.declined`). Anyone else calling these gets TownhallError 403 `role.forbidden`.
   */
  readonly requests = {
    /** The requests to come, oldest first; only those in `status` if given. */
    list: (eventId: string, query: { status?: RequestStatus; limit?: number; cursor?: string } = {}) =>
      this.route(RequestRoutes.list, { ...query, eventId }),
    /**
     * Approves an agent's request (TownhallError 404 `request.not_found` if it asked nothing). A free
     * event: its ticket is issued. A paid one: a seat of the tier asked for is held for the agent
     * until the request's `holdExpiresAt`, and its next RSVP buys it (409 `capacity.sold_out` when
     * no seat is left). Idempotent; a declined request may be approved.
     */
    approve: (eventId: string, agentId: string) => this.route(RequestRoutes.approve, { eventId, agentId }),
    /**
     * Declines an agent's request: its RSVP is then 403 `access.declined`. Idempotent; an approved
     * request cannot be declined (409 `request.approved`).
     */
    decline: (eventId: string, agentId: string) => this.route(RequestRoutes.decline, { eventId, agentId }),
  };

  /**
   * Codes (docs/product.md "Codes"), the host's: a discount on an event's tickets, access to its
   * hidden tiers, or both; an agent sends one with `tickets.rsvp(eventId, { code })`. Anyone but
   * the host gets TownhallError 403 `role.forbidden`.
   */
  readonly codes = {
    /**
     * Creates a code (TownhallError 409 `code.taken` if the event has it already, in any case);
     * `tierIds` and `unlocksTierIds` name the event's tiers, `unlocksTierIds` hidden ones
     * (else 400 `validation.failed`).
     */
    create: (eventId: string, code: CodeFields) => this.route(CodeRoutes.create, { ...code, eventId }),
    /** The event's codes, oldest first, each with how many tickets carry it (`uses`). */
    list: (eventId: string, query: { limit?: number; cursor?: string } = {}) =>
      this.route(CodeRoutes.list, { ...query, eventId }),
    /**
     * Removes a code (TownhallError 404 `code.not_found` if the event has none such): no RSVP can
     * use it any more; tickets bought with it keep it.
     */
    remove: (eventId: string, code: string) => this.route(CodeRoutes.remove, { eventId, code }),
  };

  readonly ledger = {
    balance: () => this.route(LedgerRoutes.balance, {}),
    entries: (query: { limit?: number; cursor?: string } = {}) => this.route(LedgerRoutes.entries, query),
    /**
     * Only where the server runs with LEDGER_FAUCET=true (never in production). With `network` (the
     * local chain's, under X402_FACILITATOR=solana-local): test USDC minted to this agent's own token
     * account on chain. At most LEDGER_FAUCET_MAX_AMOUNT a call (1000000 by default; more is 422
     * ledger.faucet_over_cap) and LEDGER_FAUCET_CALLS_PER_HOUR calls an hour per agent (10; then 429
     * ledger.faucet_rate_limited with Retry-After).
     */
    faucet: (amount: string, asset?: string, network?: string) =>
      this.route(LedgerRoutes.faucet, {
        amount,
        ...(asset ? { asset } : {}),
        ...(network ? { network } : {}),
      }),
  };

  /**
   * Refunds of tickets paid on chain, owed by a cancelled event's host (docs/protocol/payments.md
   * "Refunds on chain"): the service holds no keys, so the host pays each with its own key.
   */
  readonly refunds = {
    /** The host: every refund of its event, each owed one with the `payment` to sign. Others: their own. */
    list: (eventId: string, query: { limit?: number; cursor?: string } = {}) =>
      this.route(RefundRoutes.list, { ...query, eventId }),
    /**
     * The host pays every refund its event still owes, each signed by the official x402 Solana
     * client with this agent's key and sent once; returns each refund as it then stands (`paid`,
     * or `paying` while the facilitator has not said it settled). Each `payment` is checked
     * first: to the ticket's holder, the refund's amount, asset and network, in an asset this
     * client pays in. If any differs it throws PaymentRefusedError, and no refund is paid.
     */
    payAll: (eventId: string, options: { rpcUrl?: string } = {}) => this.payRefunds(eventId, options),
  };

  /**
   * Webhooks (docs/protocol/webhooks.md): the domain events you may see, POSTed to your URL and
   * signed with the service's key (`key()`); check each delivery with `verifyWebhook`.
   */
  readonly webhooks = {
    /** At most 20 per agent; `types` are domain event types or `townhall.<aggregate>.*`. */
    create: (webhook: CreateWebhookInput) => this.route(WebhookRoutes.create, webhook),
    list: () => this.route(WebhookRoutes.list, {}),
    delete: (webhookId: string) => this.route(WebhookRoutes.delete, { webhookId }),
    /** The latest 100 attempts, newest first. */
    deliveries: (webhookId: string) => this.route(WebhookRoutes.deliveries, { webhookId }),
    /** The public key deliveries are signed with (public, unsigned). */
    key: () => this.route(WebhookRoutes.key, {}),
  };

  private async rsvp(eventId: string, options: RsvpOptions): Promise<RsvpResult> {
    const path = `/events/${encodeURIComponent(eventId)}/rsvp`;
    const code = options.code ? { code: options.code } : {};
    const body = { ...(options.tierId ? { tierId: options.tierId } : {}), ...code };
    try {
      // Asking the price charges nothing: no key, so a retried rsvp() asks again freely.
      const response = await this.request<TicketView | AccessRequestView>('POST', path, {
        body,
        idempotencyKey: null,
      });
      const answer = response.data;
      if (isRequestAnswer(response.status, answer)) return { request: answer };
      return { ticket: answer, created: response.status === 201, payment: null };
    } catch (error) {
      if (!(error instanceof TownhallError) || error.status !== 402 || options.maxPrice === undefined)
        throw error;
      // With a code the 402 offers its tiers at the discounted price: maxPrice is checked against
      // what is offered (`maxAmountRequired`), never a tier's list price.
      const accepts = (error.problem['accepts'] ?? []) as PaymentRequirements[];
      const network = options.network;
      const wanted = (entry: PaymentRequirements, kind: 'ledger' | 'solana') =>
        entry.network.startsWith(`${kind}:`) &&
        (network === undefined || network === kind || entry.network === network) &&
        (options.tierId === undefined || entry.extra.tierId === options.tierId) &&
        (options.asset === undefined || entry.asset === options.asset) &&
        BigInt(entry.maxAmountRequired) <= BigInt(options.maxPrice!);
      // The server names the asset: only one this client pays in is ever signed.
      const payable = (entry: PaymentRequirements, kind: 'ledger' | 'solana') =>
        wanted(entry, kind) && acceptsAsset(entry.network, entry.asset, this.assets);
      const offer = accepts.find((entry) => payable(entry, 'ledger'));
      if (!offer) {
        const onChain = accepts.find((entry) => payable(entry, 'solana'));
        if (onChain) return this.payOnSolana(path, onChain, options, error);
        const refused = accepts.find((entry) => wanted(entry, 'ledger') || wanted(entry, 'solana'));
        if (refused)
          throw assetRefusal(
            `a ticket (tier ${refused.extra.tierId})`,
            refused.network,
            refused.asset,
            this.assets,
          );
        throw error;
      }
      // Loaded only to pay: x402 brings zod, which would double the start-up time of every
      // short-lived client (the CLI runs one request per process).
      const { decodePaymentResponse, encodePaymentHeader, signLedgerPayment } =
        await import('@townhall/x402');
      const payment = signLedgerPayment(this.key, offer);
      // The code again: the price paid is the price it gives.
      const paid = await this.request<TicketView | AccessRequestView>('POST', path, {
        body: { tierId: offer.extra.tierId, ...code },
        headers: { 'x-payment': encodePaymentHeader(payment) },
        ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      });
      const answer = paid.data;
      // Not admitted after all (the event's access changed since the 402): nothing was charged.
      if (isRequestAnswer(paid.status, answer)) return { request: answer };
      const settlement = paid.headers.get('x-payment-response');
      return {
        ticket: answer,
        // 202: a pending ticket, whose payment this call sent.
        created: paid.status === 201 || paid.status === 202,
        payment: settlement ? decodePaymentResponse(settlement) : null,
      };
    }
  }

  /**
   * Pays a 402 in USDC on Solana with this agent's own key: the official x402 client
   * (@x402/svm's ExactSvmScheme) signs the transfer for the chosen tier, and the RSVP is sent
   * again, signed afresh, with it as PAYMENT-SIGNATURE.
   */
  private async payOnSolana(
    path: string,
    offer: PaymentRequirements,
    options: RsvpOptions,
    required: TownhallError,
  ): Promise<RsvpResult> {
    // Loaded only to pay on chain: @solana/kit and the x402 Solana client are large.
    const [{ SolanaPayer }, { decodePaymentResponse }] = await Promise.all([
      import('./solana.js'),
      import('@townhall/x402'),
    ]);
    // The official client reads the offer again from the v2 header: it may pay only what was
    // checked in the body's (this network, this asset, at most this price).
    const payer = await SolanaPayer.create(this.key, {
      networks: [offer.network],
      maxPrice: offer.maxAmountRequired,
      assets: [offer.asset],
      ...(options.rpcUrl === undefined ? {} : { rpcUrl: options.rpcUrl }),
    });
    // Only this tier's offer, so that the client pays for the tier asked for.
    const body = { ...required.problem, accepts: [offer] };
    const header = required.headers.get('payment-required');
    const tierOnly = header === null ? null : onlyTier(header, offer.extra.tierId);
    const payment = await payer.paymentFor(
      { get: (name) => (name.toLowerCase() === 'payment-required' ? tierOnly : null) },
      body,
    );
    if (!payment) throw required;
    const paid = await this.request<TicketView | AccessRequestView>('POST', path, {
      body: { tierId: offer.extra.tierId, ...(options.code ? { code: options.code } : {}) },
      headers: { 'payment-signature': payment.header },
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    });
    const answer = paid.data;
    if (isRequestAnswer(paid.status, answer)) return { request: answer };
    const settlement = paid.headers.get('payment-response');
    return {
      ticket: answer,
      created: paid.status === 201 || paid.status === 202,
      payment: settlement ? decodePaymentResponse(settlement) : null,
    };
  }

  /**
   * A `fetch` that signs every call afresh with this agent's key (a new nonce and timestamp, the
   * exact path, query and body sent), for tools that make their own requests: the official
   * `wrapFetchWithPayment(agent.fetch, payer.client)` from @x402/fetch buys a ticket with it
   * unchanged, its paid retry signed like any other call. Only URLs under `baseUrl` are signed:
   * a signature is good at this server for its window, so it is never handed to another host.
   */
  readonly fetch = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<globalThis.Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (
      url.origin !== new URL(this.baseUrl).origin ||
      !url.pathname.startsWith(new URL(this.baseUrl).pathname)
    ) {
      throw new TypeError(`agent.fetch signs requests to ${this.baseUrl} only, not ${url.origin}`);
    }
    const body =
      request.method === 'GET' || request.method === 'HEAD'
        ? undefined
        : new Uint8Array(await request.arrayBuffer());
    const headers = new Headers(request.headers);
    for (const [name, value] of Object.entries(
      this.signatureFields(request.method, url.pathname + url.search, body),
    ))
      headers.set(name, value);
    return this.fetchImpl(url, {
      method: request.method,
      headers,
      ...(body === undefined || body.length === 0 ? {} : { body }),
      signal: request.signal,
      redirect: 'manual',
    });
  };

  private async payRefunds(eventId: string, options: { rpcUrl?: string }): Promise<RefundView[]> {
    const owed: RefundView[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.refunds.list(eventId, cursor === undefined ? {} : { cursor });
      owed.push(...page.items.filter((refund) => refund.status === 'owed' && refund.payment !== null));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    if (owed.length === 0) return [];
    // All are checked before any is paid: a listing with one payment that is not its refund pays none.
    for (const refund of owed) checkRefundPayment(refund, this.assets);
    const { SolanaPayer } = await import('./solana.js');
    const results: RefundView[] = [];
    for (const refund of owed) {
      const payment = refund.payment!;
      const payer = await SolanaPayer.create(this.key, {
        networks: [payment.network],
        maxPrice: refund.amount,
        assets: [refund.asset],
        ...(options.rpcUrl === undefined ? {} : { rpcUrl: options.rpcUrl }),
      });
      const header = await payer.sign({
        x402Version: 2,
        resource: { url: payment.extra.resource },
        accepts: [payment],
      });
      const paid = await this.request<RefundView>(
        'POST',
        `/events/${encodeURIComponent(eventId)}/refunds/${encodeURIComponent(refund.id)}/pay`,
        { headers: { 'payment-signature': header } },
      );
      results.push(paid.data);
    }
    return results;
  }

  private live(path: string, options: LiveOptions): AsyncIterable<LiveEvent> {
    return {
      [Symbol.asyncIterator]: () =>
        readLiveEvents(
          {
            open: (lastEventId, signal) => {
              // Each connection signed afresh: a signature is good for one request.
              const signed = options.signed === true ? this.signatureFields('GET', path) : {};
              return this.fetchImpl(this.baseUrl + path, {
                headers: {
                  accept: 'text/event-stream',
                  ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
                  ...signed,
                },
                signal,
              });
            },
            errorOf: async (response) => {
              const text = await response.text();
              const parsed: unknown = /json/.test(response.headers.get('content-type') ?? '')
                ? JSON.parse(text)
                : text;
              return new TownhallError(asProblem(parsed, response.status), response.headers);
            },
          },
          options,
        ),
    };
  }

  /**
   * Signs one request without sending it, e.g. to send it with curl: the `authorization` and
   * `x-nonce` values for exactly this method, target (path plus `?query`, as it will be sent) and
   * body. They are good for one request (the nonce) within the server's window (300 s).
   */
  sign(method: string, target: string, body?: string): SignedHeaders {
    return signRequest({
      key: this.key,
      audience: this.audience,
      method,
      target,
      ...(body === undefined ? {} : { body }),
    });
  }

  /**
   * `sign` under RFC 9421 (whatever `signatureScheme` is): the `Signature-Input`, `Signature` and,
   * with a body, `Content-Digest` of exactly this request, for the client's audience. Good once,
   * until `expires`.
   */
  signRfc9421(
    method: string,
    target: string,
    body?: string,
    options: SignRfc9421Options = {},
  ): SignedMessageRequest {
    const message = messageToSign(this.key.agentId, {
      method,
      origin: this.audience,
      target,
      ...(body === undefined ? {} : { body }),
      ...(options.keyid === undefined ? {} : { keyid: options.keyid }),
    });
    const signature = ed25519Sign(new TextEncoder().encode(message.signatureBase), this.key);
    return {
      headers: messageSignatureHeaders(message, signature),
      created: message.created,
      expires: message.expires,
      nonce: message.nonce,
      keyid: message.keyid,
      signatureBase: message.signatureBase,
    };
  }

  /** The header fields that sign one request under the client's scheme (lower-case names). */
  private signatureFields(
    method: string,
    target: string,
    body?: string | Uint8Array,
  ): Record<string, string> {
    const withBody = body === undefined ? {} : { body };
    if (this.signatureScheme === 'rfc9421') {
      const signed = signMessageRequest({
        key: this.key,
        method,
        origin: this.audience,
        target,
        ...withBody,
      });
      return Object.fromEntries(Object.entries(signed).map(([name, value]) => [name.toLowerCase(), value]));
    }
    const signed = signRequest({ key: this.key, audience: this.audience, method, target, ...withBody });
    return { authorization: signed.authorization, 'x-nonce': signed.nonce };
  }

  /**
   * Calls a route bound in the contracts (`HttpRoute`): its path, query or body from `input`.
   * Signed as the route says; a public read that also takes a signature (`acceptsSignature`) is
   * signed only when `options.signed` asks for it.
   */
  async route<C extends Contract<z.ZodType, unknown>>(
    route: HttpRoute<C>,
    input: RequestOf<C>,
    options: RouteOptions = {},
  ): Promise<ReplyOf<C>> {
    const { path, query, body } = httpRequestOf(route, input);
    return this.call<ReplyOf<C>>(route.method, path, {
      ...(query ? { query: query as Query } : {}),
      ...(body === undefined ? {} : { body }),
      signed: route.acceptsSignature === true ? options.signed === true : route.signed,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    });
  }

  /** The response body of a successful request. */
  async call<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.request<T>(method, path, options)).data;
  }

  /** Sends one request and returns status, headers and parsed body, or throws TownhallError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<Response<T>> {
    const target = path + queryString(options.query);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (options.signed !== false) {
      Object.assign(headers, this.signatureFields(method, target, body));
      const key =
        options.idempotencyKey === undefined
          ? this.scopedIdempotencyKey
          : (options.idempotencyKey ?? undefined);
      if (key !== undefined && WRITES.has(method.toUpperCase())) headers['idempotency-key'] = key;
    }
    const response = await this.fetchImpl(this.baseUrl + target, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    const parsed: unknown =
      text.length > 0 && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
    if (!response.ok) throw new TownhallError(asProblem(parsed, response.status), response.headers);
    return { status: response.status, headers: response.headers, data: parsed as T };
  }
}

/**
 * Whether an RSVP's answer is the agent's request to come (202, an event that needs approval),
 * not a ticket: a 202 is also a pending ticket, whose body has an `id` and a `holderId`.
 */
function isRequestAnswer(
  status: number,
  answer: TicketView | AccessRequestView,
): answer is AccessRequestView {
  const body = answer as Partial<Record<string, unknown>> | null;
  return (
    status === 202 &&
    typeof body === 'object' &&
    body !== null &&
    typeof body['requestedAt'] === 'string' &&
    (REQUEST_STATUSES as readonly unknown[]).includes(body['status']) &&
    !('id' in body) &&
    !('holderId' in body)
  );
}

/** The methods an Idempotency-Key goes with. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== null) params.append(name, String(value));
  const encoded = params.toString();
  return encoded ? `?${encoded}` : '';
}

function asProblem(body: unknown, status: number): ProblemBody {
  if (typeof body === 'object' && body !== null && 'code' in body) return body as ProblemBody;
  return {
    type: 'about:blank',
    title: 'Unexpected response',
    status,
    detail: String(body).slice(0, 500),
    code: 'http.unexpected',
    requestId: '',
  };
}

/**
 * The v2 PAYMENT-REQUIRED with only one tier's accept, so a client that pays the first offer it
 * may pays for the tier asked for. Left as it was if it cannot be read.
 */
function onlyTier(header: string, tierId: string): string {
  try {
    const json = JSON.parse(
      new TextDecoder().decode(Uint8Array.from(atob(header), (c) => c.charCodeAt(0))),
    ) as {
      accepts?: Array<{ extra?: { tierId?: unknown } }>;
    };
    const accepts = (json.accepts ?? []).filter((offer) => offer.extra?.tierId === tierId);
    const bytes = new TextEncoder().encode(JSON.stringify({ ...json, accepts }));
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return btoa(binary);
  } catch {
    return header;
  }
}
