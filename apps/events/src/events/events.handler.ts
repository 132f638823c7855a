import { Controller } from '@nestjs/common';
import { Events, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { CreateEvent } from './create-event.js';
import { GetEventAccess } from './get-event-access.js';
import { GetEvent } from './get-event.js';
import { ListEvents } from './list-events.js';
import { TransitionEvent } from './transition-event.js';
import { UpdateEvent } from './update-event.js';

/**
 * Events' message handlers (docs/product.md "Event lifecycle"): one per contract of `Events` but
 * the calendar file (CalendarHandler).
 */
@Controller()
export class EventsHandler {
  constructor(
    private readonly creations: CreateEvent,
    private readonly lists: ListEvents,
    private readonly reads: GetEvent,
    private readonly updates: UpdateEvent,
    private readonly transitions: TransitionEvent,
    private readonly accesses: GetEventAccess,
  ) {}

  @Handle(Events.create)
  create(data: ParsedRequestOf<typeof Events.create>, meta: MessageMeta) {
    return this.creations.create(signedMeta(meta).caller, data);
  }

  @Handle(Events.list)
  list(data: ParsedRequestOf<typeof Events.list>) {
    return this.lists.list(data);
  }

  @Handle(Events.get)
  get(data: ParsedRequestOf<typeof Events.get>) {
    return this.reads.get(data.eventId);
  }

  @Handle(Events.update)
  update(data: ParsedRequestOf<typeof Events.update>, meta: MessageMeta) {
    const { caller, requestId } = signedMeta(meta);
    return this.updates.update(data.eventId, caller, data.changes, requestId);
  }

  @Handle(Events.transition)
  transition(data: ParsedRequestOf<typeof Events.transition>, meta: MessageMeta) {
    return this.transitions.transition(data.eventId, signedMeta(meta).caller, data.action);
  }

  @Handle(Events.access)
  access(data: ParsedRequestOf<typeof Events.access>) {
    return this.accesses.access(data.eventId, data.agentId);
  }
}
