// What the events service's medium tests share: the series service on a real, migrated Postgres,
// with a clock the test moves, so that extending and ending series can be tested over months.
import { createLogger } from '@townhall/platform/service';
import { schemaUnderTest } from '@townhall/testing';
import type { DataSource } from 'typeorm';
import { createEventsDataSource } from '../src/data-source.js';
import type { HostLimits } from '../src/events/host-limits.js';
import { SeriesService } from '../src/series/series.service.js';

export interface SeriesOnPostgres {
  readonly dataSource: DataSource;
  readonly series: SeriesService;
  /** Closes the data source and drops the database. */
  close(): Promise<void>;
}

/**
 * The series service on the events schema in a database of its own, that reads the time from
 * `clock` and allows a host `limits`. Its outbox relay never runs: a test reads the outbox table
 * itself.
 */
export async function seriesOnPostgres(clock: () => Date, limits: HostLimits): Promise<SeriesOnPostgres> {
  const schema = await schemaUnderTest(createEventsDataSource);
  const series = new SeriesService(
    schema.dataSource,
    schema.outbox,
    clock,
    createLogger('test', 'silent'),
    limits,
  );
  return { dataSource: schema.dataSource, series, close: () => schema.close() };
}
