import { DomainError } from '@townhall/contracts';

/** The caps on a gateway process's open live streams; 0 turns a cap off. */
export interface LiveStreamCaps {
  /** LIVE_STREAMS_PER_CLIENT: per client address; over it, 429 `live.too_many_streams`. */
  perClient: number;
  /** LIVE_STREAMS_PER_EVENT: per event; over it, 503 `live.event_at_capacity`. */
  perEvent: number;
  /** LIVE_STREAMS_TOTAL: all events and clients together; over it, 503 `live.at_capacity`. */
  total: number;
}

/**
 * The live streams open on this gateway process, counted per client, per event and in all, each
 * capped. The route is public, so the client is its address key (rate-limit/client-address.ts:
 * an IPv4 address, or an IPv6 /64). The per-client cap is the client's own doing (429); the
 * event and process caps are the gateway's room (503: another replica, or this one later, may
 * have some). Counted in this process only: replicas and workers each allow the caps, which bound
 * what one process spends on sockets, buffers and fan-out.
 */
export class OpenLiveStreams {
  private readonly perClient = new Map<string, number>();
  private readonly perEvent = new Map<string, number>();
  private count = 0;

  constructor(readonly caps: LiveStreamCaps) {}

  /** Streams open on this process, all clients together. */
  get total(): number {
    return this.count;
  }

  /** Streams `client` holds open. */
  of(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /** Streams open on `eventId`. */
  onEvent(eventId: string): number {
    return this.perEvent.get(eventId) ?? 0;
  }

  /**
   * Takes one stream of `client` on `eventId`, or throws if a cap is reached: the client's first
   * (429 `live.too_many_streams`), then the process's (503 `live.at_capacity`), then the event's
   * (503 `live.event_at_capacity`). Returns the release: call it when the stream ends, however it
   * ends; it counts once however often it is called.
   */
  take(client: string, eventId: string): () => void {
    const { caps } = this;
    const held = this.of(client);
    if (caps.perClient > 0 && held >= caps.perClient)
      throw new DomainError(
        'live.too_many_streams',
        `This client address has ${held} live streams open, the most allowed; close one before opening another`,
      );
    if (caps.total > 0 && this.count >= caps.total)
      throw new DomainError(
        'live.at_capacity',
        `This gateway serves ${this.count} live streams, the most it may; retry shortly`,
      );
    const onEvent = this.onEvent(eventId);
    if (caps.perEvent > 0 && onEvent >= caps.perEvent)
      throw new DomainError(
        'live.event_at_capacity',
        `This gateway serves ${onEvent} live streams of this event, the most it may; retry shortly`,
      );
    this.perClient.set(client, held + 1);
    this.perEvent.set(eventId, onEvent + 1);
    this.count += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.count -= 1;
      decrement(this.perClient, client);
      decrement(this.perEvent, eventId);
    };
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
