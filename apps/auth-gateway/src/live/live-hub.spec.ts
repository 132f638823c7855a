import { jest } from '@jest/globals';
import { LiveHub, type LiveListener } from './live-hub.js';
import type { LiveMessage } from './live-message.js';

const message = (seq: number, eventId: string): LiveMessage => ({
  seq,
  type: 'townhall.event.updated',
  eventId,
  frame: `id: ${seq}\n\n`,
});

class Recorder implements LiveListener {
  readonly seqs: number[] = [];
  disconnected = false;
  constructor(readonly agentId?: string) {}
  deliver(m: LiveMessage): void {
    this.seqs.push(m.seq);
  }
  disconnect(): void {
    this.disconnected = true;
  }
}

describe('LiveHub', () => {
  it('hands the subject of each domain event of an observed topic to its observers, parsing no other', () => {
    const hub = new LiveHub();
    const seen: string[] = [];
    hub.observeTopic('townhall.card.', (subject) => seen.push(subject));
    let parsed = 0;
    const payload = (value: unknown) => () => {
      parsed += 1;
      return typeof value === 'string' ? value : JSON.stringify(value);
    };
    hub.see('townhall.card.updated', payload({ type: 'townhall.card.updated', subject: 'agent-a' }));
    hub.see('townhall.question.submitted', payload({ subject: 'e1' }));
    hub.see('townhall.card.updated', payload('not json'));
    hub.see('townhall.card.updated', payload({ subject: 7 }));
    hub.see('townhall.card.updated', payload(null));
    expect(seen).toEqual(['agent-a']);
    expect(parsed).toBe(4);
  });

  it('refuses subscribers until the feed has told it where the stream is', () => {
    expect(() => new LiveHub().subscribe('e1', new Recorder())).toThrow(
      expect.objectContaining({ code: 'dependency.unavailable' }),
    );
  });

  it("delivers each message, in order, only to the listeners of the message's event", () => {
    const hub = new LiveHub();
    hub.startAt(10);
    const a = new Recorder();
    const b = new Recorder();
    expect(hub.subscribe('e1', a).position).toBe(10);
    hub.subscribe('e2', b);
    for (const [seq, eventId] of [
      [11, 'e1'],
      [12, 'e2'],
      [13, 'e1'],
    ] as const)
      hub.receive(seq, () => message(seq, eventId));
    expect(a.seqs).toEqual([11, 13]);
    expect(b.seqs).toEqual([12]);
    expect(hub.position).toBe(13);
  });

  it('tells a new subscriber the position it joins at, and ignores sequences it has seen', () => {
    const hub = new LiveHub();
    hub.startAt(0);
    hub.receive(5, () => message(5, 'e1'));
    const late = new Recorder();
    expect(hub.subscribe('e1', late).position).toBe(5);
    hub.receive(5, () => message(5, 'e1'));
    hub.receive(4, () => message(4, 'e1'));
    expect(late.seqs).toEqual([]);
  });

  it('does not decode messages while nobody listens, but still advances', () => {
    const hub = new LiveHub();
    hub.startAt(0);
    const decode = jest.fn(() => message(1, 'e1'));
    hub.receive(1, decode);
    expect(decode).not.toHaveBeenCalled();
    expect(hub.position).toBe(1);
  });

  it('stops delivering after unsubscribe', () => {
    const hub = new LiveHub();
    hub.startAt(0);
    const a = new Recorder();
    const { unsubscribe } = hub.subscribe('e1', a);
    unsubscribe();
    unsubscribe();
    hub.receive(1, () => message(1, 'e1'));
    expect(a.seqs).toEqual([]);
    expect(hub.subscriberCount).toBe(0);
  });

  it("knows who is on each event's streams, and tells its observers of every stream opening or closing", () => {
    const hub = new LiveHub();
    hub.startAt(0);
    const changed: string[] = [];
    hub.observeStreams((eventId) => changed.push(eventId));
    const ada = hub.subscribe('e1', new Recorder('ada'));
    hub.subscribe('e1', new Recorder('ada'));
    hub.subscribe('e1', new Recorder());
    const bob = hub.subscribe('e2', new Recorder('bob'));
    expect(hub.presence('e1')).toEqual({ agentIds: ['ada'], viewers: 3 });
    expect(hub.presence('e2')).toEqual({ agentIds: ['bob'], viewers: 1 });
    expect(hub.eventIds).toEqual(['e1', 'e2']);
    ada.unsubscribe();
    bob.unsubscribe();
    bob.unsubscribe();
    expect(hub.presence('e1')).toEqual({ agentIds: ['ada'], viewers: 2 });
    expect(hub.presence('e2')).toEqual({ agentIds: [], viewers: 0 });
    expect(hub.eventIds).toEqual(['e1']);
    expect(changed).toEqual(['e1', 'e1', 'e1', 'e2', 'e1', 'e2']);
  });

  it('disconnects everyone on close and refuses newcomers', () => {
    const hub = new LiveHub();
    hub.startAt(0);
    const a = new Recorder();
    const b = new Recorder();
    hub.subscribe('e1', a);
    hub.subscribe('e2', b);
    hub.disconnectAll();
    expect([a.disconnected, b.disconnected]).toEqual([true, true]);
    expect(() => hub.subscribe('e1', new Recorder())).toThrow(
      expect.objectContaining({ code: 'service.unavailable' }),
    );
  });
});
