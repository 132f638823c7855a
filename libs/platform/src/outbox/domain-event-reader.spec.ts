import { randomUUID } from 'node:crypto';
import { aCloudEvent, anIssuedTicketView } from '@townhall/testing';
import { cloudEventOf, readDomainEvent } from './domain-event-reader.js';

const HOLDER = 'HostAgent5Yq2x8dWnH3vJk7mPa9bCd4eFg6hKjLmNp';

describe("readDomainEvent: a domain event as a consumer's handler may take it", () => {
  it("reads data its type's schema parses, handing over the schema's output", () => {
    const ticket = anIssuedTicketView(randomUUID(), HOLDER);
    const reading = readDomainEvent(aCloudEvent('townhall.ticket.issued', { ...ticket, unknownField: 1 }));
    expect(reading).toEqual({ outcome: 'read', event: expect.objectContaining({ data: ticket }) });
  });

  it.each([
    ['a field missing', 'townhall.event.scheduled', { id: 'e3' }],
    ['no data', 'townhall.stage.posted', null],
    [
      'a field of the wrong type',
      'townhall.ticket.issued',
      { ...anIssuedTicketView('e', HOLDER), eventId: 7 },
    ],
    ['text for an object', 'townhall.series.created', 'text'],
    ['garbage', 'townhall.ledger.entry_recorded', 'garbage'],
  ])('calls data with %s malformed, saying what its schema refused', (_case, type, data) => {
    const reading = readDomainEvent(aCloudEvent(type, data));
    expect(reading.outcome).toBe('malformed');
    expect(reading.outcome === 'malformed' && reading.problem.length).toBeGreaterThan(0);
  });

  it('calls a type the catalog does not have unknown (a newer release announced it)', () => {
    expect(readDomainEvent(aCloudEvent('townhall.event.somethingelse', { id: 'e2' }))).toEqual({
      outcome: 'unknown',
    });
  });
});

describe('cloudEventOf', () => {
  it('takes a CloudEvents 1.0 envelope and nothing else', () => {
    const event = aCloudEvent('townhall.stage.posted', {});
    expect(cloudEventOf(event)).toBe(event);
    expect(cloudEventOf({ ...event, id: 'not-a-uuid' })).toBeUndefined();
    expect(cloudEventOf({ ...event, specversion: '0.3' })).toBeUndefined();
    const { data: _data, ...withoutData } = event;
    expect(cloudEventOf(withoutData)).toBeUndefined();
    expect(cloudEventOf('text')).toBeUndefined();
    expect(cloudEventOf(null)).toBeUndefined();
  });
});
