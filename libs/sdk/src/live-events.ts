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

/**
 * Sent instead of the start of a resume the server cannot replay whole: messages about the event
 * may have been missed there, so read its current state again. The stream goes on after
 * `resumedAfter`. `reason`: `too_far_behind`, the resume reaches further back than the server
 * reads at once (its replay limit, 1,000 stream messages by default); `history_gone`, the server
 * no longer holds that history (aged out, a standalone server restarted, a stream reset).
 */
export interface LiveHistoryCut {
  /** The id the stream was resumed from. */
  lastEventId: string;
  /** Replay goes on after this id; it is now the id a reconnect resumes from. */
  resumedAfter: string;
  /**
   * Stream messages between the two that were not read (about every event: an upper bound);
   * null when the history is gone and nobody knows how many there were.
   */
  skipped: number | null;
  reason: 'too_far_behind' | 'history_gone';
}

/** The SSE event type of a LiveHistoryCut. */
export const HISTORY_CUT_EVENT = 'history.cut';

export interface LiveOptions {
  /** Resume after this message id (what a previous stream last gave you); omit to start from now. */
  lastEventId?: string;
  /** Aborting it ends the iteration (no error) and closes the connection. */
  signal?: AbortSignal;
  /** Called each time the stream is connected (also after a reconnect): from then on nothing is missed. */
  onOpen?: () => void;
  /**
   * Called when the server could not replay everything since the id resumed from (an old
   * `lastEventId`, or a reconnect after a long gap), before the messages that follow the cut.
   * Without it a cut goes unnoticed.
   */
  onHistoryCut?: (cut: LiveHistoryCut) => void;
  /**
   * Sign each connection with the client's key: the stream then carries your own tickets, refunds,
   * waitlist entries and invites whole (and every agent's, to the event's host and moderators), where
   * an anonymous stream has their counts only. Each reconnect is signed anew (a nonce is good once).
   */
  signed?: boolean;
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
 * drops (or the server ends it, e.g. on a deploy) it waits the server's `retry:` delay (plus up to
 * half of it at random) and reconnects with the last id it received, so nothing is missed and nothing repeats (unless
 * the server cuts the history: `onHistoryCut`). The first connection's failure is thrown; after
 * that, network errors, 429 and 5xx answers are retried (after `Retry-After` if longer), and
 * another 4xx is thrown. Breaking out of the loop or aborting `signal` closes the connection.
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
        await sleep(jittered(retryMs), signal);
        continue;
      }
      if (!response.ok) {
        const error = await connector.errorOf(response);
        // A 429 is passing: e.g. the server has not yet noticed that the dropped connection is gone.
        if (!connectedOnce || (response.status < 500 && response.status !== 429)) throw error;
        await sleep(jittered(Math.max(retryMs, retryAfterMs(response))), signal);
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
            if (message.event === HISTORY_CUT_EVENT) {
              options.onHistoryCut?.(JSON.parse(message.data) as LiveHistoryCut);
              continue;
            }
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
      await sleep(jittered(retryMs), signal);
    }
  } finally {
    options.signal?.removeEventListener('abort', abort);
    controller.abort();
  }
}

/**
 * The delay, plus up to half of it at random: the clients of a server that went away (a deploy,
 * a crash) come back spread out instead of all in the same instant.
 */
function jittered(ms: number): number {
  return ms + Math.random() * ms * 0.5;
}

/** Retry-After in delay-seconds (what the server sends), else 0. */
function retryAfterMs(response: Response): number {
  const value = response.headers.get('retry-after');
  return value !== null && /^\d+$/.test(value) ? Number(value) * 1_000 : 0;
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
