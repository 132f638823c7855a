import type { CloudEvent } from '@townhall/contracts';
import { SseParser } from './sse-parser.js';

/** One message of an event's live stream. */
export interface LiveEvent {
  /** The stream sequence: pass it as `lastEventId` to resume after this message. */
  id: string;
  /** The CloudEvent type, e.g. `townhall.event.started`. */
  type: string;
  event: CloudEvent;
}

export interface LiveOptions {
  /** Resume after this message id (what a previous stream last gave you); omit to start from now. */
  lastEventId?: string;
  /** Aborting it ends the iteration (no error) and closes the connection. */
  signal?: AbortSignal;
  /** Called each time the stream is connected (also after a reconnect): from then on nothing is missed. */
  onOpen?: () => void;
}

export interface LiveConnector {
  /** Opens the stream, with Last-Event-ID when resuming. */
  open(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /** The error a non-2xx answer is thrown as. */
  errorOf(response: Response): Promise<Error>;
}

// What the server says in `retry:` is used once it has said it; this until then.
const DEFAULT_RETRY_MS = 2_000;

/**
 * Reads a live stream as an async iterable, reconnecting like EventSource: when the connection
 * drops (or the server ends it, e.g. on a deploy) it waits the server's `retry:` delay and
 * reconnects with the last id it received, so nothing is missed and nothing repeats. The first
 * connection's failure is thrown; after that, network errors and 5xx answers are retried, and
 * a 4xx is thrown. Breaking out of the loop or aborting `signal` closes the connection.
 */
export async function* readLiveEvents(
  connector: LiveConnector,
  options: LiveOptions = {},
): AsyncGenerator<LiveEvent> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  if (options.signal?.aborted) controller.abort();
  const { signal } = controller;

  let lastEventId = options.lastEventId;
  let retryMs = DEFAULT_RETRY_MS;
  let connectedOnce = false;
  try {
    while (!signal.aborted) {
      let response: Response;
      try {
        response = await connector.open(lastEventId, signal);
      } catch (error) {
        if (signal.aborted) return;
        if (!connectedOnce) throw error;
        await sleep(retryMs, signal);
        continue;
      }
      if (!response.ok) {
        const error = await connector.errorOf(response);
        if (!connectedOnce || response.status < 500) throw error;
        await sleep(retryMs, signal);
        continue;
      }
      connectedOnce = true;
      options.onOpen?.();

      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader = response.body?.getReader();
      try {
        for (;;) {
          const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
          if (chunk.done) break;
          for (const message of parser.push(decoder.decode(chunk.value, { stream: true }))) {
            if (message.id !== '') lastEventId = message.id;
            yield { id: message.id, type: message.event, event: JSON.parse(message.data) as CloudEvent };
          }
          retryMs = parser.retryMs ?? retryMs;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof SyntaxError) throw error;
        // Anything else is the connection dropping: reconnect below.
      } finally {
        reader?.releaseLock();
      }
      await sleep(retryMs, signal);
    }
  } finally {
    options.signal?.removeEventListener('abort', abort);
    controller.abort();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
