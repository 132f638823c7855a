import { jest } from '@jest/globals';
import { DomainError, Reports, type Contract, type MessageMeta, type Presence } from '@townhall/contracts';
import type { Logger, ServiceClient } from '@townhall/platform';
import type { z } from 'zod';
import { LiveHub, type LiveListener, type LiveSubscription } from './live-hub.js';
import { PresenceReporter } from './presence-reporter.js';

const INTERVAL = 1_000;
const ADA = 'ada';
const BOB = 'bob';

/** Engagement as the reporter sees it: every snapshot it was sent; it can fail, or hold its answer. */
class FakeEngagement implements ServiceClient {
  readonly snapshots: Presence[] = [];
  readonly metas: MessageMeta[] = [];
  failing = false;
  private held: { promise: Promise<void>; release: () => void } | undefined;

  async send<C extends Contract<z.ZodType, unknown>>(contract: C, data: unknown, meta: MessageMeta) {
    if (contract.pattern !== Reports.presence.pattern) throw new Error(`unexpected ${contract.pattern}`);
    const presence = structuredClone(data) as Presence;
    this.snapshots.push(presence);
    this.metas.push(meta);
    const held = this.held;
    if (held) await held.promise;
    if (this.failing) throw new DomainError('service.unavailable', 'engagement is away');
    return { events: presence.events.length } as never;
  }

  async close(): Promise<void> {}

  /** Answers nothing until `release()`. */
  hold(): () => void {
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.held = { promise, release };
    return () => {
      this.held = undefined;
      release();
    };
  }

  /** The snapshots sent since the last call, each event's agents sorted. */
  take(): Array<Presence['events']> {
    const taken = this.snapshots
      .splice(0)
      .map((snapshot) =>
        snapshot.events
          .map((event) => ({ ...event, agentIds: [...event.agentIds].sort() }))
          .sort((a, b) => a.eventId.localeCompare(b.eventId)),
      );
    return taken;
  }
}

const stream = (agentId?: string): LiveListener => ({
  deliver: () => undefined,
  disconnect: () => undefined,
  agentId,
});

