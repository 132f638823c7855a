import { randomUUID } from 'node:crypto';
import { Reports, type Presence } from '@townhall/contracts';
import type { Logger, ServiceClient } from '@townhall/platform';
import type { LiveHub } from './live-hub.js';

export interface PresenceReporterOptions {
  hub: LiveHub;
  services: ServiceClient;
  /** PRESENCE_INTERVAL_MS: how often every event with open streams is reported. */
  intervalMs: number;
  logger: Logger;
  /** This process among the gateways; a random UUID unless a test names it. */
  gatewayId?: string;
}

type EventSnapshot = Presence['events'][number];

/**
 * The most events, and agent ids, one message carries: a snapshot larger than that goes in several
 * (an event's agents always in one, which replaces its last list). 10,000 agent ids are under half
 * a megabyte, within NATS's default max_payload of 1 MB.
 */
const EVENTS_PER_MESSAGE = 1_000;
const AGENTS_PER_MESSAGE = 10_000;

/**
 * Tells engagement who is on this gateway's live streams (Reports.presence; docs/product.md "The
 * report": a ticket holder is present while the event is live and a signed live stream of theirs
 * is open; anonymous viewers are counted, not named). Each snapshot names, per event, the agents of
 * its open signed streams and the number of its open streams, signed or anonymous (the hub knows
 * them). Sent:
 * - every `intervalMs`, for every event with a stream open (ticks in the middle of each interval
 *   since the epoch, as engagement buckets its samples, so that each bucket gets one);
 * - promptly when a stream opens or closes, for the events whose streams changed, coalesced within
 *   a turn of the event loop (setImmediate), so joins and leaves are timed to well under a second;
 * - for an event whose last stream closed, once empty, so engagement ends its sessions (again with
 *   every snapshot until one reaches engagement);
 * - at shutdown (`stop`, after the streams were ended), once more with every event empty.
 * One snapshot is in flight at a time, so engagement applies them in order; what changes meanwhile
 * goes in the next. A snapshot that fails is logged (warn) and its events go in the next one: it
 * never throws and never holds up a stream. `gatewayId` is random per process: engagement keeps
 * sessions per gateway, and ends those of a gateway silent for three intervals (one that died).
 */
export class PresenceReporter {
  readonly gatewayId: string;
  /** Events whose streams opened or closed since the last snapshot was taken. */
  private readonly changed = new Set<string>();
  /** Events of snapshots that failed: in the next one. */
  private readonly unsent = new Set<string>();
  /** Events engagement may believe have streams open here: reported with viewers, not yet empty. */
  private readonly reported = new Set<string>();
  /** The tick's snapshot (every event) is due. */
  private tickDue = false;
  private scheduled = false;
  private sending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private failures = 0;
  private lastWarnedAt = -Infinity;

  constructor(private readonly options: PresenceReporterOptions) {
    this.gatewayId = options.gatewayId ?? randomUUID();
    options.hub.observeStreams((eventId) => {
      if (this.stopping) return;
      this.changed.add(eventId);
      this.schedule();
    });
  }

  /** Starts the ticks; streams opening and closing are reported from construction. */
  start(): void {
    if (!this.stopping && !this.timer) this.arm();
  }

  /**
   * Stops reporting: waits for the snapshot in flight, then tells engagement that every event this
   * gateway has reported, or has a stream of, is empty (the gateway is closing; its streams were
   * ended first). Never throws.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.timer);
      await this.sending;
      const eventIds = new Set([
        ...this.options.hub.eventIds,
        ...this.reported,
        ...this.changed,
        ...this.unsent,
      ]);
      await this.send([...eventIds].map((eventId) => ({ eventId, agentIds: [], viewers: 0 })));
    })();
    return this.stopping;
  }

  private arm(): void {
    if (this.stopping) return;
    const { intervalMs } = this.options;
    // The middle of the next interval since the epoch.
    const delay = (intervalMs * 1.5 - (Date.now() % intervalMs)) % intervalMs || intervalMs;
    this.timer = setTimeout(() => {
      this.tickDue = true;
      this.flush();
      this.arm();
    }, delay);
    this.timer.unref();
  }

  /** A snapshot of the changes at the end of this turn of the event loop, or after the one in flight. */
  private schedule(): void {
    if (this.scheduled || this.sending) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.sending || this.stopping) return;
    this.sending = this.pump().finally(() => {
      this.sending = undefined;
      // What changed between the last snapshot and now.
      if (!this.stopping && (this.tickDue || this.changed.size > 0)) this.schedule();
    });
  }

  /** Snapshots, one at a time, while there is something to report. */
  private async pump(): Promise<void> {
    while (!this.stopping && (this.tickDue || this.changed.size > 0)) {
      const eventIds = new Set([...this.changed, ...this.unsent]);
      if (this.tickDue)
        for (const eventId of [...this.options.hub.eventIds, ...this.reported]) eventIds.add(eventId);
      this.tickDue = false;
      this.changed.clear();
      this.unsent.clear();
      await this.send([...eventIds].map((eventId) => ({ eventId, ...this.options.hub.presence(eventId) })));
    }
  }

  /** Sends `events` in as few messages as they fit; a message that fails is retried by the next snapshot. */
  private async send(events: EventSnapshot[]): Promise<void> {
    const { hub, services, intervalMs } = this.options;
    for (const event of events) if (event.viewers > 0) this.reported.add(event.eventId);
    for (const chunk of chunksOf(events)) {
      try {
        await services.send(
          Reports.presence,
          { gatewayId: this.gatewayId, intervalMs, events: chunk },
          { requestId: randomUUID(), caller: null },
        );
        this.failures = 0;
        // Reported empty, and still empty: engagement has ended its sessions here.
        for (const { eventId, viewers } of chunk)
          if (viewers === 0 && hub.presence(eventId).viewers === 0) this.reported.delete(eventId);
      } catch (error) {
        for (const { eventId } of chunk) this.unsent.add(eventId);
        this.failed(error, chunk.length);
      }
    }
  }

  /** A warning for the first failure, and one an interval at most while they go on (debug otherwise). */
  private failed(error: unknown, events: number): void {
    const { logger, intervalMs } = this.options;
    this.failures += 1;
    const now = Date.now();
    const line = { err: error, events, failures: this.failures, gatewayId: this.gatewayId };
    const message = 'presence snapshot not sent to engagement; the next snapshot retries it';
    if (this.failures === 1 || now - this.lastWarnedAt >= intervalMs) {
      this.lastWarnedAt = now;
      logger.warn(line, message);
    } else logger.debug(line, message);
  }
}

/** `events` in messages of at most EVENTS_PER_MESSAGE events and AGENTS_PER_MESSAGE agent ids (an event's all in one). */
function chunksOf(events: EventSnapshot[]): EventSnapshot[][] {
  const chunks: EventSnapshot[][] = [];
  let chunk: EventSnapshot[] = [];
  let agents = 0;
  for (const event of events) {
    if (
      chunk.length >= EVENTS_PER_MESSAGE ||
      (chunk.length > 0 && agents + event.agentIds.length > AGENTS_PER_MESSAGE)
    ) {
      chunks.push(chunk);
      chunk = [];
      agents = 0;
    }
    chunk.push(event);
    agents += event.agentIds.length;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}
