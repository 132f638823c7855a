import { Controller } from '@nestjs/common';
import { Series, signedMeta, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { CreateSeries } from './create-series.js';
import { EndSeries } from './end-series.js';
import { FollowSeries } from './follow-series.js';
import { GetSeries } from './get-series.js';
import { ListSeries } from './list-series.js';

/**
 * Series' message handlers (docs/product.md "Series"): one per contract of `Series` but the
 * calendar file (CalendarHandler).
 */
@Controller()
export class SeriesHandler {
  constructor(
    private readonly creations: CreateSeries,
    private readonly lists: ListSeries,
    private readonly reads: GetSeries,
    private readonly endings: EndSeries,
    private readonly follows: FollowSeries,
  ) {}

  @Handle(Series.create)
  create(data: ParsedRequestOf<typeof Series.create>, meta: MessageMeta) {
    return this.creations.create(signedMeta(meta).caller, data);
  }

  @Handle(Series.list)
  list(data: ParsedRequestOf<typeof Series.list>) {
    return this.lists.list(data);
  }

  @Handle(Series.get)
  get(data: ParsedRequestOf<typeof Series.get>) {
    return this.reads.get(data.seriesId);
  }

  @Handle(Series.end)
  end(data: ParsedRequestOf<typeof Series.end>, meta: MessageMeta) {
    return this.endings.end(data.seriesId, signedMeta(meta).caller);
  }

  @Handle(Series.follow)
  follow(data: ParsedRequestOf<typeof Series.follow>, meta: MessageMeta) {
    return this.follows.follow(data.seriesId, signedMeta(meta).caller, data.follow);
  }
}
