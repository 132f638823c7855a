import { Controller } from '@nestjs/common';
import { Recordings, type MessageMeta, type ParsedRequestOf, signedMeta } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { PublishRecording } from './publish-recording.js';
import { ReadRecording } from './read-recording.js';

/** Recordings' message handlers (docs/product.md "Recordings"): one per contract of `Recordings`. */
@Controller()
export class RecordingsHandler {
  constructor(
    private readonly reads: ReadRecording,
    private readonly publishing: PublishRecording,
  ) {}

  @Handle(Recordings.get)
  get(data: ParsedRequestOf<typeof Recordings.get>, meta: MessageMeta) {
    return this.reads.read(data.eventId, meta, { limit: data.limit, cursor: data.cursor });
  }

  @Handle(Recordings.publish)
  publish(data: ParsedRequestOf<typeof Recordings.publish>, meta: MessageMeta) {
    return this.publishing.publish(signedMeta(meta), data.eventId, data);
  }
}
