import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  AccessRequestViewSchema,
  AccessSchema,
  AddInvitesSchema,
  CodeSchema,
  CodeViewSchema,
  CreateCodeSchema,
  DecideRequestSchema,
  EventViewSchema,
  InvitesAddedSchema,
  MAX_INVITES_PER_CALL,
  TicketViewSchema,
} from '@townhall/contracts';
import type { EventFieldsInput } from '@townhall/sdk';
import { z } from 'zod';
import { UsageError } from '../../failure.js';
import { codeLine } from '../../render/ticket-lines.js';
import { paidRsvp, type PayingSession } from '../paid-rsvp.js';
import { answer } from '../tool-results.js';
import { Amount, Cursor, EventId, Instant, next, Page, type Run } from './arguments.js';

/** Finding, scheduling and running events; tickets (rsvp pays within the budget: paid-rsvp.ts). */
export function registerEventTools(server: McpServer, session: PayingSession, run: Run): void {
  const { agent } = session;
  server.registerTool(
    'events_list',
    {
      title: 'Find events',
      description:
        'Lists events by start time: filter by status (scheduled, live or past) and by words in the title or description (q); 20 a page. Public: no ticket needed. Free.',
      inputSchema: z
        .object({
          status: z.enum(['scheduled', 'live', 'past']).optional(),
          q: z.string().min(1).max(200).optional().describe('Words to find in the title or description'),
          cursor: Cursor.optional(),
        })
        .strict(),
      outputSchema: z.object({ events: z.array(EventViewSchema), ...Page }),
      annotations: { readOnlyHint: true },
    },
    ({ status, q, cursor }) =>
      run(async () => {
        const page = await agent.events.list({
          ...(status ? { status } : {}),
          ...(q ? { q } : {}),
          ...(cursor ? { cursor } : {}),
        });
        const lines = page.items.map(
          (event) => `${event.id} ${event.status} ${event.startsAt} "${event.title}"`,
        );
        return answer(
          { events: page.items, ...next(page.nextCursor) },
          page.items.length === 0 ? 'No events.' : lines.join('\n'),
        );
      }),
  );

  server.registerTool(
    'event_get',
    {
      title: 'An event',
      description:
        'Reads one event: title, times, status, host, roles, ticketing (free or the price of each tier, in atomic units) and counts. Public. Free. Its live content is the resource townhall://events/{eventId}.',
      inputSchema: z.object({ eventId: EventId }).strict(),
      outputSchema: EventViewSchema,
      annotations: { readOnlyHint: true },
    },
    ({ eventId }) =>
      run(async () => {
        const event = await agent.events.get(eventId);
        return answer(event, `"${event.title}" (${event.status}), ${event.startsAt} to ${event.endsAt}.`);
      }),
  );

  server.registerTool(
    'event_create',
    {
      title: 'Schedule an event',
      description:
        'Schedules an event hosted by this agent: a title, a start and end (RFC 3339 with offset, in the future, at most 31 days long), and optionally a description, a capacity (default 100), a ticket price in atomic units of USDC (without it the event is free) and its access (open, the default: anyone may RSVP; approval: each rsvp is a request to come that the host or a moderator approves with request_approve or declines with request_decline; invite: only the agents invited with invite_add, and the host and moderators). Free to create; buyers pay the price to this agent.',
      inputSchema: z
        .object({
          title: z.string().min(1).max(200),
          startsAt: Instant,
          endsAt: Instant,
          description: z.string().max(5000).optional(),
          capacity: z.number().int().min(1).max(1_000_000).optional(),
          price: Amount.optional().describe('Ticket price in atomic units; omit for a free event'),
          access: AccessSchema.optional().describe(
            'open (default): anyone may RSVP; approval: an rsvp is a request the host or a moderator approves (request_approve) or declines (request_decline); invite: only the agents invited with invite_add, and the host and moderators',
          ),
        })
        .strict(),
      outputSchema: EventViewSchema,
    },
    ({ title, startsAt, endsAt, description, capacity, price, access }) =>
      run(async () => {
        const fields: EventFieldsInput = {
          title,
          startsAt,
          endsAt,
          timezone: 'UTC',
          capacity: capacity ?? 100,
          ...(description === undefined ? {} : { description }),
          ...(price === undefined || price === '0' ? {} : { ticketing: { mode: 'single' as const, price } }),
          ...(access === undefined ? {} : { access }),
        };
        const event = await agent.events.create(fields);
        return answer(event, `Scheduled "${event.title}": ${event.id}.`);
      }),
  );

  for (const [action, verb, rule] of [
    ['start', 'Starts', 'a scheduled event: it goes live and its stage opens'],
    ['end', 'Ends', 'a live event: its polls close and its recording is assembled'],
    ['cancel', 'Cancels', 'a scheduled event: every ticket is cancelled and refunded'],
  ] as const) {
    server.registerTool(
      `event_${action}`,
      {
        title: `${verb.slice(0, -1)} an event`,
        description: `${verb} ${rule}. Only the host may call it (otherwise role.forbidden). Free.`,
        inputSchema: z.object({ eventId: EventId }).strict(),
        outputSchema: EventViewSchema,
      },
      ({ eventId }) =>
        run(async () => {
          const event = await agent.events[action](eventId);
          return answer(event, `"${event.title}" is now ${event.status}.`);
        }),
    );
  }

  server.registerTool(
    'invite_add',
    {
      title: 'Invite agents',
      description: `Invites agents to an event, 1 to ${MAX_INVITES_PER_CALL} agentIds at once. While the event's access is invite, only the agents invited (and the host and moderators) may RSVP or join its waitlist; anyone else is refused with access.not_invited. Only the host may call it (otherwise role.forbidden). Idempotent: an agent invited before keeps its invite, and \`added\` counts only the new ones. Free.`,
      inputSchema: z
        .object({
          eventId: EventId,
          agentIds: AddInvitesSchema.shape.agentIds.describe(
            `The agents to invite, each a base58 agentId (1 to ${MAX_INVITES_PER_CALL})`,
          ),
        })
        .strict(),
      outputSchema: InvitesAddedSchema,
      annotations: { idempotentHint: true },
    },
    ({ eventId, agentIds }) =>
      run(async () => {
        const result = await agent.invites.add(eventId, agentIds);
        const before = result.invites.length - result.added;
        return answer(
          result,
          `Invited ${result.added} new agent${result.added === 1 ? '' : 's'} to ${eventId}${before > 0 ? ` (${before} invited before)` : ''}.`,
        );
      }),
  );

  const code = CreateCodeSchema.shape;
  server.registerTool(
    'code_create',
    {
      title: 'Create a code',
      description:
        "Creates a discount or access code for an event: an agent that passes it to rsvp (code) gets its discount, or may buy the hidden tiers it unlocks, or both. At most one discount: percentOff (1 to 100; the discount rounds down), amountOff (atomic units off the price, not below 0) or free (the ticket is issued at once, nothing to pay); a code without one must unlock hidden tiers (unlocksTierIds). tierIds limits the tiers it applies to (default: every tier it may buy, the visible ones and those it unlocks); maxUses caps how many tickets may carry it (a use is counted when the ticket is issued); expiresAt ends it. Codes are case-insensitive and unique per event: code.taken if the event has it already. tierIds and unlocksTierIds must name the event's tiers, unlocksTierIds hidden ones (otherwise validation.failed). Only the host may call it (otherwise role.forbidden). Free.",
      inputSchema: z
        .object({
          eventId: EventId,
          code: code.code.describe(
            'The code agents type: 3 to 32 letters, digits, _ and -; any case matches',
          ),
          percentOff: code.percentOff.describe('Percent off the price (1 to 100)'),
          amountOff: code.amountOff.describe('Atomic units off the price'),
          free: code.free.describe('true: the ticket costs nothing'),
          maxUses: code.maxUses.describe('How many tickets may be bought with it; omit for no limit'),
          tierIds: code.tierIds.describe(
            "The tiers it applies to (the event's tier ids); omit for all it may buy",
          ),
          unlocksTierIds: code.unlocksTierIds.describe('Hidden tiers it lets an rsvp buy'),
          expiresAt: Instant.optional().describe('When it stops working: RFC 3339 with an offset'),
        })
        .strict(),
      outputSchema: CodeViewSchema,
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    ({ eventId, ...fields }) =>
      run(async () => {
        const discounts = [fields.percentOff, fields.amountOff, fields.free].filter((d) => d !== undefined);
        if (discounts.length > 1) throw new UsageError('give one of percentOff, amountOff and free');
        if (discounts.length === 0 && fields.unlocksTierIds === undefined)
          throw new UsageError(
            'a code gives a discount (percentOff, amountOff or free) or unlocks hidden tiers (unlocksTierIds)',
          );
        const created = await agent.codes.create(eventId, {
          code: fields.code,
          ...(fields.percentOff === undefined ? {} : { percentOff: fields.percentOff }),
          ...(fields.amountOff === undefined ? {} : { amountOff: fields.amountOff }),
          ...(fields.free === undefined ? {} : { free: fields.free }),
          ...(fields.maxUses === undefined ? {} : { maxUses: fields.maxUses }),
          ...(fields.tierIds === undefined ? {} : { tierIds: fields.tierIds }),
          ...(fields.unlocksTierIds === undefined ? {} : { unlocksTierIds: fields.unlocksTierIds }),
          ...(fields.expiresAt === undefined ? {} : { expiresAt: fields.expiresAt }),
        });
        return answer(created, `Created ${codeLine(created)}.`);
      }),
  );

  const decideInput = z
    .object({
      eventId: EventId,
      agentId: DecideRequestSchema.shape.agentId.describe('The agent who asked to come, its base58 agentId'),
    })
    .strict();

  server.registerTool(
    'request_approve',
    {
      title: 'Approve a request to come',
      description:
        "Approves an agent's request to come to an event whose access is approval (its rsvp made the request). A free event: the agent's ticket is issued. A paid event: a seat of the tier it asked for is held for it until holdExpiresAt, and its next rsvp buys it; capacity.sold_out when no seat is left. Only the host or a moderator may call it (otherwise role.forbidden); request.not_found when the agent has not asked. Idempotent; a declined request may be approved, and an approved one is final (request_decline then refuses with request.approved). Free.",
      inputSchema: decideInput,
      outputSchema: AccessRequestViewSchema,
      annotations: { idempotentHint: true },
    },
    ({ eventId, agentId }) =>
      run(async () => {
        const request = await agent.requests.approve(eventId, agentId);
        const next =
          request.holdExpiresAt === null
            ? 'its ticket is issued'
            : `a seat is held for it until ${request.holdExpiresAt}; its next rsvp buys it`;
        return answer(request, `Approved ${agentId}'s request to come to ${eventId}: ${next}.`);
      }),
  );

  server.registerTool(
    'request_decline',
    {
      title: 'Decline a request to come',
      description:
        "Declines an agent's request to come to an event whose access is approval: its rsvp is then refused with access.declined (it may still be approved later with request_approve). Only the host or a moderator may call it (otherwise role.forbidden); request.not_found when the agent has not asked, request.approved when the request was approved already (that is final). Idempotent. Free.",
      inputSchema: decideInput,
      outputSchema: AccessRequestViewSchema,
      annotations: { idempotentHint: true },
    },
    ({ eventId, agentId }) =>
      run(async () => {
        const request = await agent.requests.decline(eventId, agentId);
        return answer(
          request,
          `Declined ${agentId}'s request to come to ${eventId}: its rsvp is refused with access.declined.`,
        );
      }),
  );

  server.registerTool(
    'rsvp',
    {
      title: 'Get a ticket',
      description:
        "Gets this agent a ticket for an event. Free events: at once. Paid events COST MONEY: the price (atomic units of the event's asset, e.g. USDC with 6 decimals) is paid from this agent's own funds, and only if you pass maxPrice (the most you agree to pay) and the price is at most maxPrice, in the budget's asset, and at most what is left of this session's budget (--budget); otherwise the result is the error payment.budget (or payment.budget_asset) with the price, and nothing is charged. A payment whose answer was lost is payment.unconfirmed: do not pay for that event again; tickets_mine shows the ticket if it was bought. Holding a ticket already returns it, with no charge. Tiered events need tierId. An invite-only event (access: invite) refuses with access.not_invited an agent its host has not invited, before any price is asked. An event that needs approval (access: approval) answers an agent not approved yet with its request to come instead of a ticket (request, with status requested; nothing is charged): call rsvp again once the host or a moderator approved it (a paid event's seat is then held for you until request.holdExpiresAt); a declined request is refused with access.declined. A host's code (code) gives its discount: the price asked, held to maxPrice and the budget, and paid is the discounted one, and a code that makes the ticket free gets it at once with nothing charged; the code also lets you buy the hidden tiers it unlocks (tierId). An unknown code is refused with code.not_found; one used as often as it may be, code.exhausted; one past its expiry, code.expired; a tierId the code does not apply to, code.not_for_tier. Nothing is charged for any refusal.",
      inputSchema: z
        .object({
          eventId: EventId,
          tierId: z.string().min(1).max(32).optional().describe('The tier, for an event sold in tiers'),
          code: CodeSchema.optional().describe(
            "A host's code: its discount (the price asked, paid and held to maxPrice is the discounted one) and the hidden tiers it unlocks",
          ),
          maxPrice: Amount.optional().describe(
            'The most this ticket may cost, in atomic units; required to pay for a paid event',
          ),
        })
        .strict(),
      outputSchema: z.object({
        ticket: TicketViewSchema.optional().describe('The ticket; absent when the answer is a request'),
        request: AccessRequestViewSchema.optional().describe(
          'An event that needs approval, and this agent is not approved yet: its request to come, instead of a ticket',
        ),
        charged: z.string().describe('Atomic units this call paid ("0": nothing)'),
        budgetLeft: z.string().describe('What this session may still spend, in atomic units of budgetAsset'),
        budgetAsset: z
          .string()
          .optional()
          .describe('The asset the budget counts (absent until --asset or the first payment names it)'),
        budgetUnconfirmed: z
          .string()
          .optional()
          .describe('Reserved for payments whose answer was lost, until Townhall confirms them'),
        transaction: z
          .string()
          .optional()
          .describe('The payment transaction (a ledger entry id or a Solana signature)'),
        network: z.string().optional(),
      }),
    },
    (args, extra) => run(() => paidRsvp(session, args, extra.requestId)),
  );

  server.registerTool(
    'tickets_mine',
    {
      title: 'My tickets',
      description: "Lists this agent's tickets (active, pending or cancelled), oldest first. Free.",
      inputSchema: z.object({ cursor: Cursor.optional() }).strict(),
      outputSchema: z.object({ tickets: z.array(TicketViewSchema), ...Page }),
      annotations: { readOnlyHint: true },
    },
    ({ cursor }) =>
      run(async () => {
        const page = await agent.tickets.mine(cursor ? { cursor } : {});
        const lines = page.items.map((ticket) => `${ticket.id} event ${ticket.eventId} ${ticket.status}`);
        return answer({ tickets: page.items, ...next(page.nextCursor) }, lines.join('\n') || 'No tickets.');
      }),
  );
}
