import { Writable } from 'node:stream';
import { aCloudEvent } from '@townhall/testing';
import { pino, type Logger } from 'pino';
import { InProcessEventLog } from './in-process-event-log.js';

const logger = pino({ level: 'silent' });
const AGENT = 'HostAgent5Yq2x8dWnH3vJk7mPa9bCd4eFg6hKjLmNp';

/** A domain event whose data its type's schema takes (townhall.series.*: an agent's follow). */
const anEvent = (type = 'townhall.series.followed', data: unknown = { seriesId: 's1', agentId: AGENT }) =>
  aCloudEvent(type, data);

describe('InProcessEventLog', () => {
  it('numbers events in order from its first sequence and logs an event id only once', async () => {
    const log = new InProcessEventLog({ firstSeq: 100 });
    expect(log.lastSeq).toBe(99);
    const first = anEvent();
    await log.publish(first);
    await log.publish(anEvent());
    await log.publish(first); // republished by a relay after a crash
    expect([...log.between(0, Infinity)].map((event) => event.seq)).toEqual([100, 101]);
    expect(log.lastSeq).toBe(101);
  });

  it('starts from the boot time in microseconds, so sequences grow across restarts', () => {
    const before = Date.now() * 1_000;
    expect(new InProcessEventLog().lastSeq + 1).toBeGreaterThanOrEqual(before);
  });

  it('delivers to matching durable subscribers, in order, before publish resolves', async () => {
    const log = new InProcessEventLog();
    const seen: string[] = [];
    log.subscribe(logger, [
      {
        durable: 'stage',
        subjects: ['townhall.series.>'],
        handle: async (event) => {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
          seen.push(event.id);
        },
      },
    ]);
    const events = [anEvent(), anEvent('townhall.poll.opened'), anEvent(), anEvent()];
    await Promise.all(events.map((event) => log.publish(event)));
    expect(seen).toEqual(
      events.filter((event) => event.type.startsWith('townhall.series.')).map((e) => e.id),
    );
  });

  it("hands a subscriber the data its type's schema parsed; drops data it refuses and passes over unknown types", async () => {
    const { logger: recording, lines } = capturingLogger();
    const log = new InProcessEventLog();
    const seen: unknown[] = [];
    log.subscribe(recording, [
      { durable: 'series', subjects: ['townhall.>'], handle: async (event) => void seen.push(event.data) },
    ]);
    const malformed = anEvent('townhall.series.followed', { seriesId: 's1' });
    // Neither fails the publish: published again, it would fail again, forever.
    await log.publish(malformed);
    await log.publish(anEvent('townhall.series.renamed', { seriesId: 's1' }));
    await log.publish(anEvent('townhall.series.followed', { seriesId: 's2', agentId: AGENT, extra: true }));
    // What the schema knows of the data, and only that.
    expect(seen).toEqual([{ seriesId: 's2', agentId: AGENT }]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        durable: 'series',
        eventId: malformed.id,
        msg: 'dropping a malformed domain event',
      }),
    ]);
  });

  it('rejects a publish a subscriber failed, and redelivers it only to that subscriber', async () => {
    const log = new InProcessEventLog();
    const calls = { steady: 0, flaky: 0 };
    log.subscribe(logger, [
      { durable: 'steady', subjects: ['townhall.>'], handle: async () => void calls.steady++ },
      {
        durable: 'flaky',
        subjects: ['townhall.>'],
        handle: async () => {
          calls.flaky++;
          if (calls.flaky === 1) throw new Error('database away');
        },
      },
    ]);
    const event = anEvent();
    await expect(log.publish(event)).rejects.toThrow(/subscriber failed/);
    await log.publish(event); // the outbox relay tries again
    await log.publish(event); // and once more: nothing left to do
    expect(calls).toEqual({ steady: 1, flaky: 2 });
    expect([...log.between(0, Infinity)]).toHaveLength(1);
  });

  it('feeds followers every new event and replays a range from what it retains', async () => {
    const log = new InProcessEventLog({ firstSeq: 1, retain: 3 });
    const followed: number[] = [];
    const unfollow = log.follow((event) => followed.push(event.seq));
    for (let index = 0; index < 5; index++) await log.publish(anEvent());
    unfollow();
    await log.publish(anEvent());
    expect(followed).toEqual([1, 2, 3, 4, 5]);
    expect([...log.between(0, 5)].map((event) => event.seq)).toEqual([4, 5]); // 1-3 aged out
    expect([...log.between(4, 100)].map((event) => event.seq)).toEqual([5, 6]);
  });

  it('waits for the event being handled when subscribers stop', async () => {
    const log = new InProcessEventLog();
    let finished = false;
    const subscription = log.subscribe(logger, [
      {
        durable: 'slow',
        subjects: ['townhall.>'],
        handle: async () => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          finished = true;
        },
      },
    ]);
    const publishing = log.publish(anEvent());
    await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.stop();
    expect(finished).toBe(true);
    await publishing;
  });
});

function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}