describe('PresenceReporter', () => {
  let hub: LiveHub;
  let engagement: FakeEngagement;
  let logger: { warn: jest.Mock; debug: jest.Mock };
  let reporter: PresenceReporter;
  const open = (eventId: string, agentId?: string): LiveSubscription =>
    hub.subscribe(eventId, stream(agentId));
  /** Runs what is due now: the coalesced snapshot, and the answers to it. */
  const settle = () => jest.advanceTimersByTimeAsync(0);

  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    hub = new LiveHub();
    hub.startAt(0);
    engagement = new FakeEngagement();
    logger = { warn: jest.fn(), debug: jest.fn() };
    reporter = new PresenceReporter({
      hub,
      services: engagement,
      intervalMs: INTERVAL,
      logger: logger as unknown as Logger,
      gatewayId: 'gateway-1',
    });
    reporter.start();
  });
  afterEach(async () => {
    await reporter.stop();
    jest.useRealTimers();
  });

  it('reports every event with open streams each interval, in its middle: its agents once each, and every stream, signed or not', async () => {
    open('e1', ADA);
    open('e1', ADA); // a second stream of the same agent
    open('e1'); // the watch page
    open('e2', BOB);
    await settle();
    engagement.take();

    await jest.advanceTimersByTimeAsync(INTERVAL / 2 - 1);
    expect(engagement.take()).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(engagement.take()).toEqual([
      [
        { eventId: 'e1', agentIds: [ADA], viewers: 3 },
        { eventId: 'e2', agentIds: [BOB], viewers: 1 },
      ],
    ]);
    expect(engagement.snapshots).toEqual([]);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(engagement.take()).toHaveLength(1);
    expect(engagement.metas.at(-1)).toEqual({ requestId: expect.any(String), caller: null });
  });

  it('names the gateway and its interval in every snapshot, a random id per process unless given', async () => {
    open('e1', ADA);
    await settle();
    expect(engagement.snapshots).toEqual([
      {
        gatewayId: 'gateway-1',
        intervalMs: INTERVAL,
        events: [{ eventId: 'e1', agentIds: [ADA], viewers: 1 }],
      },
    ]);
    const options = {
      hub: new LiveHub(),
      services: engagement,
      intervalMs: INTERVAL,
      logger: logger as unknown as Logger,
    };
    const [a, b] = [new PresenceReporter(options), new PresenceReporter(options)];
    expect(a.gatewayId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.gatewayId).not.toBe(b.gatewayId);
  });

  it('reports a stream opening or closing at once, for the events that changed, coalesced within a turn', async () => {
    open('e1', ADA);
    const bob = open('e1', BOB);
    open('e1');
    open('e2', BOB);
    await settle();
    expect(engagement.take()).toEqual([
      [
        { eventId: 'e1', agentIds: [ADA, BOB], viewers: 3 },
        { eventId: 'e2', agentIds: [BOB], viewers: 1 },
      ],
    ]);

    bob.unsubscribe();
    await settle();
    expect(engagement.take()).toEqual([[{ eventId: 'e1', agentIds: [ADA], viewers: 2 }]]);
  });

  it('reports an event once empty after its last stream closed, and then no more', async () => {
    const ada = open('e1', ADA);
    const anonymous = open('e1');
    open('e2', BOB);
    await settle();
    engagement.take();

    ada.unsubscribe();
    anonymous.unsubscribe();
    await settle();
    expect(engagement.take()).toEqual([[{ eventId: 'e1', agentIds: [], viewers: 0 }]]);
    await jest.advanceTimersByTimeAsync(INTERVAL * 2);
    expect(engagement.take()).toEqual([
      [{ eventId: 'e2', agentIds: [BOB], viewers: 1 }],
      [{ eventId: 'e2', agentIds: [BOB], viewers: 1 }],
    ]);
  });

  it('sends one snapshot at a time: what changes while one is in flight goes in the next, together', async () => {
    const release = engagement.hold();
    open('e1', ADA);
    await settle();
    expect(engagement.take()).toEqual([[{ eventId: 'e1', agentIds: [ADA], viewers: 1 }]]);

    open('e2', BOB);
    await settle();
    open('e3');
    await settle();
    expect(engagement.snapshots).toEqual([]);
    release();
    await settle();
    expect(engagement.take()).toEqual([
      [
        { eventId: 'e2', agentIds: [BOB], viewers: 1 },
        { eventId: 'e3', agentIds: [], viewers: 1 },
      ],
    ]);
  });

  it('logs a snapshot that failed at warn, never throws, and sends its events again with the next', async () => {
    engagement.failing = true;
    open('e1', ADA);
    await settle();
    expect(engagement.take()).toHaveLength(1);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.objectContaining({ events: 1, err: expect.any(DomainError) }),
      expect.stringMatching(/presence snapshot not sent/),
    );

    // The next snapshot, prompt here, carries what failed.
    engagement.failing = false;
    const bob = open('e2', BOB);
    await settle();
    expect(engagement.take()).toEqual([
      [
        { eventId: 'e1', agentIds: [ADA], viewers: 1 },
        { eventId: 'e2', agentIds: [BOB], viewers: 1 },
      ],
    ]);

    // An event's empty snapshot that failed is sent again by the tick.
    engagement.failing = true;
    bob.unsubscribe();
    await settle();
    engagement.take();
    engagement.failing = false;
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(engagement.take()).toEqual([
      [
        { eventId: 'e1', agentIds: [ADA], viewers: 1 },
        { eventId: 'e2', agentIds: [], viewers: 0 },
      ],
    ]);
    await jest.advanceTimersByTimeAsync(INTERVAL);
    expect(engagement.take()).toEqual([[{ eventId: 'e1', agentIds: [ADA], viewers: 1 }]]);
  });

  it('warns once an interval at most while snapshots keep failing', async () => {
    engagement.failing = true;
    for (let i = 0; i < 5; i++) {
      open(`e${i}`);
      await settle();
    }
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.debug).toHaveBeenCalledTimes(4);
    // The ticks at 0.5 and 1.5 intervals fail too: the second is an interval after the warning.
    await jest.advanceTimersByTimeAsync(INTERVAL * 2);
    expect(logger.debug).toHaveBeenCalledTimes(5);
    expect(logger.warn).toHaveBeenCalledTimes(2);
  });

  it('tells engagement that every event is empty when it stops, and reports nothing after', async () => {
    open('e1', ADA);
    const bob = open('e2', BOB);
    await settle();
    engagement.take();
    bob.unsubscribe(); // reported empty already: named once more anyway
    await settle();
    engagement.take();
    const late = open('e3'); // opened, not reported yet

    await reporter.stop();
    expect(engagement.take()).toEqual([
      [
        { eventId: 'e1', agentIds: [], viewers: 0 },
        { eventId: 'e3', agentIds: [], viewers: 0 },
      ],
    ]);
    late.unsubscribe();
    open('e4', ADA);
    await jest.advanceTimersByTimeAsync(INTERVAL * 3);
    expect(engagement.snapshots).toEqual([]);
  });

  it('waits for the snapshot in flight before the last one', async () => {
    const release = engagement.hold();
    open('e1', ADA);
    await settle();
    const stopped = reporter.stop();
    await settle();
    expect(engagement.take()).toEqual([[{ eventId: 'e1', agentIds: [ADA], viewers: 1 }]]);
    release();
    await stopped;
    expect(engagement.take()).toEqual([[{ eventId: 'e1', agentIds: [], viewers: 0 }]]);
  });

  it('splits a large snapshot into messages, an event and its agents in one', async () => {
    for (let i = 0; i < 6_000; i++) open('e1', `agent-${i}`);
    for (let i = 0; i < 6_000; i++) open('e2', `agent-${i}`);
    await settle();
    expect(
      engagement.snapshots.map((snapshot) =>
        snapshot.events.map((event) => [event.eventId, event.agentIds.length]),
      ),
    ).toEqual([[['e1', 6_000]], [['e2', 6_000]]]);
  });
});
