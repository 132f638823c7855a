import { z } from 'zod';
import { InstantReply, reply } from './replies.js';

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
  /**
   * CloudEvents Distributed Tracing extension: the W3C Trace Context of the write that made the
   * event, present while the deployment traces (OpenTelemetry); consumers continue that trace.
   */
  traceparent?: string;
  tracestate?: string;
  data: T;
}

export type DomainEventVisibility = 'staff';

/**
 * The envelope as a schema: the live stream's messages in the OpenAPI document, every domain
 * event in the AsyncAPI document (where each type narrows `type`, `source` and `data`; see
 * domain-event-catalog.ts). edge-schemas.ts checks it is the same type as CloudEvent.
 */
export const CloudEventSchema = reply(
  z.object({
    specversion: z.literal('1.0'),
    id: z.string().describe('Unique per domain event: the JetStream Nats-Msg-Id and the dedupe key'),
    source: z.string().describe('The owning service, e.g. `townhall/events`'),
    type: z.string().describe('Also the NATS subject, e.g. `townhall.stage.posted`'),
    time: InstantReply,
    subject: z.string().describe("The aggregate's id: the event id on an event's live stream"),
    datacontenttype: z.literal('application/json'),
    visibility: z
      .literal('staff')
      .optional()
      .describe(
        'On NATS only: `staff` marks what only moderators and the host may see; never on the live stream',
      ),
    traceparent: z
      .string()
      .optional()
      .describe(
        'Distributed Tracing extension: the W3C traceparent of the write that made it, while the deployment traces',
      ),
    tracestate: z.string().optional().describe('Distributed Tracing extension: the W3C tracestate, if any'),
    data: z.unknown().describe('The resource after the change, e.g. the Event or the StageMessage'),
  }),
  'CloudEvent',
  'A domain event: CloudEvents 1.0 JSON (docs/protocol/domain-events.md); also the `data:` of each live-stream message',
);
