import { Controller } from '@nestjs/common';
import { signedMeta, Webhooks, type MessageMeta, type ParsedRequestOf } from '@townhall/contracts';
import { Handle } from '@townhall/platform/service';
import { WebhookSigner } from '../signing/webhook-signer.js';
import { CreateWebhook } from './create-webhook.js';
import { DeleteWebhook } from './delete-webhook.js';
import { ListDeliveries } from './list-deliveries.js';
import { ListWebhooks } from './list-webhooks.js';

/** The webhooks service's message handlers: one per contract in libs/contracts/src/webhooks.ts. */
@Controller()
export class WebhooksHandler {
  constructor(
    private readonly creations: CreateWebhook,
    private readonly lists: ListWebhooks,
    private readonly deletions: DeleteWebhook,
    private readonly deliveryLists: ListDeliveries,
    private readonly signer: WebhookSigner,
  ) {}

  @Handle(Webhooks.create)
  async create(data: ParsedRequestOf<typeof Webhooks.create>, meta: MessageMeta) {
    return this.creations.create(signedMeta(meta).caller, data);
  }

  @Handle(Webhooks.list)
  async list(_data: ParsedRequestOf<typeof Webhooks.list>, meta: MessageMeta) {
    return this.lists.list(signedMeta(meta).caller);
  }

  @Handle(Webhooks.delete)
  async delete(data: ParsedRequestOf<typeof Webhooks.delete>, meta: MessageMeta) {
    return this.deletions.delete(signedMeta(meta).caller, data.webhookId);
  }

  @Handle(Webhooks.deliveries)
  async deliveries(data: ParsedRequestOf<typeof Webhooks.deliveries>, meta: MessageMeta) {
    return this.deliveryLists.list(signedMeta(meta).caller, data.webhookId);
  }

  /** The public key that deliveries are signed with (the signer is this service's own value). */
  @Handle(Webhooks.key)
  async key() {
    return this.signer.key;
  }
}
