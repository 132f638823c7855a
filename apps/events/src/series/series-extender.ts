import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob, type Logger } from '@townhall/platform/service';
import { LOGGER, SERIES_EXTEND_INTERVAL } from '../tokens.js';
import { SeriesService } from './series.service.js';

/**
 * The periodic job that keeps every series materialised up to its horizon as time
 * passes. Safe on every replica at once: creating an occurrence is idempotent.
 */
@Injectable()
export class SeriesExtender implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly job: PeriodicJob;

  constructor(
    series: SeriesService,
    @Inject(SERIES_EXTEND_INTERVAL) intervalMs: number,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.job = new PeriodicJob('series occurrences created', intervalMs, () => series.extendAll(), logger);
  }

  onApplicationBootstrap(): void {
    this.job.start({ runNow: true });
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }
}
