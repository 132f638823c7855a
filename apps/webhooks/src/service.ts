import { systemResolver } from '@townhall/platform/outbound';
import {
  ConfigError,
  domainService,
  openDataSource,
  type DomainService,
  type Logger,
  type ServiceDefinition,
} from '@townhall/platform/service';
import { WebhooksConfigSchema, type WebhooksConfig } from './config.js';
import { createWebhooksDataSource, WEBHOOKS_SCHEMA } from './data-source.js';
import { WebhookKeyError, WebhookSigner } from './signing/webhook-signer.js';
import { WebhooksModule } from './webhooks.module.js';

/** The webhooks service, whatever runs it (its own process, or standalone mode). */
async function defineWebhooks(
  config: WebhooksConfig,
  logger: Logger,
): Promise<Omit<ServiceDefinition, 'name' | 'config'>> {
  const signer = signerOf(config, logger);
  if (config.TOWNHALL_ENV === 'production' && config.WEBHOOK_ALLOW_PRIVATE)
    throw new ConfigError(
      'Invalid configuration:\n  WEBHOOK_ALLOW_PRIVATE: must not be true in production (it lets any agent make the service call private addresses)',
    );
  const dataSource = await openDataSource(createWebhooksDataSource, config);
  return {
    dataSource,
    serviceTimeoutMs: config.SERVICE_TIMEOUT_MS,
    module: ({ services }) =>
      WebhooksModule.register({
        dataSource,
        services,
        signer,
        resolver: systemResolver,
        logger,
        settings: {
          destinations: {
            allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
            httpsOnly: config.TOWNHALL_ENV === 'production',
          },
          retry: { baseMs: config.WEBHOOK_RETRY_BASE_MS, windowMs: config.WEBHOOK_RETRY_WINDOW_MS },
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
          concurrency: config.WEBHOOK_CONCURRENCY,
          subscriptionsPerAgent: config.WEBHOOKS_PER_AGENT_LIMIT,
          listen: config.WEBHOOK_LISTEN,
        },
      }),
  };
}

/** The signing key: WEBHOOK_SIGNING_KEY, required in staging and production. */
function signerOf(config: WebhooksConfig, logger: Logger): WebhookSigner {
  if (config.WEBHOOK_SIGNING_KEY !== undefined) {
    try {
      return WebhookSigner.fromSecret(config.WEBHOOK_SIGNING_KEY);
    } catch (error) {
      if (error instanceof WebhookKeyError)
        throw new ConfigError(`Invalid configuration:\n  WEBHOOK_SIGNING_KEY: ${error.message}`);
      throw error;
    }
  }
  if (config.TOWNHALL_ENV !== 'development')
    throw new ConfigError(
      `Invalid configuration:\n  WEBHOOK_SIGNING_KEY: required in ${config.TOWNHALL_ENV} (whsk_ + the base64 of a 32-byte Ed25519 seed)`,
    );
  const { signer } = WebhookSigner.generate();
  logger.warn(
    { keyId: signer.key.keyId },
    'WEBHOOK_SIGNING_KEY is not set: deliveries are signed with a key made up for this process (it changes at every start, and differs between replicas)',
  );
  return signer;
}

/** The webhooks service, as its process, its migrate command, standalone mode and its service tests run it. */
export const webhooks: DomainService<WebhooksConfig> = domainService({
  name: 'webhooks',
  schema: WEBHOOKS_SCHEMA,
  configSchema: WebhooksConfigSchema,
  define: defineWebhooks,
  dataSource: createWebhooksDataSource,
});

export { WebhooksConfigSchema, type WebhooksConfig } from './config.js';
export { WebhookSigner } from './signing/webhook-signer.js';
