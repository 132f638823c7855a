import { Module, type DynamicModule } from '@nestjs/common';
import { domainModule, type DomainModuleOptions } from '@townhall/platform/service';
import { ENGAGEMENT_SCHEMA } from './data-source.js';
import type { EngagementSettings } from './settings.js';
import { Participants } from './access/participants.js';
import { AttendanceBook } from './attendance/attendance-book.js';
import { AttendanceHandler } from './attendance/attendance.handler.js';
import { RecordPresence } from './attendance/record-presence.js';
import { BlockAgent } from './blocks/block-agent.js';
import { BlocksHandler } from './blocks/blocks.handler.js';
import { ListBlocks } from './blocks/list-blocks.js';
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
import { AssembleRecording } from './recordings/assemble-recording.js';
import { PublishRecording } from './recordings/publish-recording.js';
import { ReadRecording } from './recordings/read-recording.js';
import { RecordingBook } from './recordings/recording-book.js';
import { RecordingsHandler } from './recordings/recordings.handler.js';
import { EngagementReportOf } from './reports/engagement-report.js';
import { LiveWindows } from './reports/live-window.js';
import { ReportsHandler } from './reports/reports.handler.js';
import { HideStageMessage } from './stage/hide-stage-message.js';
import { ListStage } from './stage/list-stage.js';
import { PostToStage } from './stage/post-to-stage.js';
import { StageBook } from './stage/stage-book.js';
import { StageHandler } from './stage/stage.handler.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/engagement';

export type EngagementModuleOptions = DomainModuleOptions<EngagementSettings>;

/** What the module is made of (libs/platform domainModule). */
const LAYOUT = {
  schema: ENGAGEMENT_SCHEMA,
  source: SOURCE,
  handlers: [
    StageHandler,
    QuestionsHandler,
    PollsHandler,
    RecordingsHandler,
    BlocksHandler,
    AttendanceHandler,
    ReportsHandler,
  ],
  useCases: [
    PostToStage,
    HideStageMessage,
    ListStage,
    SubmitQuestion,
    UpvoteQuestion,
    WithdrawQuestion,
    ReportQuestion,
    ModerateQuestion,
    ListQuestions,
    OpenPoll,
    CastBallot,
    ClosePolls,
    ListPolls,
    AssembleRecording,
    ReadRecording,
    PublishRecording,
    BlockAgent,
    ListBlocks,
    RecordPresence,
    EngagementReportOf,
  ],
  parts: [
    Participants,
    StageBook,
    QuestionBook,
    PollBook,
    RecordingBook,
    EventStandings,
    TicketAttendance,
    AttendanceBook,
    LiveWindows,
  ],
};

@Module({})
export class EngagementModule {
  static register(options: EngagementModuleOptions): DynamicModule {
    return domainModule(EngagementModule, options, LAYOUT);
  }
}
