import { decodeLiveMessage, isLiveTopic } from './live-message.js';

const cloudEvent = (type: string, subject = 'e1') =>
  JSON.stringify({ specversion: '1.0', id: 'x', source: 's', type, subject, time: 't', data: { a: 1 } });

describe('decodeLiveMessage', () => {
  it('frames a domain event with its stream sequence as id and its type as event', () => {
    const payload = cloudEvent('townhall.event.started');
    expect(decodeLiveMessage(7, 'townhall.event.started', payload)).toEqual({
      seq: 7,
      type: 'townhall.event.started',
      eventId: 'e1',
      frame: `id: 7\nevent: townhall.event.started\ndata: ${payload}\n\n`,
    });
  });

  it("sends a traced write's event without its trace context, which is for the operators", () => {
    const event = JSON.parse(cloudEvent('townhall.question.submitted')) as Record<string, unknown>;
    const traced = JSON.stringify({
      ...event,
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'vendor=1',
    });
    const message = decodeLiveMessage(3, 'townhall.question.submitted', traced);
    expect(message?.frame).toBe(
      `id: 3\nevent: townhall.question.submitted\ndata: ${JSON.stringify(event)}\n\n`,
    );
  });

  it('leaves out ledger and series events, which are private or not about an event', () => {
    expect(isLiveTopic('townhall.ledger.entry_recorded')).toBe(false);
    expect(isLiveTopic('townhall.series.followed')).toBe(false);
    expect(isLiveTopic('townhall.question.upvoted')).toBe(true);
    const ledger = cloudEvent('townhall.ledger.entry_recorded');
    expect(decodeLiveMessage(1, 'townhall.ledger.entry_recorded', ledger)).toBeUndefined();
    // The type inside counts too, whatever subject carried it.
    expect(decodeLiveMessage(1, 'townhall.event.updated', ledger)).toBeUndefined();
  });

  it('ignores payloads that are not CloudEvents with a type and a subject', () => {
    expect(decodeLiveMessage(1, 'townhall.event.updated', 'not json')).toBeUndefined();
    expect(decodeLiveMessage(1, 'townhall.event.updated', '42')).toBeUndefined();
    expect(
      decodeLiveMessage(1, 'townhall.event.updated', '{"type":"townhall.event.updated"}'),
    ).toBeUndefined();
  });
});

describe('decodeLiveMessage and visibility', () => {
  it('leaves out a domain event for moderators only (visibility staff), whatever its type', () => {
    const report = JSON.stringify({
      specversion: '1.0',
      id: 'x',
      source: 's',
      type: 'townhall.question.reported',
      subject: 'e1',
      time: 't',
      visibility: 'staff',
      data: { reporterId: 'a' },
    });
    expect(decodeLiveMessage(3, 'townhall.question.reported', report)).toBeUndefined();
    const pending = report.replace('townhall.question.reported', 'townhall.question.submitted');
    expect(decodeLiveMessage(4, 'townhall.question.submitted', pending)).toBeUndefined();
  });
});
