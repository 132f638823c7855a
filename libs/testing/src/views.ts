import { randomUUID } from 'node:crypto';
import type { EventView, TicketView } from '@townhall/contracts';

/**
 * An event as the events service answers it, for unit tests of what reads one (pages, renderers):
 * a live, free AMA with 100 seats; `fields` overrides any of it. A new field of EventView is added
 * here once, for every such test.
 */
export function anEventView(fields: Partial<EventView> = {}): EventView {
  return {
    id: '6f1c3e2a-1b2c-4d5e-8f90-123456789abc',
    title: 'Ask me anything',
    description: '',
    agenda: [],
    startsAt: '2027-03-04T18:00:00.000Z',
    endsAt: '2027-03-04T19:30:00.000Z',
    timezone: 'UTC',
    hostId: 'HostAgent5Yq2x8dWnH3vJk7mPa9bCd4eFg6hKjLmNp',
    moderators: [],
    speakers: [],
    capacity: 100,
    ticketing: { mode: 'free' },
    moderation: { questions: 'post', reportThreshold: 3 },
    offerMinutes: 15,
    access: 'open',
    status: 'live',
    seriesId: null,
    counts: { ticketsSold: {}, questions: 0, polls: 0 },
    version: 1,
    createdAt: '2027-01-01T00:00:00.000Z',
    updatedAt: '2027-01-01T00:00:00.000Z',
    startedAt: null,
    endedAt: null,
    cancelledAt: null,
    recordingPublishedAt: null,
    ...fields,
  };
}

/**
 * A free ticket of the general tier as ticketing issues it (the data of townhall.ticket.issued),
 * held by `holderId` for `eventId`, issued now, under an id of its own: what a service that
 * counts or checks tickets is told of them.
 */
export function anIssuedTicketView(eventId: string, holderId: string): TicketView {
  return {
    id: randomUUID(),
    eventId,
    tierId: 'general',
    holderId,
    status: 'active',
    price: '0',
    network: null,
    transaction: null,
    asset: null,
    code: null,
    createdAt: new Date().toISOString(),
    cancelledAt: null,
  };
}
