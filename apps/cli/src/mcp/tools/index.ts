import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { PayingSession } from '../paid-rsvp.js';
import { calling } from '../tool-results.js';
import { registerAgentTools } from './agents.js';
import { registerEventTools } from './events.js';
import { registerLiveTools } from './live.js';
import { registerReportTools } from './reports.js';

/**
 * The agent's actions as MCP tools (apps/cli/README.md "MCP"): one tool per action, every call
 * signed by the session's agent, every result the API's own shape as structured content plus a
 * short text. The descriptions are for a model: what the tool does, who may call it, what it costs.
 */
export function registerTools(server: McpServer, session: PayingSession): void {
  const run = (tool: Parameters<typeof calling>[1]) => calling(session.agent.baseUrl, tool);
  registerAgentTools(server, session, run);
  registerEventTools(server, session, run);
  registerLiveTools(server, session, run);
  registerReportTools(server, session, run);
}
