import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import { ALL_ROUTE_GROUPS, tagOfGroup } from '@townhall/contracts';
import { contractRoutes } from './routes/contract-routes.js';
import { DirectoryController } from './directory/directory.controller.js';
import { EventsController } from './events/events.controller.js';
import { SeriesController } from './events/series.controller.js';
import type { CachedReadiness } from './health/cached-readiness.js';
import { HealthController, PUBLIC_READINESS } from './health/health.controller.js';
import { LiveController } from './live/live.controller.js';
import { ReportsController } from './reports/reports.controller.js';
import { ReceiptKeysController } from './tickets/receipt-keys.controller.js';
import { TicketsController } from './tickets/tickets.controller.js';
import { WaitlistController } from './tickets/waitlist.controller.js';

/**
 * The routes that are not plain request/reply, by the tag of the group they stand beside: each
 * is mounted just before that group, which is the order the API document lists them in.
 */
const EXPLICIT_CONTROLLERS: Readonly<Record<string, readonly Type[]>> = {
  Directory: [DirectoryController], // PUT /directory/me answers 201 or 200
  Series: [SeriesController], // calendar files
  Events: [EventsController],
  Tickets: [TicketsController, ReceiptKeysController], // the x402 RSVP, paying a refund, the receipt keys
  Waitlist: [WaitlistController], // joining answers 201 or 200
  Moderation: [ReportsController], // the report, JSON and CSV: its own tag, after the recordings
};
const GROUP_TAGS = new Set(ALL_ROUTE_GROUPS.map(tagOfGroup));
for (const tag of Object.keys(EXPLICIT_CONTROLLERS))
  if (!GROUP_TAGS.has(tag)) throw new Error(`explicit routes beside ${tag}, which is no route group`);

/**
 * The API: every route group of the contracts (ALL_ROUTE_GROUPS, so a new group is served as soon
 * as it is listed there), the explicit routes beside their groups, the probes and the live stream.
 * The pages for people and the API documents are the site's (site/site.ts), added by gateway.ts.
 */
@Module({})
export class GatewayModule {
  static register(services: ServiceClient, readiness: CachedReadiness): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [
        HealthController,
        ...ALL_ROUTE_GROUPS.flatMap((group) => [
          ...(EXPLICIT_CONTROLLERS[tagOfGroup(group)] ?? []),
          contractRoutes(group),
        ]),
        LiveController,
      ],
      providers: [
        { provide: SERVICE_CLIENT, useValue: services },
        { provide: PUBLIC_READINESS, useValue: readiness },
      ],
    };
  }
}
