import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '@townhall/platform/service';
import { LOGGER, SETTINGS, type EngagementSettings, type Logger } from '../tokens.js';
import { PollsService } from './polls.service.js';

/**
 * The periodic sweep that closes polls at their `closesAt`. Safe on every replica at once:
 * closing is a conditional UPDATE of open polls, so each poll is closed (and announced) once.
 */
@Injectable()
export class PollCloser implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly job: PeriodicJob;

  constructor(
    polls: PollsService,
    @Inject(SETTINGS) settings: EngagementSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.job = new PeriodicJob(
      'polls closed at their closesAt',
      settings.pollSweepIntervalMs,
      () => polls.closeDue(),
      logger,
    );
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }
}
