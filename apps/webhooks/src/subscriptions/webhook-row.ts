import { DomainError, type WebhookAttemptView, type WebhookView } from '@townhall/contracts';

/** A row of webhooks.subscriptions (see the migrations). */
export interface WebhookRow {
  id: string;
  agent_id: string;
  url: string;
  types: string[];
  event_id: string | null;
  created_at: Date;
}

export const WEBHOOK_COLUMNS = 'id, agent_id, url, types, event_id, created_at';

export function toWebhook(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    eventId: row.event_id,
    createdAt: row.created_at.toISOString(),
  };
}

/** A row of webhooks.attempts. */
export interface AttemptRow {
  message_id: string;
  type: string;
  attempt: number;
  attempted_at: Date;
  status: number | null;
  duration_ms: number;
  error: string | null;
  outcome: WebhookAttemptView['outcome'];
}

export const ATTEMPT_COLUMNS = 'message_id, type, attempt, attempted_at, status, duration_ms, error, outcome';

export function toAttempt(row: AttemptRow): WebhookAttemptView {
  return {
    webhookId: row.message_id,
    type: row.type,
    attempt: row.attempt,
    attemptedAt: row.attempted_at.toISOString(),
    status: row.status,
    durationMs: row.duration_ms,
    error: row.error,
    outcome: row.outcome,
  };
}

/** 404 webhook.not_found: also what another agent's subscription answers (it does not exist for them). */
export function webhookNotFound(webhookId: string): DomainError {
  return new DomainError('webhook.not_found', `You have no webhook subscription ${webhookId}`);
}
