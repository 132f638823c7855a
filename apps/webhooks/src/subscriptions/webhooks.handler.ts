import { Controller } from '@nestjs/common';
import { signedMeta, Webhooks, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { WebhookSigner } from '../signing/webhook-signer.js';
import { WebhookSubscriptions } from './webhook-subscriptions.js';

/** The webhooks service's message handlers: one per contract in libs/contracts/src/webhooks.ts. */
@Controller()
export class WebhooksHandler {
  constructor(
    private readonly subscriptions: WebhookSubscriptions,
    private readonly signer: WebhookSigner,
  ) {}

  @Handle(Webhooks.create)
  async create(data: ParsedRequestOf<typeof Webhooks.create>, meta: MessageMeta) {
    return this.subscriptions.create(signedMeta(meta).caller, data);
  }

  @Handle(Webhooks.list)
  async list(_data: ParsedRequestOf<typeof Webhooks.list>, meta: MessageMeta) {
    return this.subscriptions.list(signedMeta(meta).caller);
  }

  @Handle(Webhooks.delete)
  async delete(data: ParsedRequestOf<typeof Webhooks.delete>, meta: MessageMeta) {
    return this.subscriptions.delete(signedMeta(meta).caller, data.webhookId);
  }

  @Handle(Webhooks.deliveries)
  async deliveries(data: ParsedRequestOf<typeof Webhooks.deliveries>, meta: MessageMeta) {
    return this.subscriptions.attempts(signedMeta(meta).caller, data.webhookId);
  }

  @Handle(Webhooks.key)
  async key() {
    return this.signer.key;
  }
}
