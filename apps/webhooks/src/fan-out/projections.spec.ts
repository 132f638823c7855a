import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '@townhall/contracts';
import { projectionsOf } from './projections.js';

// Only the fields projectionsOf reads: what the catalog's schemas add is no matter here.
const event = (type: string, data: object): DomainEvent =>
  ({
    specversion: '1.0',
    id: randomUUID(),
    source: 'townhall/test',
    type,
    time: new Date().toISOString(),
    subject: 's',
    datacontenttype: 'application/json',
    data,
  }) as DomainEvent;
const ticket = (type: string, id: string, status = 'active') =>
  event(type, { id, eventId: 'e1', holderId: 'h1', status });

describe('projectionsOf: what a batch of domain events tells the projections', () => {
  it('keeps the first host of an event and of a series, whatever follows', () => {
    const { eventHosts, seriesHosts } = projectionsOf([
      event('townhall.event.scheduled', { id: 'e1', hostId: 'first' }),
      event('townhall.event.starting_soon', { id: 'e1', hostId: 'second' }),
      event('townhall.series.created', { id: 's1', hostId: 'host' }),
      event('townhall.series.created', { id: 's1', hostId: 'other' }),
    ]);
    expect([...eventHosts]).toEqual([['e1', 'first']]);
    expect([...seriesHosts]).toEqual([['s1', 'host']]);
  });

  it('makes a ticket live only if no event of the batch cancelled it, in either order', () => {
    const { tickets } = projectionsOf([
      ticket('townhall.ticket.issued', 't1'),
      ticket('townhall.ticket.cancelled', 't1', 'cancelled'),
      ticket('townhall.ticket.cancelled', 't2', 'cancelled'),
      ticket('townhall.ticket.issued', 't2'),
      ticket('townhall.ticket.issued', 't3'),
      ticket('townhall.ticket.issued', 't4', 'cancelled'),
    ]);
    expect(Object.fromEntries([...tickets].map(([id, { live }]) => [id, live]))).toEqual({
      t1: false,
      t2: false,
      t3: true,
      t4: false,
    });
  });

  // A type this release does not know, and data its type's schema refuses, never get here: the
  // consumer passes over the one and drops the other (domain-event-reader.spec.ts).
  it('takes nothing from other types', () => {
    const { eventHosts, seriesHosts, tickets } = projectionsOf([
      event('townhall.question.submitted', { id: 'q1', eventId: 'e1', authorId: 'a' }),
      event('townhall.series.followed', { seriesId: 's1', agentId: 'a' }),
      event('townhall.refund.owed', { id: 'r1', eventId: 'e1', holderId: 'h' }),
    ]);
    expect([eventHosts.size, seriesHosts.size, tickets.size]).toEqual([0, 0, 0]);
  });
});
