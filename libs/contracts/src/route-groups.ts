import { DirectoryRoutes } from './directory.js';
import { ModerationRoutes, PollRoutes, QuestionRoutes, RecordingRoutes, StageRoutes } from './engagement.js';
import { EventRoutes } from './events.js';
import { SeriesRoutes } from './series.js';
import type { HttpRoute } from './http.js';
import { RefundRoutes } from './refunds.js';
import { LedgerRoutes, TicketRoutes } from './ticketing.js';
import { InviteRoutes } from './invites.js';
import { RequestRoutes } from './requests.js';
import { CodeRoutes } from './codes.js';
import { WaitlistRoutes } from './waitlist.js';
import { WebhookRoutes } from './webhooks.js';

/** A group of plain routes under one OpenAPI tag, as `routeGroup` makes it. */
export type RouteGroup = Readonly<Record<string, HttpRoute>>;

/**
 * Every route group, in the order the gateway mounts them and the API document lists their tags.
 * The gateway mounts exactly these (apps/auth-gateway/src/gateway.module.ts), so a new group is
 * served, described and fuzzed once it is here; route-groups.spec.ts fails for a group that is
 * exported but missing.
 */
export const ALL_ROUTE_GROUPS: readonly RouteGroup[] = [
  DirectoryRoutes,
  SeriesRoutes,
  EventRoutes,
  TicketRoutes,
  WaitlistRoutes,
  InviteRoutes,
  RequestRoutes,
  CodeRoutes,
  RefundRoutes,
  LedgerRoutes,
  StageRoutes,
  QuestionRoutes,
  PollRoutes,
  RecordingRoutes,
  ModerationRoutes,
  WebhookRoutes,
];

/** The tag every route of a group shares (`routeGroup`'s first argument). */
export function tagOfGroup(group: RouteGroup): string {
  const tag = Object.values(group)[0]?.tag;
  if (tag === undefined) throw new Error('a route group without routes');
  return tag;
}
