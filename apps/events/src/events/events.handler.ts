import { Controller } from '@nestjs/common';
import { Events, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { EventsService } from './events.service.js';

@Controller()
export class EventsHandler {
  constructor(private readonly events: EventsService) {}

  @Handle(Events.create)
  create(data: ParsedRequestOf<typeof Events.create>, meta: MessageMeta) {
    return this.events.create(signedMeta(meta).caller, data);
  }

  @Handle(Events.list)
  list(data: ParsedRequestOf<typeof Events.list>) {
    return this.events.list(data);
  }

  @Handle(Events.get)
  get(data: ParsedRequestOf<typeof Events.get>) {
    return this.events.get(data.eventId);
  }

  @Handle(Events.update)
  update(data: ParsedRequestOf<typeof Events.update>, meta: MessageMeta) {
    const { caller, requestId } = signedMeta(meta);
    return this.events.update(data.eventId, caller, data.changes, requestId);
  }

  @Handle(Events.transition)
  transition(data: ParsedRequestOf<typeof Events.transition>, meta: MessageMeta) {
    return this.events.transition(data.eventId, signedMeta(meta).caller, data.action);
  }

  @Handle(Events.access)
  access(data: ParsedRequestOf<typeof Events.access>) {
    return this.events.access(data.eventId, data.agentId);
  }
}
