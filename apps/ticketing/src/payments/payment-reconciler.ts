import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '@townhall/platform/service';
import { PayRefund } from '../refunds/pay-refund.js';
import { FacilitatorSettlements } from '../tickets/facilitator-settlements.js';
import { LOGGER, SETTINGS, type Logger, type TicketingSettings } from '../tokens.js';

/**
 * The reconciliation job, where payments go through a facilitator: every
 * SETTLEMENT_RETRY_INTERVAL_MS, on each replica, the ticket payments and the refund payments a
 * facilitator left open are asked about again (each leased by one replica at a time) until the
 * facilitator or the chain says what happened.
 */
@Injectable()
export class PaymentReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly job: PeriodicJob | undefined;

  constructor(
    settlements: FacilitatorSettlements,
    refunds: PayRefund,
    @Inject(SETTINGS) settings: TicketingSettings,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.job =
      settings.facilitator !== 'ledger'
        ? new PeriodicJob(
            'open payments asked again',
            settings.settlementRetryIntervalMs,
            async () => (await settlements.reconcile()) + (await refunds.reconcile()),
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
