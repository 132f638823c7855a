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
  const frame = sseMessage({ id: String(seq), event: type, data: withoutTraceContext(value, payload) });
  const stageMessageId =
    type === STAGE_POSTED || type === STAGE_HIDDEN
      ? (value as { data?: { id?: unknown } }).data?.id
      : undefined;
  return {
    seq,
    type,
    eventId: subject,
    frame,
    ...(typeof stageMessageId === 'string' ? { stageMessageId } : {}),
  };
}

/**
 * The payload without the write's trace context (`traceparent`, `tracestate`: present while the
 * deployment traces), which is for its operators and their tracing backend, not for the public.
 * Untraced events are sent as published, not serialised again.
 */
function withoutTraceContext(event: object, payload: string): string {
  if (!('traceparent' in event) && !('tracestate' in event)) return payload;
  const { traceparent: _traceparent, tracestate: _tracestate, ...rest } = event as Record<string, unknown>;
  return JSON.stringify(rest);
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
