import { DomainError } from '@townhall/contracts';
import type { LiveMessage } from './live-message.js';

/** A live-stream client as the hub sees it. */
export interface LiveListener {
  /** Called synchronously, in stream order; must not block (the listener buffers). */
  deliver(message: LiveMessage): void;
  /** Ends the client's stream politely (the gateway is closing). */
  disconnect(): void;
  /** The agent of a signed stream; undefined for an anonymous one (attendance: PresenceReporter). */
  readonly agentId?: string | undefined;
}

/** Who is on one event's streams in this process now (docs/product.md "The report"). */
export interface EventPresence {
  /** The agents of the open signed streams, each once. */
  agentIds: string[];
  /** Every open stream, signed or not (the watch page opens one too). */
  viewers: number;
}

export interface LiveSubscription {
  /** The hub's stream position when the listener joined: every later message reaches it. */
  position: number;
  unsubscribe(): void;
}

/**
 * The process's fan-out of domain events to live-stream clients, keyed by event id. One
 * JetStream consumer feeds it (LiveFeed), whatever the number of clients; each replica of the
 * gateway has its own hub, so replicas need no coordination.
 */
export class LiveHub {
  private readonly listeners = new Map<string, Set<LiveListener>>();
  /** Told of every message, whatever event it is about (the read cache). */
  private readonly observers: Array<(message: LiveMessage) => void> = [];
  /** Told of the subject of each domain event of a topic the live stream leaves out (a card's change). */
  private readonly topicObservers: Array<{ prefix: string; observer: (subject: string) => void }> = [];
  /** Told of the event whenever one of its streams opens or closes (attendance). */
  private readonly streamObservers: Array<(eventId: string) => void> = [];
  private seq: number | undefined;
  private closing = false;

  /** The stream sequence of the last message the hub has seen; undefined until the feed started. */
  get position(): number | undefined {
    return this.seq;
  }

  get subscriberCount(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }

  /** Where the feed starts: the stream's last sequence, so that "from now on" has no gap. */
  startAt(seq: number): void {
    if (this.seq === undefined) this.seq = seq;
  }

  /**
   * One message of the stream, in order. `decode` runs only when someone listens, so a hub
   * without clients costs no JSON parsing.
   */
  receive(seq: number, decode: () => LiveMessage | undefined): void {
    if (this.seq !== undefined && seq <= this.seq) return;
    this.seq = seq;
    if (this.listeners.size === 0 && this.observers.length === 0) return;
    const message = decode();
    if (!message) return;
    for (const observer of this.observers) observer(message);
    const listeners = this.listeners.get(message.eventId);
    if (!listeners) return;
    for (const listener of listeners) listener.deliver(message);
  }

  /**
   * Every message of the stream, as the feed reads it, before `receive`: the domain events of an
   * observed topic (`observeTopic`) are parsed and their subject handed to its observers; the
   * rest cost a prefix test.
   */
  see(natsSubject: string, payload: () => string): void {
    for (const { prefix, observer } of this.topicObservers) {
      if (!natsSubject.startsWith(prefix)) continue;
      const subject = subjectOf(payload());
      if (subject !== undefined) observer(subject);
    }
  }

  /** Calls `observer` with the CloudEvent subject of every domain event whose type starts with `prefix`. */
  observeTopic(prefix: string, observer: (subject: string) => void): void {
    this.topicObservers.push({ prefix, observer });
  }

  /** Calls `observer` with every message from now on, in stream order (synchronously, so it must be quick). */
  observe(observer: (message: LiveMessage) => void): void {
    this.observers.push(observer);
  }

  /**
   * Calls `observer` with the event id, synchronously, whenever a stream of that event opens or
   * closes (so it must be quick: PresenceReporter only notes it).
   */
  observeStreams(observer: (eventId: string) => void): void {
    this.streamObservers.push(observer);
  }

  /** The events with a stream open now. */
  get eventIds(): string[] {
    return [...this.listeners.keys()];
  }

  /** Who is on `eventId`'s streams now: nobody (and no stream) for an event without one. */
  presence(eventId: string): EventPresence {
    const listeners = this.listeners.get(eventId);
    if (!listeners) return { agentIds: [], viewers: 0 };
    const agentIds = new Set<string>();
    for (const listener of listeners) if (listener.agentId !== undefined) agentIds.add(listener.agentId);
    return { agentIds: [...agentIds], viewers: listeners.size };
  }

  /** Adds a listener for one event; it receives every message after `position`. */
  subscribe(eventId: string, listener: LiveListener): LiveSubscription {
    if (this.closing) throw new DomainError('service.unavailable', 'The gateway is shutting down');
    if (this.seq === undefined)
      throw new DomainError('dependency.unavailable', 'The live stream is not connected to JetStream yet');
    let set = this.listeners.get(eventId);
    if (!set) {
      set = new Set();
      this.listeners.set(eventId, set);
    }
    set.add(listener);
    this.streamsChanged(eventId);
    return {
      position: this.seq,
      unsubscribe: () => {
        const current = this.listeners.get(eventId);
        if (!current?.delete(listener)) return;
        if (current.size === 0) this.listeners.delete(eventId);
        this.streamsChanged(eventId);
      },
    };
  }

  private streamsChanged(eventId: string): void {
    for (const observer of this.streamObservers) observer(eventId);
  }

  /** Ends every client's stream and refuses new ones: the gateway is closing. */
  disconnectAll(): void {
    this.closing = true;
    for (const set of [...this.listeners.values()]) for (const listener of [...set]) listener.disconnect();
  }
}

/** A CloudEvent's `subject`, or undefined for a payload that is not one. */
function subjectOf(payload: string): string | undefined {
  try {
    const subject = (JSON.parse(payload) as { subject?: unknown } | null)?.subject;
    return typeof subject === 'string' ? subject : undefined;
  } catch {
    return undefined;
  }
}
