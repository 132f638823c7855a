import { Module, type DynamicModule } from '@nestjs/common';
import { SERVICE_CLIENT, type ReadinessCheck, type ServiceClient } from '@townhall/platform';
import {
  DirectoryRoutes,
  EventRoutes,
  LedgerRoutes,
  PollRoutes,
  QuestionRoutes,
  ModerationRoutes,
  RefundRoutes,
  RecordingRoutes,
  SeriesRoutes,
  StageRoutes,
  TicketRoutes,
  WaitlistRoutes,
  WebhookRoutes,
} from '@townhall/contracts';
import { contractRoutes } from './routes/contract-routes.js';
import { DirectoryController } from './directory/directory.controller.js';
import { EventsController } from './events/events.controller.js';
import { SeriesController } from './events/series.controller.js';
import { HealthController, READINESS_CHECKS } from './health/health.controller.js';
import { LiveController } from './live/live.controller.js';
import { OpenApiController } from './openapi/openapi.controller.js';
import { AsyncApiController } from './asyncapi/asyncapi.controller.js';
import { TicketsController } from './tickets/tickets.controller.js';
import { WaitlistController } from './tickets/waitlist.controller.js';
import { WatchAssetsController } from './watch/watch-assets.js';
import { WatchController } from './watch/watch.controller.js';

@Module({})
export class GatewayModule {
  static register(services: ServiceClient, readiness: Record<string, ReadinessCheck>): DynamicModule {
    return {
      module: GatewayModule,
      // Series routes before events routes: /events/series/... must not be taken for /events/:id.
      controllers: [
        HealthController,
        DirectoryController,
        contractRoutes(DirectoryRoutes),
        SeriesController,
        contractRoutes(SeriesRoutes),
        EventsController,
        contractRoutes(EventRoutes),
        TicketsController,
        contractRoutes(TicketRoutes),
        WaitlistController,
        contractRoutes(WaitlistRoutes),
        contractRoutes(RefundRoutes),
        contractRoutes(LedgerRoutes),
        contractRoutes(StageRoutes),
        contractRoutes(QuestionRoutes),
        contractRoutes(PollRoutes),
        contractRoutes(RecordingRoutes),
        contractRoutes(ModerationRoutes),
        contractRoutes(WebhookRoutes),
        LiveController,
        OpenApiController,
        AsyncApiController,
        // Pages for people (HTML), not operations of the API document.
        WatchController,
        WatchAssetsController,
      ],
      providers: [
        { provide: SERVICE_CLIENT, useValue: services },
        { provide: READINESS_CHECKS, useValue: readiness },
      ],
    };
  }
}
