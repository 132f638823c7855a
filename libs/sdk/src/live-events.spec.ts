import { readLiveEvents, type LiveConnector, type LiveHistoryCut } from './live-events.js';

const frame = (id: number, type = 'townhall.event.updated') =>
  `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ type, subject: 'e1', data: { id } })}\n\n`;

/** A response whose body is the given chunks, then its end (a dropped or ended connection). */
function stream(...chunks: string[]): Response {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    }),
    { status: 200, headers: { 'content-type': 'text/event-stream' } },
  );
}

class ScriptedConnector implements LiveConnector {
  readonly asked: Array<string | undefined> = [];
  constructor(private readonly responses: Array<() => Response>) {}
  async open(lastEventId: string | undefined): Promise<Response> {
    this.asked.push(lastEventId);
    const next = this.responses.shift();
    if (!next) return new Promise(() => undefined); // never answers: the test stops first
    return next();
  }
  async errorOf(response: Response): Promise<Error> {
    return new Error(`status ${response.status}`);
  }
}

describe('readLiveEvents', () => {
  it('yields parsed messages and reconnects with the last id after the stream ends', async () => {
    const connector = new ScriptedConnector([
      () => stream('retry: 0\n\n', frame(1), frame(2).slice(0, 10), frame(2).slice(10)),
      () => stream(frame(3, 'townhall.event.started')),
    ]);
    const opened: number[] = [];
    const received = [];
    for await (const message of readLiveEvents(connector, { onOpen: () => opened.push(1) })) {
      received.push(message);
      if (received.length === 3) break;
    }
    expect(received.map((m) => [m.id, m.type])).toEqual([
      ['1', 'townhall.event.updated'],
      ['2', 'townhall.event.updated'],
      ['3', 'townhall.event.started'],
    ]);
    expect(received[0]!.event).toMatchObject({ subject: 'e1', data: { id: 1 } });
    expect(connector.asked).toEqual([undefined, '2']);
    expect(opened).toHaveLength(2);
  });

  it('starts from the given lastEventId', async () => {
    const connector = new ScriptedConnector([() => stream(frame(9))]);
    for await (const message of readLiveEvents(connector, { lastEventId: '8' })) {
      expect(message.id).toBe('9');
      break;
    }
    expect(connector.asked).toEqual(['8']);
  });

  it('throws the error of a refused first connection, and of a 4xx on reconnect', async () => {
    const refused = new ScriptedConnector([() => new Response('{}', { status: 404 })]);
    await expect(readLiveEvents(refused).next()).rejects.toThrow('status 404');

    const gone = new ScriptedConnector([
      () => stream('retry: 0\n\n', frame(1)),
      () => new Response('{}', { status: 503 }),
      () => new Response('{}', { status: 400 }),
    ]);
    const iterator = readLiveEvents(gone);
    expect((await iterator.next()).value).toMatchObject({ id: '1' });
    await expect(iterator.next()).rejects.toThrow('status 400');
    expect(gone.asked).toEqual([undefined, '1', '1']);
  });

  it('ends quietly when the signal is aborted', async () => {
    const controller = new AbortController();
    const connector = new ScriptedConnector([() => stream('retry: 50\n\n', frame(1))]);
    const received = [];
    for await (const message of readLiveEvents(connector, { signal: controller.signal })) {
      received.push(message);
      controller.abort();
    }
    expect(received).toHaveLength(1);
  });

  it('hands a history cut to onHistoryCut, in order, without yielding it, and resumes after it', async () => {
    const cutFrame = `id: 40\nevent: history.cut\ndata: ${JSON.stringify({ lastEventId: '2', resumedAfter: '40', skipped: 38, reason: 'too_far_behind' })}\n\n`;
    const connector = new ScriptedConnector([
      () => stream('retry: 0\n\n', cutFrame, frame(41)),
      () => stream(frame(42)),
    ]);
    const seen: string[] = [];
    const cuts: LiveHistoryCut[] = [];
    const options = {
      lastEventId: '2',
      onHistoryCut: (cut: LiveHistoryCut) => {
        cuts.push(cut);
        seen.push('cut');
      },
    };
    for await (const message of readLiveEvents(connector, options)) {
      seen.push(message.id);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual(['cut', '41', '42']);
    expect(cuts).toEqual([{ lastEventId: '2', resumedAfter: '40', skipped: 38, reason: 'too_far_behind' }]);
    expect(connector.asked).toEqual(['2', '41']);

    // Without the callback the cut is skipped; its id still moves the resume point.
    const quiet = new ScriptedConnector([() => stream('retry: 0\n\n', cutFrame), () => stream(frame(43))]);
    for await (const message of readLiveEvents(quiet, { lastEventId: '2' })) {
      expect(message.id).toBe('43');
      break;
    }
    expect(quiet.asked).toEqual(['2', '40']);
  });

  it('retries a 429 on reconnect after Retry-After, but throws it on the first connection', async () => {
    const tooMany = () => new Response('{}', { status: 429, headers: { 'retry-after': '0' } });
    await expect(readLiveEvents(new ScriptedConnector([tooMany])).next()).rejects.toThrow('status 429');

    const connector = new ScriptedConnector([
      () => stream('retry: 0\n\n', frame(1)),
      tooMany,
      () => stream(frame(2)),
    ]);
    const received = [];
    for await (const message of readLiveEvents(connector)) {
      received.push(message.id);
      if (received.length === 2) break;
    }
    expect(received).toEqual(['1', '2']);
    expect(connector.asked).toEqual([undefined, '1', '1']);
  });
});
