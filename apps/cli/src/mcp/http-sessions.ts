import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** One MCP session: its server (tools and the event resource) and how to end it. */
export interface Session {
  server: McpServer;
  close(): Promise<void>;
}

/** Concurrent HTTP sessions at most: each may hold live streams open. */
export const MAX_HTTP_SESSIONS = 32;

interface Entry {
  transport: StreamableHTTPServerTransport;
  session: Session;
  /** Requests of the client still being answered (a tool call, possibly awaiting an approval). */
  inFlight: number;
  idle: NodeJS.Timeout | undefined;
  ended: boolean;
}

/**
 * The Streamable HTTP sessions of `townhall mcp --http`: one per `initialize`, its id in
 * `Mcp-Session-Id`, each ended by the client (DELETE), by the process stopping, or after
 * `idleMs` without a request from its client. The notification stream a client keeps open (GET)
 * is not activity: it is the server talking. An ended session's id is answered 404, as an unknown
 * one, which tells a client to initialize a new session (MCP, Streamable HTTP "Session Management").
 */
export class HttpSessions {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly open: () => Session,
    private readonly idleMs: number,
    private readonly log: (line: string) => void,
  ) {}

  async handle(request: IncomingMessage & { body?: unknown }, response: ServerResponse): Promise<void> {
    const sessionId = request.headers['mcp-session-id'];
    let entry = typeof sessionId === 'string' ? this.entries.get(sessionId) : undefined;
    if (!entry) {
      const refused =
        sessionId !== undefined
          ? failure(404, 'Unknown or closed session: initialize a new one')
          : request.method !== 'POST' || !isInitializeRequest(request.body)
            ? failure(400, 'No session: send initialize first (without Mcp-Session-Id)')
            : this.entries.size >= MAX_HTTP_SESSIONS
              ? failure(503, `At most ${MAX_HTTP_SESSIONS} sessions at once: close one (DELETE /mcp)`)
              : undefined;
      if (refused) {
        response.writeHead(refused.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(refused.body));
        return;
      }
      entry = await this.start();
    }
    this.track(entry, request, response);
    await entry.transport.handleRequest(request, response, request.body);
  }

  /** Ends every session (the process is stopping). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => this.end(entry)));
  }

  private async start(): Promise<Entry> {
    const session = this.open();
    const entry: Entry = {
      session,
      inFlight: 0,
      idle: undefined,
      ended: false,
      transport: new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.entries.set(id, entry);
        },
      }),
    };
    // Closed by the client (DELETE), by expiry or at stop: forgotten, and its resources closed.
    entry.transport.onclose = () => void this.end(entry);
    await session.server.connect(entry.transport);
    return entry;
  }

  /** Each request is activity; the session's idle clock runs while none is being answered. */
  private track(entry: Entry, request: IncomingMessage, response: ServerResponse): void {
    clearTimeout(entry.idle);
    entry.idle = undefined;
    const counted = request.method !== 'GET';
    if (counted) entry.inFlight += 1;
    else this.startIdleClock(entry);
    response.once('close', () => {
      if (!counted) return;
      entry.inFlight -= 1;
      this.startIdleClock(entry);
    });
  }

  private startIdleClock(entry: Entry): void {
    if (entry.inFlight > 0 || entry.idle !== undefined) return;
    entry.idle = setTimeout(() => {
      this.log(
        `townhall mcp: session ${entry.transport.sessionId ?? '(never initialized)'} closed after ${this.idleMs / 1000} s without a request`,
      );
      void this.end(entry);
    }, this.idleMs);
    entry.idle.unref();
  }

  private async end(entry: Entry): Promise<void> {
    // Reached again through the transport's onclose while it closes: once is enough.
    if (entry.ended) return;
    entry.ended = true;
    clearTimeout(entry.idle);
    if (entry.transport.sessionId !== undefined) this.entries.delete(entry.transport.sessionId);
    await entry.transport.close();
    await entry.session.close();
  }
}

function failure(status: number, message: string) {
  return { status, body: { jsonrpc: '2.0', error: { code: -32000, message }, id: null } };
}
