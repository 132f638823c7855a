export * from './agent-client.js';
export type { LiveEvent, LiveHistoryCut, LiveOptions } from './live-events.js';
export { SseParser, type SseMessage } from './sse-parser.js';
export * from './townhall-error.js';
export {
  generateAgentKey,
  agentKeyFromSecret,
  type AgentKey,
  type SignedHeaders,
} from '@townhall/auth/portable';
