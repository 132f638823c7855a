import { Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DeliveryRetention } from './delivery/delivery-retention.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import type { Resolver } from './delivery/destination.js';
import { WebhookFanOut } from './fan-out/webhook-fan-out.js';
import { WebhookSigner } from './signing/webhook-signer.js';
import { WebhooksHandler } from './subscriptions/webhooks.handler.js';
import { SubscriptionIndex } from './subscriptions/subscription-index.js';
import { WebhookSubscriptions } from './subscriptions/webhook-subscriptions.js';
import { LOGGER, RESOLVER, SETTINGS, type Logger, type WebhooksSettings } from './tokens.js';

export interface WebhooksModuleOptions {
  dataSource: DataSource;
  signer: WebhookSigner;
  resolver: Resolver;
  logger: Logger;
  settings: WebhooksSettings;
}

@Module({})
export class WebhooksModule {
  static register(options: WebhooksModuleOptions): DynamicModule {
    return {
      module: WebhooksModule,
      controllers: [WebhooksHandler],
      providers: [
        { provide: DataSource, useValue: options.dataSource },
        { provide: WebhookSigner, useValue: options.signer },
        { provide: RESOLVER, useValue: options.resolver },
        { provide: LOGGER, useValue: options.logger },
        { provide: SETTINGS, useValue: options.settings },
        SubscriptionIndex,
        WebhookSubscriptions,
        DeliveryWorker,
        DeliveryRetention,
        WebhookFanOut,
      ],
    };
  }
}
