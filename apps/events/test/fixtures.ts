// What the events service's medium tests share: the series' use cases on a real, migrated Postgres,
// with a clock the test moves, so that extending and ending series can be tested over months.
import { createLogger } from '@townhall/platform/service';
import { schemaUnderTest } from '@townhall/testing';
import type { DataSource } from 'typeorm';
import { createEventsDataSource } from '../src/data-source.js';
import type { HostLimits } from '../src/events/host-limits.js';
import { CreateSeries } from '../src/series/create-series.js';
import { EndSeries } from '../src/series/end-series.js';
import { ExtendSeries } from '../src/series/extend-series.js';
import { GetSeries } from '../src/series/get-series.js';
import { SeriesBook } from '../src/series/series-book.js';
import type { EventsSettings } from '../src/settings.js';

export interface SeriesOnPostgres {
  readonly dataSource: DataSource;
  readonly createSeries: CreateSeries;
  readonly getSeries: GetSeries;
  readonly endSeries: EndSeries;
  readonly extendSeries: ExtendSeries;
  /** Closes the data source and drops the database. */
  close(): Promise<void>;
}

/**
 * The series' use cases on the events schema in a database of their own, that read the time from
 * `clock` and allow a host `limits`. Their outbox relay never runs: a test reads the outbox table
 * itself.
 */
export async function seriesOnPostgres(clock: () => Date, limits: HostLimits): Promise<SeriesOnPostgres> {
  const schema = await schemaUnderTest(createEventsDataSource);
  const { outbox } = schema;
  const settings: EventsSettings = {
    publicBaseUrl: 'https://townhall.example',
    reminderLeadMinutes: 15,
    serviceTimeoutMs: 5_000,
    hostLimits: limits,
  };
  const book = new SeriesBook(schema.dataSource, outbox);
  return {
    dataSource: schema.dataSource,
    createSeries: new CreateSeries(outbox, book, clock, settings),
    getSeries: new GetSeries(book),
    endSeries: new EndSeries(outbox, book, clock),
    extendSeries: new ExtendSeries(outbox, book, clock, createLogger('test', 'silent')),
    close: () => schema.close(),
  };
}
