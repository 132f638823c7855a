import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '@townhall/platform/service';
import { LOGGER, SETTINGS, type Logger, type TicketingSettings } from '../tokens.js';
import { PayRefund } from './pay-refund.js';

/**
 * Asks again about every refund payment still settling, every SETTLEMENT_RETRY_INTERVAL_MS, on
 * each replica (a refund is leased by one at a time); only where payments go through a facilitator.
 */
@Injectable()
export class RefundReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly job: PeriodicJob | undefined;

  constructor(
    refunds: PayRefund,
    @Inject(SETTINGS) settings: TicketingSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.job =
      settings.facilitator !== 'ledger'
        ? new PeriodicJob(
            'refund payments asked again',
            settings.settlementRetryIntervalMs,
            () => refunds.reconcile(),
            logger,
          )
        : undefined;
  }

  onApplicationBootstrap(): void {
    this.job?.start({ runNow: true });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job?.stop();
  }
}
