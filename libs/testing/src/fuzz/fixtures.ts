import { generateAgentKey, type AgentKey } from '@townhall/auth';
import type { EventFieldsInput, EventView, PollView, QuestionView, SeriesView } from '@townhall/contracts';
import { AgentClient, TownhallError } from '@townhall/sdk';
import type { PaymentRequirements } from '@townhall/x402';

/** Who signs a fuzzed request: the roles an event has (host, moderator, speaker, attendee), plus an agent nobody has met. */
export type SignerRole = 'host' | 'moderator' | 'speaker' | 'attendee' | 'stranger' | 'fresh';

/**
 * Real resources for the fuzzer to aim at, so that ids in paths and bodies exist some of the time
 * and requests reach the services' logic, not only their "not found". `protectedEvents` are never
 * moved through their lifecycle by the fuzzer's valid requests (it would close the stage, the polls
 * and the Q&A for the rest of the run); `disposableEvents` are.
 */
export interface FuzzFixtures {
  baseUrl: string;
  audience: string;
  keys: Record<Exclude<SignerRole, 'fresh'>, AgentKey>;
  handles: string[];
  events: {
    free: string;
    tiered: string;
    single: string;
    /** A single-price event whose only seat is sold. */
    soldOut: string;
    live: string;
    past: string;
  };
  disposableEvents: string[];
  protectedEvents: Set<string>;
  seriesIds: string[];
  questionIds: string[];
  pollIds: string[];
  pollOptionIds: string[];
  tierIds: string[];
  /** What the 402 of each paid event offers, by event id, every tier (read before any sold out). */
  payments: Map<string, PaymentRequirements[]>;
  /**
   * Where the server sells in USDC on Solana: for each agent of `keys`, paid event and tier, a
   * payment the official x402 client signed with that agent's key (the x402 v2 PaymentPayload),
   * keyed `agentId event tier`. The fuzzer sends them as they are, tampered, or by another agent.
   */
  solanaPayments?: Map<string, SolanaPayment>;
}

/** An x402 v2 PaymentPayload for Solana `exact`, as the official client makes it. */
export interface SolanaPayment {
  x402Version: 2;
  accepted: Record<string, unknown>;
  payload: { transaction: string };
  resource?: unknown;
}

export function solanaPaymentKey(agentId: string, eventId: string, tierId: string): string {
  return `${agentId} ${eventId} ${tierId}`;
}

/** Where the fuzzed server takes money, when not on its ledger. */
export interface FixtureOptions {
  /** The Solana JSON-RPC of a server that sells on Solana (X402_FACILITATOR=solana-local). */
  solanaRpcUrl?: string;
}

const HOUR = 3_600_000;
/** The most one faucet call mints by default (LEDGER_FAUCET_MAX_AMOUNT); the dearest tier costs 5,000. */
const FUNDS = '1000000';

function anEvent(title: string, overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Math.ceil(Date.now() / HOUR) * HOUR + 48 * HOUR);
  return {
    title,
    description: `Created by the fuzzer: ${title}`,
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + 2 * HOUR).toISOString(),
    timezone: 'Europe/Berlin',
    capacity: 40,
    ...overrides,
  };
}

