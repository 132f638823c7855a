import { Injectable } from '@nestjs/common';
import type { SeriesView } from '@townhall/contracts';
import { SeriesBook } from './series-book.js';

/** One series, as anyone may read it: with its follower count and next 10 occurrences. */
@Injectable()
export class GetSeries {
  constructor(private readonly book: SeriesBook) {}

  get(seriesId: string): Promise<SeriesView> {
    return this.book.view(seriesId);
  }
}
