import { Injectable } from '@nestjs/common';
import { EventTopics, type DomainEventOf } from '@townhall/contracts';
import { OutboxWriter, claimEventOnce, OnDomainEvent } from '@townhall/platform/service';
import { recordEventStanding } from '../access/event-standing-row.js';
import { ENGAGEMENT_SCHEMA } from '../data-source.js';
import { AssembleRecording } from '../recordings/assemble-recording.js';

export const EVENTS_CONSUMER = 'engagement-events';

/**
 * The events service's domain events (townhall.event.*), each applied exactly once
 * (claimEventOnce in the same transaction as the effect): every one records the event's
 * standing (roles, status) for authorization (access/participants.ts); the end of an event
 * (townhall.event.ended) also closes its polls and assembles its recording.
 */
@Injectable()
export class EventStandings {
  constructor(
    private readonly outbox: OutboxWriter,
    private readonly recordings: AssembleRecording,
  ) {}

  @OnDomainEvent('townhall.event.>', { durable: EVENTS_CONSUMER })
  async record(event: DomainEventOf<'townhall.event.>'>): Promise<void> {
    const view = event.data;
    await this.outbox.run(async (manager) => {
      if (!(await claimEventOnce(manager, ENGAGEMENT_SCHEMA, EVENTS_CONSUMER, event.id))) return;
      await recordEventStanding(manager, view);
      if (event.type === EventTopics.ended) await this.recordings.assemble(manager, view);
    });
  }
}
