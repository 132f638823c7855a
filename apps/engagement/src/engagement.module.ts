import { Module, type DynamicModule } from '@nestjs/common';
import { OutboxWriter, type Logger, type OutboxRelay, type ServiceClient } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { Participants } from './access/participants.js';
import { AttendanceBook } from './attendance/attendance-book.js';
import { AttendanceHandler } from './attendance/attendance.handler.js';
import { RecordPresence } from './attendance/record-presence.js';
import { BlocksHandler } from './blocks/blocks.handler.js';
import { BlocksService } from './blocks/blocks.service.js';
import { ENGAGEMENT_SCHEMA } from './data-source.js';
import { CastBallot } from './polls/cast-ballot.js';
import { ClosePolls } from './polls/close-polls.js';
import { ListPolls } from './polls/list-polls.js';
import { OpenPoll } from './polls/open-poll.js';
import { PollBook } from './polls/poll-book.js';
import { PollsHandler } from './polls/polls.handler.js';
import { EventStandings } from './projection/event-standings.js';
import { TicketAttendance } from './projection/ticket-attendance.js';
import { ListQuestions } from './questions/list-questions.js';
import { ModerateQuestion } from './questions/moderate-question.js';
import { QuestionBook } from './questions/question-book.js';
import { QuestionsHandler } from './questions/questions.handler.js';
import { ReportQuestion } from './questions/report-question.js';
import { SubmitQuestion } from './questions/submit-question.js';
import { UpvoteQuestion } from './questions/upvote-question.js';
import { WithdrawQuestion } from './questions/withdraw-question.js';
import { RecordingsHandler } from './recordings/recordings.handler.js';
import { RecordingsService } from './recordings/recordings.service.js';
import { EngagementReportOf } from './reports/engagement-report.js';
import { LiveWindows } from './reports/live-window.js';
import { ReportsHandler } from './reports/reports.handler.js';
import { HideStageMessage } from './stage/hide-stage-message.js';
import { ListStage } from './stage/list-stage.js';
import { PostToStage } from './stage/post-to-stage.js';
import { StageBook } from './stage/stage-book.js';
import { StageHandler } from './stage/stage.handler.js';
import { CLOCK, LOGGER, SERVICES, SETTINGS, type Clock, type EngagementSettings } from './tokens.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/engagement';

export interface EngagementModuleOptions {
  dataSource: DataSource;
  relay: OutboxRelay;
  services: ServiceClient;
  logger: Logger;
  settings: EngagementSettings;
  /** "Now" for attendance and the report; the machine's clock unless a test gives another. */
  clock?: Clock;
}

@Module({})
export class EngagementModule {
  static register(options: EngagementModuleOptions): DynamicModule {
    return {
      module: EngagementModule,
      controllers: [
        StageHandler,
        QuestionsHandler,
        PollsHandler,
        RecordingsHandler,
        BlocksHandler,
        AttendanceHandler,
        ReportsHandler,
      ],
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
        { provide: CLOCK, useValue: options.clock ?? (() => new Date()) },
        Participants,
        StageBook,
        PostToStage,
        HideStageMessage,
        ListStage,
        QuestionBook,
        SubmitQuestion,
        UpvoteQuestion,
        WithdrawQuestion,
        ReportQuestion,
        ModerateQuestion,
        ListQuestions,
        PollBook,
        OpenPoll,
        CastBallot,
        ClosePolls,
        ListPolls,
        RecordingsService,
        BlocksService,
        EventStandings,
        TicketAttendance,
        RecordPresence,
        AttendanceBook,
        LiveWindows,
        EngagementReportOf,
      ],
    };
  }
}
