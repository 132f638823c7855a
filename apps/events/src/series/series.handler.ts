import { Controller } from '@nestjs/common';
import { Series, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { SeriesService } from './series.service.js';

@Controller()
export class SeriesHandler {
  constructor(private readonly series: SeriesService) {}

  @Handle(Series.create)
  create(data: ParsedRequestOf<typeof Series.create>, meta: MessageMeta) {
    return this.series.create(signedMeta(meta).caller, data);
  }

  @Handle(Series.list)
  list(data: ParsedRequestOf<typeof Series.list>) {
    return this.series.list(data);
  }

  @Handle(Series.get)
  get(data: ParsedRequestOf<typeof Series.get>) {
    return this.series.get(data.seriesId);
  }

  @Handle(Series.end)
  end(data: ParsedRequestOf<typeof Series.end>, meta: MessageMeta) {
    return this.series.end(data.seriesId, signedMeta(meta).caller);
  }

  @Handle(Series.follow)
  follow(data: ParsedRequestOf<typeof Series.follow>, meta: MessageMeta) {
    return this.series.follow(data.seriesId, signedMeta(meta).caller, data.follow);
  }
}