/** Retries what another service learns of asynchronously (a projection still catching up). */
async function eventually<T>(what: string, attempt: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      const retryable = error instanceof TownhallError && [404, 409, 503].includes(error.status);
      if (!retryable || Date.now() > deadline) {
        throw new Error(
          `fuzz fixtures: ${what} failed: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
          },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
  }
}

async function requirementsOf(client: AgentClient, eventId: string): Promise<PaymentRequirements[]> {
  try {
    await client.request('POST', `/events/${eventId}/rsvp`, { body: {} });
  } catch (error) {
    if (error instanceof TownhallError && error.status === 402) {
      return (error.problem['accepts'] ?? []) as PaymentRequirements[];
    }
    throw error;
  }
  throw new Error(`fuzz fixtures: an RSVP to paid event ${eventId} without payment succeeded`);
}

/** Creates the fixtures through the public API, as agents would. */
export async function createFixtures(
  baseUrl: string,
  audience: string,
  options: FixtureOptions = {},
): Promise<FuzzFixtures> {
  const rpcUrl = options.solanaRpcUrl;
  /** How agents pay: on the ledger, or (with a Solana RPC) in USDC on the server's chain. */
  const paying = (maxPrice: string) =>
    rpcUrl === undefined ? { maxPrice } : { maxPrice, network: SOLANA_DEVNET, rpcUrl };
  const client = (key: AgentKey) => new AgentClient({ baseUrl, audience, key });
  const keys = {
    host: generateAgentKey(),
    moderator: generateAgentKey(),
    speaker: generateAgentKey(),
    attendee: generateAgentKey(),
    stranger: generateAgentKey(),
  };
  const host = client(keys.host);
  const attendee = client(keys.attendee);
  const stranger = client(keys.stranger);
  const suffix = keys.host.agentId
    .slice(0, 8)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x');
  const handles = [`fuzz_host_${suffix}`, `fuzz_attendee_${suffix}`];

  await host.directory.putMe({ handle: handles[0]!, displayName: 'Fuzz host', bio: 'Hosts the fuzzer' });
  await attendee.directory.putMe({ handle: handles[1]!, displayName: 'Fuzz attendee' });
  for (const agent of [host, attendee, stranger])
    await (rpcUrl === undefined
      ? agent.ledger.faucet(FUNDS)
      : agent.ledger.faucet(FUNDS, undefined, SOLANA_DEVNET));

  // Every agent of the fixtures signs once before the run, so that the gateway has seen its key:
  // the fuzzer's RFC 9421 signatures name it by thumbprint as well (message-signing.ts).
  for (const key of [keys.moderator, keys.speaker]) await client(key).ledger.balance();
  const roles = { moderators: [keys.moderator.agentId], speakers: [keys.speaker.agentId] };
  const free = await host.events.create(anEvent('Free fuzz meetup', roles));
  const tiered = await host.events.create(
    anEvent('Tiered fuzz workshop', {
      capacity: 30,
      ticketing: {
        mode: 'tiered',
        asset: 'USDC',
        tiers: [
          { id: 'general', name: 'General', price: '1000', capacity: 25 },
          { id: 'vip', name: 'VIP', price: '5000', capacity: 1 },
        ],
      },
    }),
  );
  const single = await host.events.create(
    anEvent('Single-price fuzz talk', { ticketing: { mode: 'single', asset: 'USDC', price: '700' } }),
  );
  const soldOut = await host.events.create(
    anEvent('Sold-out fuzz dinner', {
      capacity: 1,
      ticketing: { mode: 'single', asset: 'USDC', price: '300' },
    }),
  );
  const live = await host.events.create(anEvent('Live fuzz AMA', roles));
  const past = await host.events.create(anEvent('Past fuzz panel', roles));
  const disposable: EventView[] = [];
  for (let i = 0; i < 3; i++)
    disposable.push(await host.events.create(anEvent(`Disposable fuzz event ${i}`)));

  const payments = new Map<string, PaymentRequirements[]>();
  payments.set(
    tiered.id,
    await eventually('402 of the tiered event', () => requirementsOf(stranger, tiered.id)),
  );
  payments.set(
    single.id,
    await eventually('402 of the single event', () => requirementsOf(stranger, single.id)),
  );
  payments.set(
    soldOut.id,
    await eventually('402 of the sold-out event', () => requirementsOf(stranger, soldOut.id)),
  );
  const solanaPayments = rpcUrl === undefined ? undefined : await solanaPaymentsFor(keys, payments, rpcUrl);
  await eventually('buying the last seat', () => attendee.tickets.rsvp(soldOut.id, paying('300')));
  // The attendee buys the only VIP seat: the tier is sold out for everyone else.
  await eventually('buying the VIP seat', () =>
    attendee.tickets.rsvp(tiered.id, { tierId: 'vip', ...paying('5000') }),
  );
  await eventually('free RSVP', () => attendee.tickets.rsvp(free.id));
  await eventually('live RSVP', () => attendee.tickets.rsvp(live.id));
  await eventually('past RSVP', () => attendee.tickets.rsvp(past.id));

  await host.events.start(live.id);
  await eventually('stage message', () => host.stage.post(live.id, 'Welcome to the fuzz AMA'));
  const question: QuestionView = await eventually('question', () =>
    attendee.questions.submit(live.id, 'What does the fuzzer look for?'),
  );
  const poll: PollView = await eventually('poll', () =>
    host.polls.open(live.id, { question: 'Which input breaks it?', options: ['NUL', 'Surrogates', 'Dates'] }),
  );
  await host.events.start(past.id);
  await eventually('past stage message', () => host.stage.post(past.id, 'This one is over soon'));
  await host.events.end(past.id);

  const nextYear = new Date().getUTCFullYear() + 1;
  const series: SeriesView = await host.series.create({
    title: 'Weekly fuzz sync',
    recurrence: {
      startsAt: `${nextYear}-03-01T10:00`,
      timezone: 'Europe/Berlin',
      rrule: 'FREQ=WEEKLY;COUNT=6',
    },
    template: { durationMinutes: 60, capacity: 10 },
  });

  return {
    baseUrl,
    audience,
    keys,
    handles,
    events: {
      free: free.id,
      tiered: tiered.id,
      single: single.id,
      soldOut: soldOut.id,
      live: live.id,
      past: past.id,
    },
    disposableEvents: disposable.map((event) => event.id),
    protectedEvents: new Set([free.id, tiered.id, single.id, soldOut.id, live.id, past.id]),
    seriesIds: [series.id],
    questionIds: [question.id],
    pollIds: [poll.id],
    pollOptionIds: poll.options.map((option) => option.id),
    tierIds: ['general', 'vip'],
    payments,
    ...(solanaPayments ? { solanaPayments } : {}),
  };
}

const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/**
 * A payment for every agent, paid event and tier, signed now by the official x402 client with
 * the agent's own key (loaded only here: @solana/kit is not for ledger runs). Signed before any
 * fuzzed request, they hold a blockhash for about a minute: a longer run's late ones are refused
 * by the facilitator as expired, which is an answer like any other.
 */
async function solanaPaymentsFor(
  keys: FuzzFixtures['keys'],
  payments: Map<string, PaymentRequirements[]>,
  rpcUrl: string,
): Promise<Map<string, SolanaPayment>> {
  const { SolanaPayer } = await import('@townhall/sdk/solana');
  const { toPaymentRequirementsV2 } = await import('@townhall/x402');
  const signed = new Map<string, SolanaPayment>();
  for (const key of Object.values(keys)) {
    const payer = await SolanaPayer.create(key, { rpcUrl, networks: [SOLANA_DEVNET] });
    for (const [eventId, offers] of payments) {
      for (const offer of offers) {
        const accept = toPaymentRequirementsV2(offer);
        const header = await payer.sign({
          x402Version: 2,
          resource: { url: offer.resource },
          accepts: [accept],
        });
        signed.set(
          solanaPaymentKey(key.agentId, eventId, offer.extra.tierId),
          JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as SolanaPayment,
        );
      }
    }
  }
  return signed;
}
