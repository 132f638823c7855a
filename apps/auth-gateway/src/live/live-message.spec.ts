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

describe('decodeLiveMessage and the records of one agent', () => {
  const envelope = (type: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      specversion: '1.0',
      id: 'x',
      source: 's',
      type,
      subject: 'e1',
      time: 't',
      ...extra,
      data,
    });
  const entry = (offerExpiresAt: string | null) => ({
    id: 'w1',
    eventId: 'e1',
    tierId: 'vip',
    agentId: 'agent-a',
    position: offerExpiresAt ? null : 3,
    offerExpiresAt,
  });
  const publicData = (type: string, data: Record<string, unknown>) =>
    (
      JSON.parse(/^data: (.+)$/m.exec(decodeLiveMessage(9, type, envelope(type, data))!.frame)![1]!) as {
        data: unknown;
      }
    ).data;

  it('frames a ticket as counts for the public and whole for its holder, with no trace context in either', () => {
    const ticket = {
      id: 't1',
      eventId: 'e1',
      tierId: 'vip',
      holderId: 'agent-a',
      price: '5000000',
      transaction: 'tx1',
    };
    const payload = envelope('townhall.ticket.issued', ticket, { traceparent: '00-aa-bb-01' });
    const message = decodeLiveMessage(5, 'townhall.ticket.issued', payload)!;
    const { traceparent: _traceparent, ...untraced } = JSON.parse(payload) as Record<string, unknown>;
    expect(message.frame).toBe(
      `id: 5\nevent: townhall.ticket.issued\ndata: ${JSON.stringify({
        ...untraced,
        data: { eventId: 'e1', tierId: 'vip', counts: { tickets: 1 } },
      })}\n\n`,
    );
    expect(message.record).toEqual({
      agentId: 'agent-a',
      frame: `id: 5\nevent: townhall.ticket.issued\ndata: ${JSON.stringify(untraced)}\n\n`,
    });
    for (const secret of ['agent-a', '5000000', 'tx1', 't1', '00-aa-bb-01'])
      expect(message.frame).not.toContain(secret);
  });

  it('counts what each ticket, waitlist and refund change does to its tier, and names no one', () => {
    const counts = (tierId: string | null, changes: Record<string, number>) => ({
      eventId: 'e1',
      tierId,
      counts: changes,
    });
    const ticket = { eventId: 'e1', tierId: 'vip', holderId: 'agent-a' };
    expect(publicData('townhall.ticket.cancelled', ticket)).toEqual(counts('vip', { tickets: -1 }));
    expect(publicData('townhall.waitlist.joined', entry(null))).toEqual(counts('vip', { waiting: 1 }));
    expect(publicData('townhall.waitlist.offered', entry('2030-01-01T00:00:00.000Z'))).toEqual(
      counts('vip', { waiting: -1, offered: 1 }),
    );
    // An entry that held an offer gives back an offered seat; one that never had one, a place in line.
    for (const type of [
      'townhall.waitlist.accepted',
      'townhall.waitlist.expired',
      'townhall.waitlist.left',
    ]) {
      expect(publicData(type, entry('2030-01-01T00:00:00.000Z'))).toEqual(counts('vip', { offered: -1 }));
      expect(publicData(type, entry(null))).toEqual(counts('vip', { waiting: -1 }));
    }
    const refund = {
      eventId: 'e1',
      ticketId: 't1',
      holderId: 'agent-a',
      hostId: 'h',
      amount: '5',
      transaction: 'tx',
    };
    expect(publicData('townhall.refund.owed', refund)).toEqual(counts(null, { refundsOwed: 1 }));
    expect(publicData('townhall.refund.paid', refund)).toEqual(
      counts(null, { refundsOwed: -1, refundsPaid: 1 }),
    );
  });

  it('frames an invite as a count of the event for the public and whole for the agent invited', () => {
    const invite = {
      eventId: 'e1',
      agentId: 'agent-a',
      invitedBy: 'host-h',
      invitedAt: '2030-01-01T00:00:00.000Z',
    };
    for (const [type, invited] of [
      ['townhall.invite.added', 1],
      ['townhall.invite.removed', -1],
    ] as const) {
      const payload = envelope(type, invite);
      const message = decodeLiveMessage(6, type, payload)!;
      // An invite is to the event, not to one of its tiers.
      expect(publicData(type, invite)).toEqual({ eventId: 'e1', tierId: null, counts: { invited } });
      for (const secret of ['agent-a', 'host-h', 'invitedBy', 'agentId'])
        expect(message.frame).not.toContain(secret);
      expect(message.record).toEqual({
        agentId: 'agent-a',
        frame: `id: 6\nevent: ${type}\ndata: ${payload}\n\n`,
      });
    }
  });

  it('counts the seat an approval holds as offered, never as a place in line it did not have', () => {
    const at = '2030-01-01T00:00:00.000Z';
    const later = '2030-01-01T00:05:00.000Z';
    const approved = (holdExpiresAt: string | null) => ({
      eventId: 'e1',
      agentId: 'agent-a',
      status: 'approved',
      tierId: 'vip',
      holdExpiresAt,
      requestedAt: at,
      decidedAt: at,
      decidedBy: 'host-h',
    });
    // A paid event's approval holds a seat: one more offered, and no place in line left.
    expect(publicData('townhall.request.approved', approved(later))).toEqual({
      eventId: 'e1',
      tierId: 'vip',
      counts: { offered: 1 },
    });
    // A free event's approval: its ticket is counted by the ticket's own message.
    expect(publicData('townhall.request.approved', approved(null))).toEqual({
      eventId: 'e1',
      tierId: 'vip',
      counts: {},
    });
    // Bought or run out, a hold gives back an offered seat as any offer does.
    const hold = { ...entry(later), status: 'offered', createdAt: at, updatedAt: at };
    for (const type of ['townhall.waitlist.accepted', 'townhall.waitlist.expired'])
      expect(publicData(type, { ...hold, updatedAt: later })).toEqual({
        eventId: 'e1',
        tierId: 'vip',
        counts: { offered: -1 },
      });
  });

  it('frames a request to come as one more asking for the public, and whole for the agent who asked', () => {
    const request = (status: string, tierId: string | null, decided: boolean) => ({
      eventId: 'e1',
      agentId: 'agent-a',
      status,
      tierId,
      holdExpiresAt: status === 'approved' && tierId ? '2030-01-01T00:15:00.000Z' : null,
      requestedAt: '2030-01-01T00:00:00.000Z',
      decidedAt: decided ? '2030-01-01T00:00:10.000Z' : null,
      decidedBy: decided ? 'moderator-m' : null,
    });
    expect(publicData('townhall.request.requested', request('requested', 'vip', false))).toEqual({
      eventId: 'e1',
      tierId: 'vip',
      counts: { requested: 1 },
    });
    // A request of an event with one tier names none.
    expect(publicData('townhall.request.requested', request('requested', null, false))).toEqual({
      eventId: 'e1',
      tierId: null,
      counts: { requested: 1 },
    });
    // A decline changes no count.
    expect(publicData('townhall.request.declined', request('declined', 'vip', true))).toEqual({
      eventId: 'e1',
      tierId: 'vip',
      counts: {},
    });
    for (const [type, status, decided] of [
      ['townhall.request.requested', 'requested', false],
      ['townhall.request.approved', 'approved', true],
      ['townhall.request.declined', 'declined', true],
    ] as const) {
      const data = request(status, 'vip', decided);
      const payload = envelope(type, data);
      const message = decodeLiveMessage(8, type, payload)!;
      for (const secret of ['agent-a', 'moderator-m', 'agentId', 'decidedBy', 'holdExpiresAt', '"status"'])
        expect(message.frame).not.toContain(secret);
      expect(message.record).toEqual({
        agentId: 'agent-a',
        frame: `id: 8\nevent: ${type}\ndata: ${payload}\n\n`,
      });
    }
  });

  it('names the agent of each record, and none for a record that names nobody (then only the staff see it)', () => {
    const agentOf = (type: string, data: Record<string, unknown>) =>
      decodeLiveMessage(1, type, envelope(type, data))!.record?.agentId;
    expect(agentOf('townhall.waitlist.joined', entry(null))).toBe('agent-a');
    expect(agentOf('townhall.refund.paid', { holderId: 'agent-b', hostId: 'h' })).toBe('agent-b');
    expect(agentOf('townhall.request.declined', { agentId: 'agent-c', decidedBy: 'h' })).toBe('agent-c');
    expect(agentOf('townhall.request.requested', { tierId: 'vip' })).toBeNull();
    expect(agentOf('townhall.ticket.issued', { tierId: 'vip' })).toBeNull();
    expect(
      decodeLiveMessage(1, 'townhall.ticket.issued', envelope('townhall.ticket.issued', {}))!.frame,
    ).toContain('"data":{"eventId":"e1","tierId":null,"counts":{"tickets":1}}');
  });

  it('reads the host and moderators an event message names, for the staff of signed streams', () => {
    const type = 'townhall.event.updated';
    const event = { id: 'e1', hostId: 'h', moderators: ['m1', 'm2'] };
    expect(decodeLiveMessage(1, type, envelope(type, event))?.staff).toEqual(['h', 'm1', 'm2']);
    expect(decodeLiveMessage(1, type, envelope(type, { id: 'e1' }))?.staff).toBeUndefined();
    expect(
      decodeLiveMessage(1, 'townhall.stage.posted', envelope('townhall.stage.posted', event))?.staff,
    ).toBeUndefined();
  });
});
