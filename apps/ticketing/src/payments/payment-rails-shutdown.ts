import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { RAILS } from '../tokens.js';
import type { PaymentRails } from './payment-rails.js';

/** Closes the payment rails with the service: solana-local's JSON-RPC and chain state. */
@Injectable()
export class PaymentRailsShutdown implements OnApplicationShutdown {
  constructor(@Inject(RAILS) private readonly rails: PaymentRails) {}

  async onApplicationShutdown(): Promise<void> {
    await this.rails.close();
  }
}
