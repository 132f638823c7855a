import { z } from 'zod';
import { AgentIdSchema } from './agent-id.js';
import { contract } from './contract.js';
import { EventIdSchema } from './event-fields.js';
import { AmountReply, InstantReply, reply } from './replies.js';

/**
 * The report after (and during) an event (docs/product.md "The report"): what a host reads on
 * Zoom's webinar reports, Slido's analytics and pretix's check-in lists. The gateway assembles it
 * from the two services that own its parts: ticketing (registrations, revenue, refunds, codes,
 * each holder's ticket) and engagement (attendance, questions, polls, the stage). Read by the
 * host or a moderator (GET /events/{id}/report), as JSON or, for the host, one CSV line per ticket
 * holder (GET /events/{id}/report.csv).
 */

const Point = z.object({ at: InstantReply, total: z.number().int() });
const Money = z.object({
  asset: z.string(),
  network: z.string().nullable().describe('The chain network; null on the ledger'),
  amount: AmountReply,
});

export const SalesReportSchema = z.object({
  registrations: z.object({
    total: z.number().int().describe('Live tickets (active or pending)'),
    byTier: z.record(z.string(), z.number().int()),
    overTime: z
      .array(Point)
      .describe('Tickets issued so far, at the end of each interval (at most 100 points)'),
  }),
  revenue: z.array(Money).describe('What tickets brought in, per asset and network, before refunds'),
  refunds: z.object({
    count: z.number().int(),
    amounts: z.array(Money).describe('Refunded, or owed and not paid yet, per asset and network'),
  }),
  codes: z.array(z.object({ code: z.string(), uses: z.number().int() })),
});
export type SalesReport = z.output<typeof SalesReportSchema>;

/** One ticket holder's line of the sale (the CSV's first columns). */
export interface HolderSales {
  agentId: string;
  tierId: string;
  code: string | null;
  /** What the ticket cost, atomic units; '0' for a free one. */
  paid: string;
  asset: string | null;
  /** What was refunded or is owed back, atomic units. */
  refunded: string;
}

/** What ticketing answers: the sale, and each holder's line for the CSV. */
export interface TicketingReport {
  sales: SalesReport;
  holders: HolderSales[];
}

export const AttendeeSchema = z.object({
  agentId: AgentIdSchema,
  handle: z.string().nullable().describe("The agent's directory handle, if it has a card"),
  minutes: z
    .number()
    .describe('Minutes present (a signed live stream open while the event was live), to the second'),
  firstSeenAt: InstantReply,
  lastSeenAt: InstantReply,
});

export const EngagementReportSchema = z.object({
  attendance: z.object({
    present: z.number().int().describe('Ticket holders seen while the event was live'),
    peakConcurrent: z.number().int().describe('The most live streams open at once, signed or not'),
    viewersOverTime: z.array(z.object({ at: InstantReply, viewers: z.number().int() })),
    byAgent: z.array(AttendeeSchema).describe('Most minutes first'),
  }),
  questions: z.object({
    asked: z.number().int(),
    promoted: z.number().int().describe('Promoted to the stage (answered ones were promoted first)'),
    upvotes: z.number().int(),
    top: z.array(
      z.object({
        id: z.string(),
        authorId: AgentIdSchema,
        body: z.string(),
        upvotes: z.number().int(),
        state: z.string(),
      }),
    ),
  }),
  polls: z.array(
    z.object({
      id: z.string(),
      question: z.string(),
      status: z.enum(['open', 'closed']),
      ballots: z.number().int(),
      options: z.array(z.object({ id: z.string(), label: z.string(), votes: z.number().int() })),
    }),
  ),
  stage: z.object({ messages: z.number().int() }),
});
export type EngagementReport = z.output<typeof EngagementReportSchema>;

/** One agent's part in the event, for the CSV. */
export interface AgentEngagement {
  agentId: string;
  questionsAsked: number;
  votesCast: number;
}

/** What engagement answers: the event's side, and each agent's part (handles are the gateway's to add). */
export interface EngagementAnswer {
  report: Omit<EngagementReport, 'attendance'> & {
    attendance: Omit<EngagementReport['attendance'], 'byAgent'> & {
      byAgent: Array<Omit<z.output<typeof AttendeeSchema>, 'handle'>>;
    };
  };
  agents: AgentEngagement[];
}

export const EventReportSchema = reply(
  z.object({
    eventId: z.string(),
    status: z.string().describe("The event's status when the report was made: it can be read while live"),
    generatedAt: InstantReply,
    ...SalesReportSchema.shape,
    ...EngagementReportSchema.shape,
  }),
  'EventReport',
  "An event's numbers: who came and for how long, what was asked and voted, what was sold",
);
export type EventReport = z.output<typeof EventReportSchema>;

const EventRef = z.strictObject({ eventId: EventIdSchema });

/**
 * The live streams a gateway holds open for each event, as it tells engagement every
 * PRESENCE_INTERVAL_MS and whenever a signed stream opens or closes: the agents whose signed streams
 * are open, and how many streams are open in all. Engagement keeps attendance from it.
 */
export const PresenceSchema = z.strictObject({
  /** The gateway process: its snapshot replaces its last one, and its silence ends its sessions. */
  gatewayId: z.string().min(1).max(100),
  /** How often this gateway reports, ms: a session not reported for three intervals ended. */
  intervalMs: z.number().int().min(100).max(3_600_000),
  events: z
    .array(
      z.strictObject({
        eventId: EventIdSchema,
        agentIds: z.array(AgentIdSchema).max(100_000),
        viewers: z.number().int().min(0),
      }),
    )
    .max(10_000),
});
export type Presence = z.output<typeof PresenceSchema>;

export const Reports = {
  /** Ticketing's part: the host or a moderator. */
  sales: contract<TicketingReport>()('ticketing.reports.sales', EventRef),
  /** Engagement's part: the host or a moderator. */
  engagement: contract<EngagementAnswer>()('engagement.reports.engagement', EventRef),
  /** A gateway's open live streams (unsigned: gateways only, by the bus's permissions). */
  presence: contract<{ events: number }>()('engagement.attendance.presence', PresenceSchema),
} as const;
