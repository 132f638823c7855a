import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { TownhallError, type AgentClient } from '@townhall/sdk';

const PREFIX = 'townhall://events/';
/** Changes this close together are one notification: a burst of votes is one re-read, not fifty. */
const COALESCE_MS = 100;

/** The event id of a `townhall://events/{eventId}` URI, or undefined. */
export function eventIdOf(uri: string): string | undefined {
  if (!uri.startsWith(PREFIX)) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(uri.slice(PREFIX.length));
  } catch {
    return undefined; // a broken escape (%ZZ)
  }
  return /^[A-Za-z0-9-]{1,100}$/.test(id) ? id : undefined;
}

/** The stage messages the resource shows: the latest, as a model wants them after an update. */
const STAGE_SHOWN = 100;
/** Pages of 100 read to find the latest (an event with more stage messages shows its last read ones). */
const STAGE_PAGES = 20;

/** The latest STAGE_SHOWN stage messages, oldest first, and whether earlier ones were left out. */
async function latestStage(agent: AgentClient, eventId: string) {
  let messages: Awaited<ReturnType<AgentClient['stage']['list']>>['items'] = [];
  let cursor: string | undefined;
  let skipped = false;
  for (let page = 0; page < STAGE_PAGES; page++) {
    const read = await agent.stage.list(eventId, { limit: 100, ...(cursor ? { cursor } : {}) });
    messages = [...messages, ...read.items];
    if (messages.length > STAGE_SHOWN) {
      messages = messages.slice(-STAGE_SHOWN);
      skipped = true;
    }
    if (read.nextCursor === null) break;
    cursor = read.nextCursor;
  }
  return { messages, skipped };
}

/** The event with its stage, questions and polls: what the resource holds. */
async function eventContent(agent: AgentClient, eventId: string): Promise<string> {
  const [event, stage, questions, polls] = await Promise.all([
    agent.events.get(eventId),
    latestStage(agent, eventId),
    agent.questions.list(eventId, { sort: 'top', limit: 100 }),
    agent.polls.list(eventId, { limit: 100 }),
  ]);
  return JSON.stringify({
    event,
    stage: stage.messages,
    // Earlier messages: stage_read (the tool) pages through all of them.
    ...(stage.skipped ? { stageEarlierOmitted: true } : {}),
    questions: questions.items,
    polls: polls.items,
  });
}

/**
 * `townhall://events/{eventId}`: an event with its stage, questions and polls, as
 * `application/json`; listing it gives the live and upcoming events. Subscribable: after
 * `resources/subscribe`, every change of the event (a stage post, a question, an upvote, a vote,
 * its start or end) is sent as `notifications/resources/updated` for the URI. The changes come from
 * the event's live stream (SSE, resumed with Last-Event-ID after a drop: the SDK's events.live), not
 * from polling; unsubscribing, or the session closing (`close()`), ends the stream.
 */
export class EventResources {
  private readonly followers = new Map<string, AbortController>();

  constructor(
    private readonly server: McpServer,
    private readonly agent: AgentClient,
    private readonly log: (line: string) => void,
  ) {}

  register(): void {
    const { agent } = this;
    this.server.registerResource(
      'event',
      new ResourceTemplate(`${PREFIX}{eventId}`, {
        list: async () => {
          const [live, upcoming] = await Promise.all([
            agent.events.list({ status: 'live', limit: 20 }),
            agent.events.list({ status: 'scheduled', limit: 20 }),
          ]);
          return {
            resources: [...live.items, ...upcoming.items].map((event) => ({
              uri: `${PREFIX}${event.id}`,
              name: event.title,
              mimeType: 'application/json',
              description: `${event.status}, starts ${event.startsAt}`,
            })),
          };
        },
      }),
      {
        title: 'An event, live',
        description:
          'The event with its stage, questions and polls (JSON). Subscribe to be notified of every change while it happens.',
        mimeType: 'application/json',
      },
      async (uri) => {
        const id = eventIdOf(uri.href);
        if (!id) throw new McpError(ErrorCode.InvalidParams, `Not a Townhall event resource: ${uri.href}`);
        try {
          return {
            contents: [{ uri: uri.href, mimeType: 'application/json', text: await eventContent(agent, id) }],
          };
        } catch (error) {
          if (error instanceof TownhallError)
            throw new McpError(ErrorCode.InvalidParams, `${error.code}: ${error.problem.detail}`);
          throw error;
        }
      },
    );
    const low = this.server.server;
    low.registerCapabilities({ resources: { subscribe: true } });
    low.setRequestHandler(SubscribeRequestSchema, async ({ params }) => {
      await this.follow(params.uri);
      return {};
    });
    low.setRequestHandler(UnsubscribeRequestSchema, ({ params }) => {
      this.unfollow(params.uri);
      return {};
    });
  }

  /** Ends every stream: the session is over. */
  close(): void {
    for (const uri of [...this.followers.keys()]) this.unfollow(uri);
  }

  private async follow(uri: string): Promise<void> {
    const eventId = eventIdOf(uri);
    if (!eventId)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Not a Townhall event resource: ${uri} (${PREFIX}{eventId})`,
      );
    if (this.followers.has(uri)) return;
    try {
      await this.agent.events.get(eventId);
    } catch (error) {
      if (error instanceof TownhallError)
        throw new McpError(ErrorCode.InvalidParams, `${error.code}: ${error.problem.detail}`);
      throw error;
    }
    const stop = new AbortController();
    this.followers.set(uri, stop);
    void this.stream(uri, eventId, stop.signal);
  }

  private unfollow(uri: string): void {
    this.followers.get(uri)?.abort();
    this.followers.delete(uri);
  }

  private async stream(uri: string, eventId: string, signal: AbortSignal): Promise<void> {
    let pending: NodeJS.Timeout | undefined;
    const notify = () => {
      pending ??= setTimeout(() => {
        pending = undefined;
        if (!signal.aborted) this.server.server.sendResourceUpdated({ uri }).catch(() => undefined);
      }, COALESCE_MS);
    };
    try {
      // Every change is told, a history cut too (changes were missed: the content changed).
      for await (const _change of this.agent.events.live(eventId, { signal })) {
        if (signal.aborted) break;
        notify();
      }
    } catch (error) {
      if (!signal.aborted)
        this.log(
          `the live stream of ${eventId} ended: ${error instanceof Error ? error.message : String(error)}`,
        );
    } finally {
      if (pending) clearTimeout(pending);
      if (this.followers.get(uri)?.signal === signal) this.followers.delete(uri);
    }
  }
}
