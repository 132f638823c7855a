/**
 * One span of an agent's presence in an event (engagement.stream_sessions): a signed live stream
 * open on one gateway, from when the gateway reported it open to when it reported it closed (or to
 * its last report, for a gateway that went silent; or to now, while it is open), or a write (a
 * stage post, a question, an upvote, a ballot), a span of no length.
 */
export interface PresenceSpan {
  agentId: string;
  startedAt: Date;
  endedAt: Date;
}

/** When the event was live: from when it went live to when it ended, or to now while it is live. */
export interface LiveWindow {
  from: Date;
  to: Date;
}

/** One agent's attendance (docs/product.md "The report"); handles are the gateway's to add. */
export interface Attendee {
  agentId: string;
  /** Minutes present while the event was live, overlapping spans counted once; to 0.001 minute. */
  minutes: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

/**
 * Each agent's attendance from its spans (docs/product.md "The report"): every span clipped to the
 * live window, the clipped spans of each agent merged (two streams open at once, on one gateway or
 * two, count once), `minutes` their length, `firstSeenAt` and `lastSeenAt` the first start and the
 * last end. A span that only touches the window at its edge is not presence; a write while the
 * event was live is, even of no length (0 minutes). Only the agents present; most minutes first,
 * then by agentId.
 */
export function attendeesOf(spans: readonly PresenceSpan[], window: LiveWindow): Attendee[] {
  const from = window.from.getTime();
  const to = window.to.getTime();
  const byAgent = new Map<string, Array<[number, number]>>();
  for (const span of spans) {
    const started = span.startedAt.getTime();
    const ended = Math.max(started, span.endedAt.getTime());
    const start = Math.max(started, from);
    const end = Math.min(ended, to);
    // A write (no length) inside the window, or a span that overlaps it.
    const present = started === ended ? started >= from && started <= to : start < end;
    if (!present) continue;
    let clipped = byAgent.get(span.agentId);
    if (!clipped) byAgent.set(span.agentId, (clipped = []));
    clipped.push([start, end]);
  }
  const attendees: Attendee[] = [];
  for (const [agentId, clipped] of byAgent) {
    clipped.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let present = 0;
    let [runStart, runEnd] = clipped[0]!;
    let last = runEnd;
    for (const [start, end] of clipped.slice(1)) {
      if (start > runEnd) {
        present += runEnd - runStart;
        [runStart, runEnd] = [start, end];
      } else runEnd = Math.max(runEnd, end);
      last = Math.max(last, end);
    }
    present += runEnd - runStart;
    attendees.push({
      agentId,
      minutes: Math.round(present / 60) / 1000,
      firstSeenAt: new Date(clipped[0]![0]).toISOString(),
      lastSeenAt: new Date(last).toISOString(),
    });
  }
  return attendees.sort(
    (a, b) => b.minutes - a.minutes || (a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0),
  );
}
