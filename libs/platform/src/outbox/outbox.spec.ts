import { subjectMatches } from './subjects.js';
import { domainEvent, freshEventsCte, outboxMigrationSql } from './outbox.js';

describe('domainEvent', () => {
  it('builds a CloudEvents 1.0 envelope with a fresh UUID and an RFC 3339 UTC time', () => {
    const time = new Date('2030-01-02T03:04:05.678Z');
    const event = domainEvent({
      source: 'townhall/events',
      type: 'townhall.event.started',
      subject: 'e1',
      data: { a: 1 },
      time,
    });
    expect(event).toEqual({
      specversion: '1.0',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      source: 'townhall/events',
      type: 'townhall.event.started',
      time: '2030-01-02T03:04:05.678Z',
      subject: 'e1',
      datacontenttype: 'application/json',
      data: { a: 1 },
    });
    expect(domainEvent({ source: 's', type: 'townhall.a.b', subject: 'x', data: null }).id).not.toBe(
      event.id,
    );
  });

  it('refuses a type that is not a townhall subject the stream would take', () => {
    for (const type of [
      'event.started',
      'townhall',
      'townhall.',
      'townhall.*.x',
      'townhall.a b',
      'townhall.>',
    ]) {
      expect(() => domainEvent({ source: 's', type, subject: 'x', data: {} })).toThrow(
        'townhall.<aggregate>',
      );
    }
  });
});

describe('outboxMigrationSql', () => {
  it('creates both tables in the given schema', () => {
    const sql = outboxMigrationSql('ticketing').join('\n');
    expect(sql).toContain('"ticketing".outbox');
    expect(sql).toContain('"ticketing".processed_events');
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => outboxMigrationSql('x"; DROP TABLE y; --')).toThrow('plain schema name');
  });
});

describe('subjectMatches', () => {
  it.each([
    ['townhall.event.*', 'townhall.event.started', true],
    ['townhall.event.*', 'townhall.event.started.late', false],
    ['townhall.>', 'townhall.event.started', true],
    ['townhall.>', 'townhall', false],
    ['townhall.*.closed', 'townhall.poll.closed', true],
    ['townhall.poll.closed', 'townhall.poll.closed', true],
    ['townhall.poll.closed', 'townhall.poll', false],
  ])('%s against %s is %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });
});

describe('freshEventsCte', () => {
  it('claims for a consumer named as durables are, and refuses any other name or schema it would splice into SQL', () => {
    expect(freshEventsCte('events', 'events-counts')).toContain(`INSERT INTO "events".processed_events`);
    expect(freshEventsCte('events', 'events-counts')).toContain(`SELECT 'events-counts', id`);
    for (const consumer of ["x'; DROP TABLE t; --", 'Upper', '', 'a b'])
      expect(() => freshEventsCte('events', consumer)).toThrow("Not a consumer's name");
    expect(() => freshEventsCte('events; --', 'events-counts')).toThrow('Not a plain schema name');
  });
});
