import { Injectable } from '@nestjs/common';
import { EventTopics, type CloudEvent, type EventView } from '@townhall/contracts';
import { Changes, claimEventOnce } from '@townhall/platform/service';
import { ENGAGEMENT_SCHEMA } from '../data-source.js';
import { RecordingsService } from '../recordings/recordings.service.js';

export const EVENT_ENDINGS_CONSUMER = 'engagement-events';
/** One subject per durable consumer: several filters on one consumer need NATS 2.10. */
export const EVENT_SUBJECTS = ['townhall.event.>'];

/**
 * Reacts to the end of an event (townhall.event.ended): closes its polls and assembles its
 * recording, exactly once (claimEventOnce in the same transaction as the effect).
 */
@Injectable()
export class EventEndings {
  constructor(
    private readonly changes: Changes,
    private readonly recordings: RecordingsService,
  ) {}

  async handle(event: CloudEvent): Promise<void> {
    if (event.type !== EventTopics.ended) return;
    await this.changes.run(async (manager) => {
      if (!(await claimEventOnce(manager, ENGAGEMENT_SCHEMA, EVENT_ENDINGS_CONSUMER, event.id))) return;
      await this.recordings.assemble(manager, event.data as EventView);
    });
  }
}
