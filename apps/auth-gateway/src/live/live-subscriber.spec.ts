import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { decodeLiveMessage, type LiveMessage } from './live-message.js';
import { LiveSubscriber, type LiveHistory } from './live-subscriber.js';
import { SseConnection, type SseCloseReason } from './sse-connection.js';

const message = (seq: number, eventId = 'e1'): LiveMessage => ({
  seq,
  type: 't',
  eventId,
  frame: `id: ${seq}\n\n`,
});

/** A socket that always takes what it is given and remembers the SSE ids, event names and data. */
class Sink extends EventEmitter {
  readonly ids: number[] = [];
  readonly events: string[] = [];
  readonly data: string[] = [];
  socket = { destroyed: false, setTimeout: () => undefined };
  destroyed = false;
  setHeader(): void {}
  writeHead(): void {}
  write(chunk: string): boolean {
    const id = /^id: (\d+)/.exec(chunk)?.[1];
    if (id) this.ids.push(Number(id));
    const event = /^event: (.+)$/m.exec(chunk)?.[1];
    if (event) this.events.push(event);
    const data = /^data: (.+)$/m.exec(chunk)?.[1];
    if (data) this.data.push(data);
    return true;
  }
  end(): void {
    this.emit('close');
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

/** History that, while it replays, lets the test deliver live messages in between. */
class ScriptedHistory implements LiveHistory {
  asked: Array<[number, number]> = [];
  constructor(
    private readonly stored: LiveMessage[],
    private readonly duringReplay: () => void = () => undefined,
  ) {}
  /** The stream holds `stored` (of every event): from its first to its last. */
  async span(): Promise<{ first: number; last: number }> {
    const first = this.stored[0]?.seq ?? 1;
    return { first, last: this.stored.at(-1)?.seq ?? first - 1 };
  }
  async *replay(eventId: string, after: number, upTo: number): AsyncGenerator<LiveMessage> {
    this.asked.push([after, upTo]);
    for (const m of this.stored) {
      if (m.seq <= after || m.eventId !== eventId) continue;
      this.duringReplay();
      yield m;
      if (m.seq >= upTo) return;
    }
  }
}

function connect(resumeAfter: number | undefined, bufferLimit = 10) {
  const sink = new Sink();
  const connection = new SseConnection(sink as unknown as ServerResponse, {
    bufferLimit,
    heartbeatMs: 60_000,
    retryMs: 0,
  });
  const closes: SseCloseReason[] = [];
  connection.onClose((reason) => closes.push(reason));
  connection.open({});
  return {
    sink,
    connection,
    closes,
    subscriber: new LiveSubscriber('e1', connection, bufferLimit, resumeAfter),
  };
}

describe('LiveSubscriber', () => {
  it('names its agent to the hub when signed, and nobody when anonymous (attendance)', () => {
    const { connection } = connect(undefined);
    expect(new LiveSubscriber('e1', connection, 10, undefined).agentId).toBeUndefined();
    expect(
      new LiveSubscriber('e1', connection, 10, undefined, { agentId: 'ada', staff: false }).agentId,
    ).toBe('ada');
  });

  it('forwards live messages about its event only', () => {
    const { sink, subscriber } = connect(undefined);
    subscriber.deliver(message(3));
    subscriber.deliver(message(4, 'e2'));
    subscriber.deliver(message(5));
    expect(sink.ids).toEqual([3, 5]);
  });

  it('replays what was missed, then what arrived meanwhile: no gap, no duplicate', async () => {
    const { sink, subscriber } = connect(2);
    // Joined at position 6; 7 and 8 arrive live while 3..6 replay, and the replay overlaps 7.
    let live = 7;
    const history = new ScriptedHistory(
      [3, 4, 5, 6, 7].map((seq) => message(seq)),
      () => {
        if (live <= 8) subscriber.deliver(message(live++));
      },
    );
    subscriber.deliver(message(7));
    await subscriber.catchUp(history, 6, 1_000);
    subscriber.deliver(message(9));
    expect(history.asked).toEqual([[2, 6]]);
    expect(sink.ids).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it('replays a stage message hidden since (later in the replay, or while it ran) without its body', async () => {
    const stage = (seq: number, type: string, id: string, body: string | null) =>
      decodeLiveMessage(
        seq,
        type,
        JSON.stringify({
          specversion: '1.0',
          id: `ce${seq}`,
          source: 'townhall/engagement',
          type,
          subject: 'e1',
          time: 't',
          data: { id, body, hidden: body === null },
        }),
      )!;
    const { sink, subscriber } = connect(2);
    const history = new ScriptedHistory([
      stage(3, 'townhall.stage.posted', 'm1', 'abusive'),
      stage(4, 'townhall.stage.posted', 'm2', 'fine'),
      stage(5, 'townhall.stage.posted', 'm3', 'also abusive'),
      stage(6, 'townhall.stage.hidden', 'm1', null),
    ]);
    // m3 is hidden while the replay runs: the hub holds that message for after it.
    subscriber.deliver(stage(7, 'townhall.stage.hidden', 'm3', null));
    await subscriber.catchUp(history, 6, 1_000);
    expect(sink.ids).toEqual([3, 4, 5, 6, 7]);
    const sent = sink.data.map((data) => (JSON.parse(data) as { data: { body: string | null } }).data.body);
    expect(sent).toEqual([null, 'fine', null, null, null]);
    expect(sink.data.join('\n')).not.toContain('abusive');
  });

  it('skips the replay when the client is already at the hub position', async () => {
    const { sink, subscriber } = connect(6);
    const history = new ScriptedHistory([message(6)]);
    subscriber.deliver(message(7));
    await subscriber.catchUp(history, 6, 1_000);
    expect(history.asked).toEqual([]);
    expect(sink.ids).toEqual([7]);
  });

  it('disconnects a resuming client whose held messages overflow its buffer', async () => {
    const { closes, subscriber } = connect(0, 2);
    for (const seq of [10, 11, 12]) subscriber.deliver(message(seq));
    expect(closes).toEqual(['buffer_full']);
  });

  it('reads at most the replay limit: an older resume point gets history.cut, then the last messages', async () => {
    const { sink, subscriber } = connect(2);
    const history = new ScriptedHistory([3, 4, 5, 6, 7, 8, 9, 10].map((seq) => message(seq)));
    subscriber.deliver(message(11));
    subscriber.deliver(message(10)); // the hub never sends this, but a duplicate must not pass
    await subscriber.catchUp(history, 10, 4);
    expect(history.asked).toEqual([[6, 10]]);
    expect(sink.ids).toEqual([6, 7, 8, 9, 10, 11]);
    expect(sink.events[0]).toBe('history.cut');
  });

  it('tells a client whose history is gone (older than the stream holds) with history.cut, never silence', async () => {
    const { sink, subscriber } = connect(2);
    // The stream now starts at 10: 3..9 aged out (or were standalone's log before a restart).
    const history = new ScriptedHistory([10, 11, 12].map((seq) => message(seq)));
    await subscriber.catchUp(history, 12, 1_000);
    expect(sink.events[0]).toBe('history.cut');
    expect(JSON.parse(sink.data[0]!)).toEqual({
      lastEventId: '2',
      resumedAfter: '9',
      skipped: null,
      reason: 'history_gone',
    });
    expect(sink.ids).toEqual([9, 10, 11, 12]);
  });

  it('tells a client whose id is past the end of a stream that was reset, then replays the new stream', async () => {
    const { sink, subscriber } = connect(500);
    const history = new ScriptedHistory([1, 2, 3].map((seq) => message(seq)));
    await subscriber.catchUp(history, 3, 1_000);
    subscriber.deliver(message(4));
    expect(sink.events[0]).toBe('history.cut');
    expect(JSON.parse(sink.data[0]!)).toMatchObject({
      lastEventId: '500',
      resumedAfter: '0',
      reason: 'history_gone',
    });
    expect(sink.ids).toEqual([0, 1, 2, 3, 4]);
  });

  it('does not cut a resume point within the limit, nor one at the very start of a short stream', async () => {
    const within = connect(6);
    const history = new ScriptedHistory([7, 8, 9, 10].map((seq) => message(seq)));
    await within.subscriber.catchUp(history, 10, 4);
    expect(within.sink.ids).toEqual([7, 8, 9, 10]);
    expect(within.sink.events).not.toContain('history.cut');

    const fromZero = connect(0);
    await fromZero.subscriber.catchUp(new ScriptedHistory([1, 2, 3].map((seq) => message(seq))), 3, 4);
    expect(fromZero.sink.ids).toEqual([1, 2, 3]);
    expect(fromZero.sink.events).not.toContain('history.cut');
  });
});
