// The events service's counts (src/counts/event-counts.ts) as its consumer hands them batches
// from JetStream: each batch one statement on a migrated Postgres, each domain event counted once.
import { randomUUID } from 'node:crypto';
import type { CloudEvent, DomainEventOf } from '@townhall/contracts';
import { domainEvent, subjectMatches } from '@townhall/platform/service';
import { anIssuedTicketView, schemaUnderTest, type SchemaUnderTest } from '@townhall/testing';
import { createEventsDataSource } from '../src/data-source.js';
import { EventCounts } from '../src/counts/event-counts.js';

describe('event counts: a batch of domain events in one statement', () => {
  let schema: SchemaUnderTest;
  let counts: EventCounts;

  beforeAll(async () => {
    schema = await schemaUnderTest(createEventsDataSource);
    counts = new EventCounts(schema.dataSource, schema.outbox);
  });
  afterAll(async () => {
    await schema?.close();
  });

  const newEvent = async (): Promise<string> => {
    const [row] = await schema.query<{ id: string }>(
      `INSERT INTO events.events (title, starts_at, ends_at, timezone, host_id, capacity, ticketing)
       VALUES ('AMA', now() + interval '1 day', now() + interval '25 hours', 'UTC', 'host', 100, '{"mode":"free"}')
       RETURNING id`,
    );
    return row!.id;
  };
  const countsOf = async (eventId: string) => {
    const [row] = await schema.query<{
      tickets_sold: Record<string, number>;
      question_count: number;
      poll_count: number;
    }>('SELECT tickets_sold, question_count, poll_count FROM events.events WHERE id = $1', [eventId]);
    return row;
  };
  const ticket = (type: 'issued' | 'cancelled', eventId: string, tierId = 'general') =>
    domainEvent({
      source: 'townhall/ticketing',
      type: `townhall.ticket.${type}`,
      subject: eventId,
      data: { ...anIssuedTicketView(eventId, randomUUID()), tierId },
    });
  const question = (eventId: string) =>
    domainEvent({
      source: 'townhall/engagement',
      type: 'townhall.question.submitted',
      subject: eventId,
      data: {},
    });
  const poll = (eventId: string) =>
    domainEvent({ source: 'townhall/engagement', type: 'townhall.poll.opened', subject: eventId, data: {} });
  // Each consumer's part of `batch`, as its durable hands it over (the counts read no more of a
  // question's or a poll's data than its event).
  const part = <Topic extends string>(topic: Topic, batch: CloudEvent[]) =>
    batch.filter((event) => subjectMatches(topic, event.type)) as Array<DomainEventOf<Topic>>;
  const count = async (batch: CloudEvent[]) => {
    await counts.countTickets(part('townhall.ticket.>', batch));
    await counts.countQuestions(part('townhall.question.>', batch));
    await counts.countPolls(part('townhall.poll.>', batch));
  };

  it('sums tiers, questions and polls of several events, and counts an event redelivered (in the batch or later) once', async () => {
    const [a, b] = [await newEvent(), await newEvent()];
    const issued = ticket('issued', a, 'vip');
    const batch = [
      issued,
      issued, // the same domain event twice in one batch
      ticket('issued', a, 'vip'),
      ticket('issued', a, 'general'),
      ticket('cancelled', a, 'general'),
      ticket('issued', b),
      question(a),
      question(a),
      // a question event that counts nothing
      domainEvent({ source: 'townhall/engagement', type: 'townhall.question.upvoted', subject: a, data: {} }),
      poll(b),
      // a type the counts do not follow
      domainEvent({
        source: 'townhall/ticketing',
        type: 'townhall.ledger.entry_recorded',
        subject: a,
        data: {},
      }),
    ];
    await count(batch);
    expect(await countsOf(a)).toEqual({ tickets_sold: { vip: 2 }, question_count: 2, poll_count: 0 });
    expect(await countsOf(b)).toEqual({ tickets_sold: { general: 1 }, question_count: 0, poll_count: 1 });
    // JetStream hands the whole batch again (an acknowledgement lost): nothing moves.
    await count(batch);
    expect(await countsOf(a)).toEqual({ tickets_sold: { vip: 2 }, question_count: 2, poll_count: 0 });
  });

  it('never counts tickets sold below zero, and keeps the other tiers as they were', async () => {
    const eventId = await newEvent();
    await count([ticket('issued', eventId, 'vip')]);
    await count([ticket('cancelled', eventId, 'general'), ticket('cancelled', eventId, 'general')]);
    expect(await countsOf(eventId)).toEqual({
      tickets_sold: { vip: 1, general: 0 },
      question_count: 0,
      poll_count: 0,
    });
  });

  it('two batches with the same events at once (two replicas) count each once', async () => {
    const eventId = await newEvent();
    const batch = Array.from({ length: 20 }, () => ticket('issued', eventId));
    await Promise.all([count(batch), count([...batch].reverse())]);
    expect(await countsOf(eventId)).toEqual({
      tickets_sold: { general: 20 },
      question_count: 0,
      poll_count: 0,
    });
  });
});
