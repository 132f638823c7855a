import { jetstream } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@townhall/platform';
import { ensureTownhallStream } from '@townhall/platform/service';
import { PrivateNatsServer, waitFor } from '@townhall/testing';
import { JetStreamHistory } from '../src/live/jetstream-history.js';
import { LiveFeed } from '../src/live/live-feed.js';
import { LiveHub, type LiveListener } from '../src/live/live-hub.js';
import type { LiveMessage } from '../src/live/live-message.js';

const logger = createLogger('live-feed-test', 'silent');

class Recorder implements LiveListener {
  readonly received: LiveMessage[] = [];
  deliver(message: LiveMessage): void {
    this.received.push(message);
  }
  disconnect(): void {}
}

async function publish(nc: NatsConnection, type: string, subject: string): Promise<number> {
  const event = { specversion: '1.0', id: crypto.randomUUID(), source: 'test', type, subject, data: {} };
  // msgID: a retried publish that had landed after all is deduplicated, not stored twice.
  return (await jetstream(nc).publish(type, JSON.stringify(event), { timeout: 5_000, msgID: event.id })).seq;
}

/** JetStream may take a moment after the server starts (or restarts) to accept requests. */
async function retry<T>(work: () => Promise<T>): Promise<T> {
  // Wrapped: waitFor takes undefined for "not yet", and ensureTownhallStream resolves to undefined.
  return (await waitFor('JetStream', async () => ({ value: await work() }))).value;
}

describe('LiveFeed and JetStreamHistory against a real nats-server', () => {
  let server: PrivateNatsServer;
  let nc: NatsConnection;
  const stops: Array<() => Promise<unknown>> = [];

  beforeEach(async () => {
    server = await PrivateNatsServer.start({ authorization: false });
    nc = await connect({ servers: server.url, reconnectTimeWait: 100, maxReconnectAttempts: -1 });
  });
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
    await nc.close();
    await server.destroy();
  });

  it('starts at the end of the stream and follows it across a NATS restart without a gap', async () => {
    await retry(() => ensureTownhallStream(nc));
    for (let i = 0; i < 3; i++) await publish(nc, 'townhall.event.updated', 'e1');
    const hub = new LiveHub();
    const feed = new LiveFeed({ nc, hub, logger, retryMs: 100 });
    feed.start();
    stops.push(() => feed.stop());
    await waitFor('the hub to start', async () => (hub.position === 3 ? true : undefined));

    const e1 = new Recorder();
    hub.subscribe('e1', e1);
    await publish(nc, 'townhall.event.started', 'e1');
    await publish(nc, 'townhall.ledger.entry_recorded', 'e1');
    await publish(nc, 'townhall.stage.posted', 'e2');
    await waitFor('the start', async () => (e1.received.length === 1 ? true : undefined));

    await server.stop();
    await server.restart();
    const after = [];
    for (let i = 0; i < 3; i++)
      after.push(await retry(() => publish(nc, 'townhall.question.submitted', 'e1')));
    await waitFor(
      'the messages after the restart',
      async () => (e1.received.length === 4 ? true : undefined),
      30_000,
    );
    expect(e1.received.map((m) => [m.seq, m.type])).toEqual([
      [4, 'townhall.event.started'],
      ...after.map((seq) => [seq, 'townhall.question.submitted']),
    ]);
    expect(after).toEqual([7, 8, 9]);
  });

  it('waits for the stream to exist', async () => {
    const hub = new LiveHub();
    const feed = new LiveFeed({ nc, hub, logger, retryMs: 100 });
    feed.start();
    stops.push(() => feed.stop());
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hub.position).toBeUndefined();
    await retry(() => ensureTownhallStream(nc));
    await waitFor('the hub to start', async () => (hub.position === 0 ? true : undefined));
    const e1 = new Recorder();
    hub.subscribe('e1', e1);
    await publish(nc, 'townhall.event.started', 'e1');
    await waitFor('the message', async () => (e1.received.length === 1 ? true : undefined));
  });

  it("replays one event's messages in a range of sequences, and nothing when there is no gap", async () => {
    await retry(() => ensureTownhallStream(nc));
    for (const subject of ['e1', 'e2', 'e1', 'e1', 'e2', 'e1'])
      await publish(nc, 'townhall.poll.voted', subject);
    await publish(nc, 'townhall.series.followed', 'e1');
    const history = new JetStreamHistory(nc);
    const replay = async (after: number, upTo: number) => {
      const seqs: number[] = [];
      for await (const message of history.replay('e1', after, upTo)) seqs.push(message.seq);
      return seqs;
    };
    expect(await replay(0, 7)).toEqual([1, 3, 4, 6]);
    expect(await replay(1, 4)).toEqual([3, 4]);
    expect(await replay(4, 4)).toEqual([]);
    expect(await replay(6, 7)).toEqual([]);
  });
});
