import { sseMessage } from './sse-frame.js';

/** One domain event as the live stream sends it, framed once and shared by every subscriber. */
export interface LiveMessage {
  /** The JetStream stream sequence: the SSE `id`, monotonic, what Last-Event-ID resumes from. */
  seq: number;
  /** The CloudEvent `type` (also its NATS subject), the SSE `event`. */
  type: string;
  /** The CloudEvent `subject`: the id of the event this is about. */
  eventId: string;
  /** The complete SSE message. */
  frame: string;
  /** For `townhall.stage.posted` and `townhall.stage.hidden`: the stage message's id. */
  stageMessageId?: string;
  /**
   * For a record about one agent (a ticket, a refund, a waitlist entry, an invite, a request to
   * come): the whole CloudEvent, for that agent's signed stream and the event's staff; `frame` then
   * carries its counts only.
   */
  record?: LiveRecord;
  /** For `townhall.event.*`: the event's host and moderators as the message says they are now. */
  staff?: readonly string[];
}

/**
 * A domain event about one agent's ticket, refund, waitlist entry, invite or request to come, as
 * that agent sees it.
 */
export interface LiveRecord {
  /**
   * The agent concerned: the ticket's or refund's `holderId`, the entry's, invite's or request's
   * `agentId`; null if unnamed.
   */
  agentId: string | null;
  /** The complete SSE message, the record as published. */
  frame: string;
}

/**
 * What the record changes in its tier's numbers (an invite, in its event's): each a signed change
 * (`-1` is one fewer).
 */
export interface LiveCountChanges {
  /** Tickets held (`townhall.ticket.*`). */
  tickets?: number;
  /** Agents waiting in line (`townhall.waitlist.*`). */
  waiting?: number;
  /** Seats held for the first agent in line until its offer runs out (`townhall.waitlist.*`). */
  offered?: number;
  /** Refunds the host still owes (`townhall.refund.*`). */
  refundsOwed?: number;
  /** Refunds paid (`townhall.refund.paid`). */
  refundsPaid?: number;
  /** Agents invited (`townhall.invite.*`). */
  invited?: number;
  /**
   * Agents who asked to come (`townhall.request.requested`): it only grows, since a request stays,
   * answered or not.
   */
  requested?: number;
}

/**
 * The `data` of a ticket, refund, waitlist, invite or request message on the public stream: what
 * changed in which tier, and nothing of who, at what price, with which transaction, at which place
 * in line, invited by whom or decided by whom. `tierId` is null for a refund (a refund names its
 * ticket, not the ticket's tier), for an invite (an invite is to the event, not to a tier) and for
 * a request that names no tier (the event has one).
 */
export interface LiveCounts {
  eventId: string;
  tierId: string | null;
  counts: LiveCountChanges;
}

const STAGE_POSTED = 'townhall.stage.posted';
const STAGE_HIDDEN = 'townhall.stage.hidden';

/** Whether the message says a moderator hid a stage message. */
export function isStageHidden(message: LiveMessage): boolean {
  return message.type === STAGE_HIDDEN;
}

/**
 * A replayed `townhall.stage.posted` whose message a moderator has since hidden, as the public
 * may now see it: the same CloudEvent with `hidden: true` and no body.
 */
export function redactedStageFrame(message: LiveMessage): string {
  if (message.type !== STAGE_POSTED) return message.frame;
  const payload = message.frame
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length))
    .join('\n');
  const event = JSON.parse(payload) as { data: Record<string, unknown> };
  event.data = { ...event.data, body: null, hidden: true };
  return sseMessage({ id: String(message.seq), event: message.type, data: JSON.stringify(event) });
}

// Ledger entries are per agent and private; series and card changes are not about an event.
const PRIVATE_OR_OFF_TOPIC = /^townhall\.(ledger|series|card)\./;
// One agent's ticket, refund, waitlist entry, invite or request to come: public as counts, whole for
// that agent and the staff.
const AGENT_RECORD = /^townhall\.(ticket|refund|waitlist|invite|request)\./;
const EVENT_LIFECYCLE = /^townhall\.event\./;

/**
 * Whether a domain event of this type is about one agent's ticket, refund, waitlist entry, invite
 * or request to come.
 */
export function isAgentRecord(type: string): boolean {
  return AGENT_RECORD.test(type);
}

/** Whether a domain event of this type may appear on an event's public live stream. */
export function isLiveTopic(type: string): boolean {
  return !PRIVATE_OR_OFF_TOPIC.test(type);
}

/**
 * The live-stream message for one message of the TOWNHALL stream, or undefined for a domain
 * event that does not belong on a live stream (a private or off-topic type, one with any
 * `visibility` (e.g. `staff`), or a payload that is not a CloudEvent with a string `type` and
 * `subject`).
 */
export function decodeLiveMessage(
  seq: number,
  natsSubject: string,
  payload: string,
): LiveMessage | undefined {
  if (!isLiveTopic(natsSubject)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, subject, visibility } = value as { type?: unknown; subject?: unknown; visibility?: unknown };
  if (typeof type !== 'string' || typeof subject !== 'string' || !isLiveTopic(type)) return undefined;
  // Only what the public may see: a report or a question held for review is for moderators.
  if (visibility !== undefined) return undefined;
  if (/[\r\n]/.test(type)) return undefined;
  const whole = sseMessage({ id: String(seq), event: type, data: withoutTraceContext(value, payload) });
  const data = (value as { data?: unknown }).data;
  const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  if (isAgentRecord(type)) {
    const counted = { ...withoutTraceFields(value), data: countsOf(type, subject, fields) };
    return {
      seq,
      type,
      eventId: subject,
      frame: sseMessage({ id: String(seq), event: type, data: JSON.stringify(counted) }),
      record: { agentId: agentOf(type, fields), frame: whole },
    };
  }
  const stageMessageId = type === STAGE_POSTED || type === STAGE_HIDDEN ? fields['id'] : undefined;
  const staff = EVENT_LIFECYCLE.test(type) ? staffOf(fields) : undefined;
  return {
    seq,
    type,
    eventId: subject,
    frame: whole,
    ...(typeof stageMessageId === 'string' ? { stageMessageId } : {}),
    ...(staff ? { staff } : {}),
  };
}

