import { createServer } from 'node:http';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AgentClient } from '@townhall/sdk';
import { bearerGuard } from './bearer-token.js';
import type { Budget } from './budget.js';
import { EventResources } from './event-resource.js';
import { HttpSessions, type Session } from './http-sessions.js';
import { PaymentFollowUp, ticketLookup } from './payment-follow-up.js';
import { registerTools } from './tools/index.js';

export interface McpSettings {
  agent: AgentClient;
  /** Shared by every session of the process: with --http, all sessions together stay within it. */
  budget: Budget;
  /** `--asset`: the asset the budget counts, and the one payments are signed in. */
  asset?: string | undefined;
  /** Solana JSON-RPC for payments on chain. */
  rpcUrl?: string | undefined;
  version: string;
  /** Diagnostics: stderr, never stdout (stdout is the protocol). */
  log: (line: string) => void;
}

/** `townhall mcp --http`: where, with which secret, and how long a silent session lives. */
export interface HttpSettings {
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** Where the token came from (`--token-file`); undefined: made for this run, so it is printed. */
  tokenFile?: string | undefined;
  /** A session without a request for this long is closed. */
  idleMs: number;
}

const INSTRUCTIONS = (agentId: string, budget: Budget) =>
  `You act on Townhall (scheduled townhalls, AMAs, workshops, panels) as the agent ${agentId}: every ` +
  'tool call is signed with its key, so what you do is done by that agent. Reading is free. A paid ' +
  "RSVP pays from the agent's own funds, only when you pass maxPrice (the most it may cost), at most " +
  `this session's budget (${budget.remaining} atomic units of ${budget.asset ?? 'the asset of its first payment'}; ` +
  'USDC has 6 decimals) and only in that asset; beyond that it is refused with payment.budget and ' +
  'nothing is charged. Refusals are tool errors carrying a stable code (e.g. role.forbidden: only the ' +
  'host may start an event). To follow a live event, read and subscribe to the resource ' +
  'townhall://events/{eventId}.';

function openSession(settings: McpSettings, followUp: PaymentFollowUp): Session {
  const server = new McpServer(
    { name: 'townhall', title: 'Townhall', version: settings.version },
    { instructions: INSTRUCTIONS(settings.agent.agentId, settings.budget) },
  );
  registerTools(server, {
    agent: settings.agent,
    budget: settings.budget,
    followUp,
    server,
    asset: settings.asset,
    rpcUrl: settings.rpcUrl,
  });
  const resources = new EventResources(server, settings.agent, settings.log);
  resources.register();
  let closing: Promise<void> | undefined;
  return {
    server,
    close() {
      closing ??= (async () => {
        resources.close();
        await server.close();
      })();
      return closing;
    },
  };
}

/** The budget as the start line says it. */
const budgetText = (budget: Budget) =>
  `budget ${budget.remaining}${budget.asset === undefined ? '' : ` ${budget.asset}`}`;

/**
 * Serves one session over stdin/stdout until the client closes stdin (or `stop` fires): the client
 * (Claude Desktop, Cursor, an agent framework) started this process, and its end is ours.
 */
export async function serveStdio(settings: McpSettings, stop: AbortSignal): Promise<void> {
  const followUp = new PaymentFollowUp(settings.budget, ticketLookup(settings.agent), settings.log);
  const session = openSession(settings, followUp);
  const transport = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await session.server.connect(transport);
  settings.log(`townhall mcp: serving ${settings.agent.agentId} on stdio (${budgetText(settings.budget)})`);
  await ended;
  await session.close();
  followUp.close();
}

/**
 * Serves Streamable HTTP at `http://127.0.0.1:<port>/mcp` until `stop` fires. Bound to the loopback
 * interface only; every request must carry the bearer token (checked first, so that nothing else
 * is answered to a process without it), then the SDK's Host header validation (a web page cannot
 * reach it through DNS rebinding); sessions: http-sessions.ts.
 */
export async function serveHttp(settings: McpSettings, http: HttpSettings, stop: AbortSignal): Promise<void> {
  const followUp = new PaymentFollowUp(settings.budget, ticketLookup(settings.agent), settings.log);
  const sessions = new HttpSessions(() => openSession(settings, followUp), http.idleMs, settings.log);
  const app = createMcpExpressApp({ host: '127.0.0.1' });
  app.all('/mcp', (request, response) => sessions.handle(request, response));
  const authorized = bearerGuard(http.token);
  const listener = createServer((request, response) => {
    if (authorized(request, response)) app(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(http.port, '127.0.0.1', () => {
      listener.off('error', reject);
      resolve();
    });
  });
  const address = listener.address();
  const boundPort = typeof address === 'object' && address ? address.port : http.port;
  settings.log(
    `townhall mcp: serving ${settings.agent.agentId} at http://127.0.0.1:${boundPort}/mcp (${budgetText(settings.budget)})`,
  );
  settings.log(
    http.tokenFile === undefined
      ? `townhall mcp: bearer token ${http.token} (send Authorization: Bearer <token>; it changes every run, --token-file keeps one)`
      : `townhall mcp: bearer token from ${http.tokenFile} (send Authorization: Bearer <token>)`,
  );
  await new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    else stop.addEventListener('abort', () => resolve(), { once: true });
  });
  await sessions.closeAll();
  followUp.close();
  listener.closeAllConnections();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
}
