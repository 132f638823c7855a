import { Inject, Injectable } from '@nestjs/common';
import { DomainError, isUuid, type Presence } from '@townhall/contracts';
import { CLOCK, type Clock, OutboxWriter } from '@townhall/platform/service';
import type { EntityManager } from 'typeorm';
import { WRITE_GATEWAY } from './write-presence.js';

/** A session not reported for this many of its gateway's intervals ended at its last report. */
export const SILENT_INTERVALS = 3;

/**
 * The snapshot's events, each once (an event named twice is its streams together), leaving out an
 * id that cannot be an event's (no event would be found, no stream opened).
 */
function eventsOf(presence: Presence): Array<{ eventId: string; agentIds: string[]; viewers: number }> {
  const events = new Map<string, { agentIds: Set<string>; viewers: number }>();
  for (const { eventId: id, agentIds, viewers } of presence.events) {
    if (!isUuid(id)) continue;
    const eventId = id.toLowerCase();
    const event = events.get(eventId) ?? { agentIds: new Set<string>(), viewers: 0 };
    for (const agentId of agentIds) event.agentIds.add(agentId);
    event.viewers += viewers;
    events.set(eventId, event);
  }
  return [...events].map(([eventId, { agentIds, viewers }]) => ({
    eventId,
    agentIds: [...agentIds],
    viewers,
  }));
}

/**
 * A gateway's snapshot of its open live streams (Reports.presence; docs/product.md "The report":
 * a ticket holder is present while the event is live and a signed live stream of theirs is open).
 * For each event of the snapshot, at the service's now, in one transaction per snapshot (a gateway's
 * snapshots one after the other, whichever replica takes them):
 * - its gateway's open sessions not reported for SILENT_INTERVALS intervals ended at their last
 *   report (the gateway was cut off: the time it could not vouch for is not presence);
 * - an agent listed with no open session on this gateway starts one now; one listed already is
 *   seen now (`last_seen_at`, moved only once it is half an interval old: the ticks keep it within
 *   an interval, and the prompt snapshots of a large event's joins and leaves rewrite only the rows
 *   of who joined or left); an open session of an agent no longer listed ends now;
 * - the open streams (signed or not) are the gateway's sample of the bucket of `intervalMs` that
 *   now falls in, the most of what it reported in that bucket (a spike between two ticks is kept).
 * Events the snapshot leaves out are untouched: a gateway reports an event once more, empty, after
 * its last stream closed, and a gateway that dies leaves sessions that end by its silence.
 * Recorded whatever the event's status: the report intersects them with when the event was live.
 */
@Injectable()
export class RecordPresence {
  constructor(
    private readonly outbox: OutboxWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async record(presence: Presence): Promise<{ events: number }> {
    const { gatewayId, intervalMs } = presence;
    if (gatewayId === WRITE_GATEWAY)
      throw new DomainError('validation.failed', `"${WRITE_GATEWAY}" is not a gateway's id`, [
        { field: 'gatewayId', message: `"${WRITE_GATEWAY}" is reserved` },
      ]);
    const events = eventsOf(presence);
    if (events.length === 0) return { events: 0 };
    const now = this.clock();
    const bucket = new Date(Math.floor(now.getTime() / intervalMs) * intervalMs);
    const eventIds = events.map(({ eventId }) => eventId);
    const listed = events.flatMap(({ eventId, agentIds }) =>
      agentIds.map((agentId) => ({ eventId, agentId })),
    );
    await this.outbox.run(async (manager) => {
      await this.holdGateway(manager, gatewayId);
      const at = now.toISOString();
      await manager.query(
        `UPDATE engagement.stream_sessions SET ended_at = last_seen_at
          WHERE gateway_id = $1 AND event_id = ANY($2::uuid[]) AND ended_at IS NULL
            AND last_seen_at + interval_ms * ${SILENT_INTERVALS} * interval '1 millisecond' < $3`,
        [gatewayId, eventIds, at],
      );
      await manager.query(
        `UPDATE engagement.stream_sessions s SET ended_at = GREATEST(s.started_at, $3)
          WHERE s.gateway_id = $1 AND s.event_id = ANY($2::uuid[]) AND s.ended_at IS NULL
            AND NOT EXISTS (SELECT FROM unnest($4::uuid[], $5::text[]) AS l(event_id, agent_id)
                             WHERE l.event_id = s.event_id AND l.agent_id = s.agent_id)`,
        [gatewayId, eventIds, at, listed.map((l) => l.eventId), listed.map((l) => l.agentId)],
      );
      if (listed.length > 0)
        await manager.query(
          `INSERT INTO engagement.stream_sessions AS s
             (event_id, agent_id, gateway_id, interval_ms, started_at, last_seen_at)
           SELECT l.event_id, l.agent_id, $1, $2, $3, $3 FROM unnest($4::uuid[], $5::text[]) AS l(event_id, agent_id)
           ON CONFLICT (gateway_id, event_id, agent_id) WHERE ended_at IS NULL
           DO UPDATE SET last_seen_at = GREATEST(s.last_seen_at, EXCLUDED.last_seen_at),
                         interval_ms = EXCLUDED.interval_ms
            WHERE s.last_seen_at + s.interval_ms * interval '0.5 millisecond' <= EXCLUDED.last_seen_at
               OR s.interval_ms <> EXCLUDED.interval_ms`,
          [gatewayId, intervalMs, at, listed.map((l) => l.eventId), listed.map((l) => l.agentId)],
        );
      await manager.query(
        `INSERT INTO engagement.viewer_samples AS v (event_id, sampled_at, gateway_id, interval_ms, viewers)
         SELECT e.event_id, $2, $1, $3, e.viewers FROM unnest($4::uuid[], $5::integer[]) AS e(event_id, viewers)
         ON CONFLICT (event_id, sampled_at, gateway_id)
         DO UPDATE SET viewers = GREATEST(v.viewers, EXCLUDED.viewers), interval_ms = EXCLUDED.interval_ms`,
        [gatewayId, bucket.toISOString(), intervalMs, eventIds, events.map(({ viewers }) => viewers)],
      );
    });
    return { events: events.length };
  }

  /** One snapshot of a gateway at a time, on every replica: they apply in the order they came. */
  private async holdGateway(manager: EntityManager, gatewayId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('engagement.presence'), hashtext($1))`, [
      gatewayId,
    ]);
  }
}
