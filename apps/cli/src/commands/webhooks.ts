import type { WebhookAttemptView, WebhookView } from '@townhall/contracts';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';
import { collect } from '../option-parsers.js';
import { table } from '../render/table.js';

function webhookLine(webhook: WebhookView): string {
  const scope = webhook.eventId ? ` (event ${webhook.eventId})` : '';
  return `${webhook.id}  ${webhook.url}  ${webhook.types.join(',')}${scope}`;
}

function webhookTable(webhooks: WebhookView[]): string[] {
  if (webhooks.length === 0) return ['no webhooks'];
  return table(
    webhooks.map((webhook) => [
      webhook.id,
      webhook.eventId ?? 'all events',
      webhook.types.join(','),
      webhook.url,
    ]),
    ['ID', 'EVENT', 'TYPES', 'URL'],
  );
}

function attemptTable(attempts: WebhookAttemptView[]): string[] {
  if (attempts.length === 0) return ['no delivery attempts yet'];
  return table(
    attempts.map((attempt) => [
      attempt.attemptedAt,
      attempt.type,
      String(attempt.attempt),
      attempt.status === null ? '-' : String(attempt.status),
      `${attempt.durationMs} ms`,
      attempt.outcome,
      attempt.error ?? '',
    ]),
    ['WHEN', 'TYPE', 'TRY', 'STATUS', 'TOOK', 'OUTCOME', 'ERROR'],
  );
}

/** `webhooks create|list|delete|deliveries|key`: domain events POSTed to your URL, signed. */
export function registerWebhooks(program: Command, io: CliIo): void {
  const webhooks = program
    .command('webhooks')
    .description('domain events you may see, POSTed to your URL and signed (Standard Webhooks, v1a)');

  webhooks
    .command('create')
    .description('subscribe a URL (https in production) to domain event types; at most 20')
    .argument('<url>', 'where to POST each domain event')
    .requiredOption(
      '--type <type>',
      'a domain event type, e.g. townhall.ticket.issued, or townhall.<aggregate>.* (repeatable)',
      collect,
    )
    .option('--event <eventId>', 'only the domain events of this event')
    .action(async (url: string, options: { type: string[]; event?: string }, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      const webhook = await agent.webhooks.create({
        url,
        types: options.type,
        ...(options.event === undefined ? {} : { eventId: options.event }),
      });
      context.print(webhook, (created) => [
        `subscribed ${webhookLine(created)}`,
        'verify each delivery with the public key of `townhall webhooks key` (docs/protocol/webhooks.md)',
      ]);
    });

  webhooks
    .command('list')
    .description('your webhook subscriptions')
    .action(async (_options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.webhooks.list(), (page) => webhookTable(page.items));
    });

  webhooks
    .command('delete')
    .description('delete a subscription (its pending deliveries are dropped)')
    .argument('<webhookId>')
    .action(async (webhookId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.webhooks.delete(webhookId), (deleted) => `deleted ${webhookLine(deleted)}`);
    });

  webhooks
    .command('deliveries')
    .description('the latest 100 delivery attempts of a subscription, newest first')
    .argument('<webhookId>')
    .action(async (webhookId: string, _options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const agent = await context.agent();
      context.print(await agent.webhooks.deliveries(webhookId), (page) => attemptTable(page.items));
    });

  webhooks
    .command('key')
    .description("the service's public key that signs every delivery (public)")
    .action(async (_options: unknown, command: Command) => {
      const context = contextOf(command, io);
      context.print(await context.visitor().webhooks.key(), (key) => [
        `${key.publicKey}  (${key.algorithm}, keyId ${key.keyId})`,
      ]);
    });
}
