import { Injectable } from '@nestjs/common';
import { Periodic } from '@townhall/platform/service';
import type { TicketingConfig } from '../config.js';
import { PayRefund } from '../refunds/pay-refund.js';
import { FacilitatorSettlements } from './facilitator-settlements.js';

/**
 * The reconciliation job, where payments go through a facilitator: every
 * SETTLEMENT_RETRY_INTERVAL_MS, on each replica, the ticket payments and the refund payments a
 * facilitator left open are asked about again (each leased by one replica at a time) until the
 * facilitator or the chain says what happened.
 */
@Injectable()
export class PaymentReconciler {
  constructor(
    private readonly settlements: FacilitatorSettlements,
    private readonly refunds: PayRefund,
  ) {}

  /** One pass; returns how many payments it concluded. The ledger leaves none open: no job there. */
  @Periodic<TicketingConfig>({
    every: 'SETTLEMENT_RETRY_INTERVAL_MS',
    runAtStart: true,
    when: (config) => config.X402_FACILITATOR !== 'ledger',
  })
  async reconcile(): Promise<number> {
    return (await this.settlements.reconcile()) + (await this.refunds.reconcile());
  }
}
