import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient } from '@townhall/sdk';
import type { Budget } from './budget.js';
import { EventResources } from './event-resource.js';
import { registerTools } from './tools/index.js';

export interface McpSettings {
  agent: AgentClient;
  /** Shared by every session of the process: with --http, all sessions together stay within it. */
  budget: Budget;
  /** Solana JSON-RPC for payments on chain. */
  rpcUrl?: string | undefined;
  version: string;
  /** Diagnostics: stderr, never stdout (stdout is the protocol). */
  log: (line: string) => void;
}

/** One MCP session: its server (tools and the event resource) and how to end it. */
interface Session {
  server: McpServer;
  close(): Promise<void>;
}

const INSTRUCTIONS = (agentId: string, budget: bigint) =>
  `You act on Townhall (scheduled townhalls, AMAs, workshops, panels) as the agent ${agentId}: every ` +
  'tool call is signed with its key, so what you do is done by that agent. Reading is free. A paid ' +
  `RSVP pays from the agent's own funds, at most this session's budget (${budget} atomic units; ` +
  'USDC has 6 decimals) and at most the maxPrice you pass; beyond that it is refused with ' +
  'payment.budget and nothing is charged. Refusals are tool errors carrying a stable code (e.g. ' +
  'role.forbidden: only the host may start an event). To follow a live event, read and subscribe to ' +
  'the resource townhall://events/{eventId}.';

function openSession(settings: McpSettings): Session {
  const server = new McpServer(
    { name: 'townhall', title: 'Townhall', version: settings.version },
    { instructions: INSTRUCTIONS(settings.agent.agentId, settings.budget.remaining) },
  );
  registerTools(server, {
    agent: settings.agent,
    budget: settings.budget,
    server,
    rpcUrl: settings.rpcUrl,
  });
  const resources = new EventResources(server, settings.agent, settings.log);
  resources.register();
  return {
    server,
    async close() {
      resources.close();
      await server.close();
    },
  };
}

/**
 * Serves one session over stdin/stdout until the client closes stdin (or `stop` fires): the client
 * (Claude Desktop, Cursor, an agent framework) started this process, and its end is ours.
 */
export async function serveStdio(settings: McpSettings, stop: AbortSignal): Promise<void> {
  const session = openSession(settings);
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await session.server.connect(transport);
  settings.log(
    `townhall mcp: serving ${settings.agent.agentId} on stdio (budget ${settings.budget.remaining})`,
  );
  await ended;
  await session.close();
}

/** Concurrent HTTP sessions at most: each may hold live streams open. */
const MAX_HTTP_SESSIONS = 32;

/**
 * Serves Streamable HTTP at `http://127.0.0.1:<port>/mcp` until `stop` fires: one session per
 * `initialize`, its id in `Mcp-Session-Id`. Bound to the loopback interface only, behind the SDK's
 * Host header validation (a web page cannot reach it through DNS rebinding).
 */
export async function serveHttp(settings: McpSettings, port: number, stop: AbortSignal): Promise<void> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; session: Session }>();
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  const failure = (status: number, message: string) => ({
    status,
    body: { jsonrpc: '2.0', error: { code: -32000, message }, id: null },
  });
  app.all('/mcp', async (request, response) => {
    const sessionId = request.header('mcp-session-id');
    let entry = sessionId === undefined ? undefined : sessions.get(sessionId);
    if (!entry) {
      const refused =
        sessionId !== undefined
          ? failure(404, 'Unknown or closed session: initialize a new one')
          : request.method !== 'POST' || !isInitializeRequest(request.body)
            ? failure(400, 'No session: send initialize first (without Mcp-Session-Id)')
            : sessions.size >= MAX_HTTP_SESSIONS
              ? failure(503, `At most ${MAX_HTTP_SESSIONS} sessions at once: close one (DELETE /mcp)`)
              : undefined;
      if (refused) {
        response.status(refused.status).json(refused.body);
        return;
      }
      const session = openSession(settings);
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, session });
        },
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
        void session.close();
      };
      await session.server.connect(transport);
      entry = { transport, session };
    }
    await entry.transport.handleRequest(request, response, request.body);
  });
  const listener = await new Promise<HttpServer>((resolve, reject) => {
    const bound = app.listen(port, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(bound)));
  });
  const address = listener.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  settings.log(
    `townhall mcp: serving ${settings.agent.agentId} at http://127.0.0.1:${boundPort}/mcp (budget ${settings.budget.remaining})`,
  );
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  for (const { transport, session } of sessions.values()) {
    await transport.close();
    await session.close();
  }
  listener.closeAllConnections();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
}
