import type { InProcessEventLog } from '@townhall/platform';
import { decodeLiveMessage, type LiveMessage } from './live-message.js';
import { LiveHub } from './live-hub.js';
import { liveStreamOf, type LiveStream, type LiveStreamSettings } from './live-stream.js';

export type InProcessLiveStreamOptions = LiveStreamSettings;

/**
 * Standalone mode's live stream: the hub follows the process's domain-event log (instead of a
 * JetStream ordered consumer) and resuming clients replay from what the log retains.
 */
export function startInProcessLiveStream(
  log: InProcessEventLog,
  options: InProcessLiveStreamOptions,
): LiveStream {
  const hub = new LiveHub();
  hub.startAt(log.lastSeq);
  const unfollow = log.follow((event) => {
    hub.see(event.subject, () => event.payload);
    hub.receive(event.seq, () => decodeLiveMessage(event.seq, event.subject, event.payload));
  });
  const history = {
    span: async () => ({ first: log.firstSeq, last: log.lastSeq }),
    async *replay(eventId: string, after: number, upTo: number): AsyncGenerator<LiveMessage> {
      for (const event of log.between(after, upTo)) {
        // Most of the log is about other events: skip them without parsing.
        const message = event.payload.includes(eventId)
          ? decodeLiveMessage(event.seq, event.subject, event.payload)
          : undefined;
        if (message?.eventId === eventId) yield message;
      }
    },
  };
  return liveStreamOf(hub, history, options, async () => unfollow());
}
