import { Module, type DynamicModule } from '@nestjs/common';
import type { Resolver } from '@townhall/platform/outbound';
import { domainModuleWithoutOutbox, type DomainModuleWithoutOutboxOptions } from '@townhall/platform/service';
import { DeliveryRetention } from './delivery/delivery-retention.js';
import { DeliveryWorker } from './delivery/delivery-worker.js';
import { RESOLVER } from './destination-resolver.js';
import { WebhookFanOut } from './fan-out/webhook-fan-out.js';
import type { WebhooksSettings } from './settings.js';
import { WebhookSigner } from './signing/webhook-signer.js';
import { CreateWebhook } from './subscriptions/create-webhook.js';
import { DeleteWebhook } from './subscriptions/delete-webhook.js';
import { ListDeliveries } from './subscriptions/list-deliveries.js';
import { ListWebhooks } from './subscriptions/list-webhooks.js';
import { SubscriptionIndex } from './subscriptions/subscription-index.js';
import { WebhooksHandler } from './subscriptions/webhooks.handler.js';

export interface WebhooksModuleOptions extends DomainModuleWithoutOutboxOptions<WebhooksSettings> {
  signer: WebhookSigner;
  resolver: Resolver;
}

/** What the module is made of (libs/platform domainModule). */
const LAYOUT = {
  handlers: [WebhooksHandler],
  useCases: [CreateWebhook, ListWebhooks, DeleteWebhook, ListDeliveries],
  parts: [SubscriptionIndex, WebhookFanOut, DeliveryWorker, DeliveryRetention],
};

/** It publishes no domain events (it consumes them all: its own would loop), so it has no outbox. */
@Module({})
export class WebhooksModule {
  static register(options: WebhooksModuleOptions): DynamicModule {
    return domainModuleWithoutOutbox(WebhooksModule, options, {
      ...LAYOUT,
      provide: [
        { provide: WebhookSigner, useValue: options.signer },
        { provide: RESOLVER, useValue: options.resolver },
      ],
    });
  }
}
