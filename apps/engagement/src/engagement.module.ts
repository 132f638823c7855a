import { Module, type DynamicModule } from '@nestjs/common';
import { OutboxWriter, type Logger, type OutboxRelay, type ServiceClient } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { Participants } from './access/participants.js';
import { BlocksHandler } from './blocks/blocks.handler.js';
import { BlocksService } from './blocks/blocks.service.js';
import { ENGAGEMENT_SCHEMA } from './data-source.js';
import { PollsHandler } from './polls/polls.handler.js';
import { PollsService } from './polls/polls.service.js';
import { EventStandings } from './projection/event-standings.js';
import { TicketAttendance } from './projection/ticket-attendance.js';
import { QuestionsHandler } from './questions/questions.handler.js';
import { QuestionsService } from './questions/questions.service.js';
import { RecordingsHandler } from './recordings/recordings.handler.js';
import { RecordingsService } from './recordings/recordings.service.js';
import { StageHandler } from './stage/stage.handler.js';
import { StageService } from './stage/stage.service.js';
import { LOGGER, SERVICES, SETTINGS, type EngagementSettings } from './tokens.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/engagement';

export interface EngagementModuleOptions {
  dataSource: DataSource;
  relay: OutboxRelay;
  services: ServiceClient;
  logger: Logger;
  settings: EngagementSettings;
}

@Module({})
export class EngagementModule {
  static register(options: EngagementModuleOptions): DynamicModule {
    return {
      module: EngagementModule,
      controllers: [StageHandler, QuestionsHandler, PollsHandler, RecordingsHandler, BlocksHandler],
      providers: [
        { provide: DataSource, useValue: options.dataSource },
        {
          provide: OutboxWriter,
          useValue: new OutboxWriter(options.dataSource, options.relay, {
            schema: ENGAGEMENT_SCHEMA,
            source: SOURCE,
          }),
        },
        { provide: SERVICES, useValue: options.services },
        { provide: LOGGER, useValue: options.logger },
        { provide: SETTINGS, useValue: options.settings },
        Participants,
        StageService,
        QuestionsService,
        PollsService,
        RecordingsService,
        BlocksService,
        EventStandings,
        TicketAttendance,
      ],
    };
  }
}
