export * from './agent-client.js';
export type { LiveEvent, LiveHistoryCut, LiveOptions } from './live-events.js';
export {
  acceptedAssetsOn,
  acceptsAsset,
  PaymentRefusedError,
  USDC_ASSETS,
  type PaymentCheck,
  type PaymentField,
} from './payment-checks.js';
export { SseParser, type SseMessage } from './sse-parser.js';
export * from './townhall-error.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookRequestHeaders,
} from './webhook-verifier.js';
export {
  generateAgentKey,
  agentKeyFromSecret,
  signRequest,
  signMessageRequest,
  type AgentKey,
  type MessageKeyid,
  type MessageSignatureHeaders,
  type SignedHeaders,
  type SignMessageRequestInput,
  type SignRequestInput,
} from '@townhall/auth/portable';
// The shapes AgentClient takes and returns, so a caller can name them (one source: libs/contracts).
export type {
  AccessMode,
  AccessRequestView,
  BalanceView,
  BlockView,
  CardInput,
  CloudEvent,
  CodeView,
  CreateSeriesInput,
  DirectoryCard,
  EventChangesInput,
  EventFieldsInput,
  EventListQueryInput,
  EventReport,
  EventView,
  InvitesAdded,
  InviteView,
  LedgerEntryView,
  Page,
  PollView,
  QuestionState,
  QuestionView,
  RecordingView,
  RefundView,
  RequestStatus,
  SeriesView,
  StageMessageView,
  TicketView,
  WebhookAttemptView,
  WebhookKey,
  WebhookView,
} from '@townhall/contracts';
export type { PaymentRequirements, PaymentResponse } from '@townhall/x402';
