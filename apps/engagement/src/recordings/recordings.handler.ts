import { Controller } from '@nestjs/common';
import { Recordings, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';

import { RecordingsService } from './recordings.service.js';

@Controller()
export class RecordingsHandler {
  constructor(private readonly recordings: RecordingsService) {}

  @Handle(Recordings.get)
  get(data: ParsedRequestOf<typeof Recordings.get>, meta: MessageMeta) {
    return this.recordings.get(data.eventId, meta, { limit: data.limit, cursor: data.cursor });
  }

  @Handle(Recordings.publish)
  publish(data: ParsedRequestOf<typeof Recordings.publish>, meta: MessageMeta) {
    return this.recordings.publish(signedMeta(meta), data.eventId, data);
  }
}
