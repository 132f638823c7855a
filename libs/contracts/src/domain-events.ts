/**
 * Domain events (docs/protocol/domain-events.md): every committed state change, as a CloudEvents
 * 1.0 JSON envelope on subject `townhall.<aggregate>.<verb>`, kept by the JetStream stream
 * TOWNHALL. The `type` is the subject. Consumers dedupe on `id`.
 */
export const TOWNHALL_STREAM = 'TOWNHALL';
export const TOWNHALL_SUBJECTS = 'townhall.>';

export interface CloudEvent<T = unknown> {
  specversion: '1.0';
  /** Unique per event; JetStream's Nats-Msg-Id and the consumers' dedupe key. */
  id: string;
  /** The service that owns the change, e.g. `townhall/events`. */
  source: string;
  /** Also the NATS subject, e.g. `townhall.event.started`. */
  type: string;
  /** RFC 3339 UTC time of the change. */
  time: string;
  /** The aggregate's id, e.g. the event id. */
  subject: string;
  datacontenttype: 'application/json';
  /**
   * A CloudEvents extension attribute: `staff` marks what only an event's host and moderators may
   * see (a report, a question held for review). Absent: public, on the event's live stream.
   */
  visibility?: DomainEventVisibility;
  data: T;
}

export type DomainEventVisibility = 'staff';