/** The agent a ticket, refund, waitlist, invite or request record is about, or null if it names none. */
function agentOf(type: string, data: Record<string, unknown>): string | null {
  const byHolderId = type.startsWith('townhall.ticket.') || type.startsWith('townhall.refund.');
  const agent = byHolderId ? data['holderId'] : data['agentId'];
  return typeof agent === 'string' && agent.length > 0 ? agent : null;
}

/**
 * What one record changes in its tier (an invite, in its event). A waitlist entry after the change
 * says where it came from: `offerExpiresAt` is set once an offer was made, so an entry that is
 * accepted, expired or left with it was holding an offered seat, and without it was waiting in line.
 * A request counts once, when it is made (`requested`). Its approval on a paid event holds a seat
 * (`holdExpiresAt`): an offer made outside the line, announced by the approval alone, which the
 * hold's entry then ends as any offer (`accepted` or `expired`). An approval on a free event counts
 * nothing more than its ticket's own message; whom the staff turn away is between them and that
 * agent; and an approval may follow a decline, which the request as published does not say.
 */
function countsOf(type: string, eventId: string, data: Record<string, unknown>): LiveCounts {
  const tierId = typeof data['tierId'] === 'string' ? data['tierId'] : null;
  const fromOffer = data['offerExpiresAt'] !== null && data['offerExpiresAt'] !== undefined;
  const left: LiveCountChanges = fromOffer ? { offered: -1 } : { waiting: -1 };
  const changes: Record<string, LiveCountChanges> = {
    'townhall.ticket.issued': { tickets: 1 },
    'townhall.ticket.cancelled': { tickets: -1 },
    'townhall.waitlist.joined': { waiting: 1 },
    'townhall.waitlist.offered': { waiting: -1, offered: 1 },
    'townhall.waitlist.accepted': left,
    'townhall.waitlist.expired': left,
    'townhall.waitlist.left': left,
    'townhall.refund.owed': { refundsOwed: 1 },
    'townhall.refund.paid': { refundsOwed: -1, refundsPaid: 1 },
    'townhall.invite.added': { invited: 1 },
    'townhall.invite.removed': { invited: -1 },
    'townhall.request.requested': { requested: 1 },
    'townhall.request.approved': typeof data['holdExpiresAt'] === 'string' ? { offered: 1 } : {},
  };
  const tierless = type.startsWith('townhall.refund.') || type.startsWith('townhall.invite.');
  return {
    eventId,
    tierId: tierless ? null : tierId,
    counts: changes[type] ?? {},
  };
}

/** The host and moderators an event message names, or undefined if it names no host. */
function staffOf(data: Record<string, unknown>): readonly string[] | undefined {
  const { hostId, moderators } = data;
  if (typeof hostId !== 'string') return undefined;
  const others = Array.isArray(moderators)
    ? moderators.filter((m): m is string => typeof m === 'string')
    : [];
  return [hostId, ...others];
}

/**
 * The payload without the write's trace context (`traceparent`, `tracestate`: present while the
 * deployment traces), which is for its operators and their tracing backend, not for the public.
 * Untraced events are sent as published, not serialised again.
 */
function withoutTraceContext(event: object, payload: string): string {
  if (!('traceparent' in event) && !('tracestate' in event)) return payload;
  return JSON.stringify(withoutTraceFields(event));
}

function withoutTraceFields(event: object): Record<string, unknown> {
  const { traceparent: _traceparent, tracestate: _tracestate, ...rest } = event as Record<string, unknown>;
  return rest;
}

/** The SSE event type that tells a resuming client its history was cut (not a CloudEvent type). */
export const HISTORY_CUT_EVENT = 'history.cut';

/**
 * Why a resume was cut: `too_far_behind`, more messages to read than one resume may
 * (LIVE_REPLAY_LIMIT); `history_gone`, the stream no longer holds what came after the client's
 * id (aged out, standalone's log before a restart, a stream that was reset).
 */
export type HistoryCutReason = 'too_far_behind' | 'history_gone';

/** What a `history.cut` message says: strings for ids, like the SSE `id:` fields. */
export interface HistoryCut {
  /** The Last-Event-ID the client resumed from. */
  lastEventId: string;
  /** Replay goes on after this id (also the message's own `id:`, so a reconnect is not cut again). */
  resumedAfter: string;
  /**
   * Stream messages between the two that were not read: of every event, so at most this many
   * about this one. null when the history is gone: nobody knows how many there were.
   */
  skipped: number | null;
  reason: HistoryCutReason;
}

/**
 * The message that replaces the part of a resume beyond the replay limit, or history that is
 * gone: the client may have missed messages there and should read the current state again (GET the event, its questions,
 * its polls). Its id is where replay resumes, so EventSource and the SDK move their
 * Last-Event-ID past the cut.
 */
export function historyCutFrame(lastEventId: number, resumedAfter: number, reason: HistoryCutReason): string {
  const cut: HistoryCut = {
    lastEventId: String(lastEventId),
    resumedAfter: String(resumedAfter),
    skipped: reason === 'too_far_behind' ? resumedAfter - lastEventId : null,
    reason,
  };
  return sseMessage({ id: String(resumedAfter), event: HISTORY_CUT_EVENT, data: JSON.stringify(cut) });
}
