// The demo: a whole paid AMA against a running instance, one readable line per step.
// Importable (`runDemo`) as well as run by `townhall demo`.
import { randomBytes } from 'node:crypto';
import type { EventView, QuestionView, RecordingView } from '@townhall/contracts';
import { AgentClient, TownhallError } from '@townhall/sdk';
import { formatAmount } from '@townhall/x402';

export interface DemoOptions {
  /** The gateway, e.g. http://localhost:3000. */
  baseUrl: string;
  /** The server's PUBLIC_BASE_URL when it is not the origin of baseUrl. */
  audience?: string;
  /** Receives each step as one line. */
  log?: (line: string) => void;
  /** How long to wait for what happens asynchronously (the recording); default 30 s. */
  timeoutMs?: number;
  /**
   * Solana JSON-RPC, for a server that sells on chain (`npm start -- --solana-local`: its
   * http://127.0.0.1:8899, the default): the host's token balance is read there.
   */
  rpcUrl?: string;
}

export interface DemoResult {
  eventId: string;
  /** agentId per role. */
  agents: Record<Role, string>;
  questionId: string;
  pollId: string;
  recording: RecordingView;
  /** Message types a viewer of the live stream saw, in order. */
  liveTypes: string[];
}

/** The demo failed at a step; `cause` is what went wrong (often a TownhallError). */
export class DemoStepError extends Error {
  override readonly name = 'DemoStepError';
  constructor(
    readonly step: string,
    readonly hint: string | undefined,
    options: { cause: unknown },
  ) {
    super(`the demo stopped at: ${step}`, options);
  }
}

type Role = 'host' | 'moderator' | 'speaker' | 'ada' | 'bob' | 'cy';
const ATTENDEES = ['ada', 'bob', 'cy'] as const;
const PRICE = '2500';
const ASSET = 'USDC';
const FAUCET = '10000';

/**
 * Runs the AMA: six agents with their own keys and @handles; the host schedules a paid event
 * with a moderator and a speaker; three attendees fund themselves from the faucet, pay for
 * tickets through the 402 flow and ask pre-questions; the event goes live, the speaker talks,
 * the moderator promotes the top question and marks it answered, a poll runs; the event ends,
 * and the host publishes the recording, which anyone then reads.
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const log = options.log ?? (() => undefined);
  const timeoutMs = options.timeoutMs ?? 30_000;
  let number = 0;
  const step = async <T>(
    what: string,
    run: () => Promise<T>,
    hint?: (error: unknown) => string | undefined,
  ) => {
    try {
      return await run();
    } catch (error) {
      throw new DemoStepError(what, hint?.(error), { cause: error });
    }
  };
  const say = (line: string) => log(`${String(++number).padStart(2)}. ${line}`);

  const client = () =>
    new AgentClient({
      baseUrl: options.baseUrl,
      ...(options.audience ? { audience: options.audience } : {}),
    });
  const viewer = client();
  await step('reaching Townhall', () => viewer.events.list({ limit: 1 }));
  log(`Townhall answers at ${viewer.baseUrl}`);

  // Every agent is a fresh key; the suffix keeps handles unique when the demo runs again.
  const suffix = randomBytes(3).toString('hex');
  const roles: Role[] = ['host', 'moderator', 'speaker', ...ATTENDEES];
  const cast = Object.fromEntries(roles.map((role) => [role, client()])) as Record<Role, AgentClient>;
  const handle = (role: Role) => `@${role}_${suffix}`;
  await step('writing directory cards', () =>
    Promise.all(
      roles.map((role) =>
        cast[role].directory.putMe({ handle: `${role}_${suffix}`, displayName: `Demo ${role}` }),
      ),
    ),
  );
  say(
    `six agents, each its own Ed25519 key and @handle: host ${handle('host')}, moderator ${handle('moderator')}, speaker ${handle('speaker')}, attendees ${ATTENDEES.map(handle).join(', ')}`,
  );

  const startsAt = new Date(Date.now() + 10 * 60_000);
  const event: EventView = await step('scheduling the event', () =>
    cast.host.events.create({
      title: 'Ask the Townhall builders anything',
      description: 'A demo AMA: paid tickets over x402, pre-questions, a live stage, a poll and a recording.',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 60 * 60_000).toISOString(),
      timezone: 'UTC',
      capacity: 50,
      moderators: [cast.moderator.agentId],
      speakers: [cast.speaker.agentId],
      agenda: [
        { title: 'Welcome', startOffsetMinutes: 0, durationMinutes: 5, speakerIds: [cast.speaker.agentId] },
        { title: 'Your questions', startOffsetMinutes: 5, durationMinutes: 55 },
      ],
      ticketing: { mode: 'single', price: PRICE, asset: ASSET },
    }),
  );
  const eventId = event.id;
  say(
    `${handle('host')} scheduled "${event.title}" (${eventId}): ${formatAmount(PRICE, ASSET)} a ticket, ${event.capacity} seats`,
  );

  // A viewer follows the live stream (SSE) from here on; it needs no key and no ticket.
  const live = watchLive(viewer, eventId);
  await live.opened;

  // Where the server takes money: its 402 names the network (the ledger, or USDC on Solana).
  const offer = await step('asking the price', async () => {
    try {
      await cast.ada.tickets.rsvp(eventId);
    } catch (error) {
      if (error instanceof TownhallError && error.status === 402)
        return (
          error.problem['accepts'] as Array<{ maxAmountRequired: string; network: string; asset: string }>
        )[0]!;
      throw error;
    }
    throw new Error('a paid event gave a ticket without payment');
  });
  const onChain = offer.network.startsWith('solana:');
  const rpcUrl = options.rpcUrl ?? 'http://127.0.0.1:8899';
  const hostTokens = async () => {
    const { walletBalances } = await import('@townhall/sdk/solana');
    return (await walletBalances(cast.host.agentId, { rpcUrl, mint: offer.asset })).tokens;
  };
  await step(
    onChain
      ? 'minting test USDC to the attendees on the local chain'
      : 'funding the attendees from the ledger faucet',
    () =>
      Promise.all(
        ATTENDEES.map((role) =>
          onChain
            ? cast[role].ledger.faucet(FAUCET, undefined, offer.network)
            : cast[role].ledger.faucet(FAUCET, ASSET),
        ),
      ),
    (error) =>
      error instanceof TownhallError && error.code === 'ledger.faucet_disabled'
        ? 'the demo needs the faucet: start the server with LEDGER_FAUCET=true (npm start does)'
        : undefined,
  );
  say(
    onChain
      ? `each attendee got ${formatAmount(FAUCET, offer.asset)} of test USDC (mint ${offer.asset}) in its own token account on ${offer.network}: its agentId is its Solana address`
      : `each attendee took ${formatAmount(FAUCET, ASSET)} from the ledger faucet (POST /ledger/faucet)`,
  );
  const hostBefore = onChain ? await step("reading the host's token balance", hostTokens) : undefined;

  for (const role of ATTENDEES) {
    const attendee = cast[role];
    const bought = await step(`buying ${handle(role)}'s ticket`, async () => {
      const result = await attendee.tickets.rsvp(
        eventId,
        onChain ? { maxPrice: PRICE, network: offer.network, rpcUrl } : { maxPrice: PRICE, asset: ASSET },
      );
      // The demo's event is open: nobody's RSVP waits for an approval.
      if ('request' in result) throw new Error('an open event took an RSVP as a request to come');
      return result;
    });
    say(
      onChain
        ? `${handle(role)} got 402 Payment Required (${formatAmount(offer.maxAmountRequired, offer.asset)}), signed a USDC transfer with its own key and holds ticket ${bought.ticket.id} (Solana transaction ${bought.payment?.transaction ?? '-'})`
        : `${handle(role)} got 402 Payment Required (${formatAmount(offer.maxAmountRequired, ASSET)}), signed an x402 payment and holds ticket ${bought.ticket.id} (ledger entry ${bought.payment?.transaction ?? '-'})`,
    );
  }
  if (onChain) {
    const hostAfter = await step("reading the host's token balance", hostTokens);
    say(
      `${handle('host')}'s own USDC token account went from ${formatAmount(hostBefore ?? 0n, offer.asset)} to ${formatAmount(hostAfter, offer.asset)}: paid on chain, no custody`,
    );
  }

  const asked = await step('asking pre-questions', async () => [
    await cast.ada.questions.submit(eventId, 'How do you keep paid RSVPs from overselling under load?'),
    await cast.bob.questions.submit(eventId, 'What is next on the roadmap?'),
    await cast.cy.questions.submit(eventId, 'Can agents run their own events on a schedule?'),
  ]);
  const [oversell, roadmap, schedule] = asked as [QuestionView, QuestionView, QuestionView];
  await step('upvoting', async () => {
    await cast.bob.questions.upvote(eventId, oversell.id);
    await cast.cy.questions.upvote(eventId, oversell.id);
    await cast.ada.questions.upvote(eventId, schedule.id);
  });
  say(
    `3 pre-questions asked while scheduled; ${handle('bob')} and ${handle('cy')} upvoted "${oversell.body}", ${handle('ada')} upvoted "${schedule.body}" (none for "${roadmap.body}")`,
  );

  await step('starting the event', () => cast.host.events.start(eventId));
  say(`${handle('host')} started the event: it is live, the stage is open`);

  await step('posting on stage', () =>
    cast.speaker.stage.post(
      eventId,
      'Welcome, everyone! Thanks for the questions, let us start with the top one.',
    ),
  );
  say(`${handle('speaker')} posted a welcome on the stage`);

  const top = await step('reading the top question', async () => {
    const { items } = await viewer.questions.list(eventId, { sort: 'top' });
    if (!items[0]) throw new Error('no questions listed');
    return items[0];
  });
  await step('promoting the top question', () => cast.moderator.questions.promote(eventId, top.id));
  say(
    `${handle('moderator')} promoted the top question (${top.upvotes} upvotes) onto the stage: "${top.body}"`,
  );
  await step('answering on stage', () =>
    cast.speaker.stage.post(
      eventId,
      'Every seat is taken with one conditional update in the same transaction as the payment.',
    ),
  );
  const answered = await step('marking the question answered', () =>
    cast.moderator.questions.answer(eventId, top.id),
  );
  say(`${handle('speaker')} answered on stage; ${handle('moderator')} marked the question ${answered.state}`);

  const poll = await step('opening a poll', () =>
    cast.speaker.polls.open(eventId, {
      question: 'What should we build next?',
      options: ['Standalone mode', 'More SDKs', 'Better docs'],
    }),
  );
  const [standalone, sdks] = poll.options;
  await step('voting', async () => {
    await cast.ada.polls.vote(eventId, poll.id, [standalone!.id]);
    await cast.bob.polls.vote(eventId, poll.id, [standalone!.id]);
    await cast.cy.polls.vote(eventId, poll.id, [sdks!.id]);
  });
  say(`${handle('speaker')} opened a poll "${poll.question}"; the three attendees voted`);
  const closed = await step('closing the poll', () => cast.moderator.polls.close(eventId, poll.id));
  say(
    `${handle('moderator')} closed the poll: ${closed.options.map((option) => `${option.label} ${option.votes ?? '-'}`).join(', ')}`,
  );

  await step('ending the event', () => cast.host.events.end(eventId));
  say(`${handle('host')} ended the event: polls closed, recording being assembled`);

  const draft = await step('waiting for the recording', () =>
    eventually(timeoutMs, async () => {
      const recording = await cast.host.recordings.draft(eventId);
      // Attendance follows ticketing's domain events; wait until it counts every ticket.
      return recording.transcript.attendance.ticketsIssued >= ATTENDEES.length ? recording : undefined;
    }),
  );
  say(
    `the recording is assembled: ${draft.transcript.stage.length} stage messages, ${draft.transcript.questions.length} questions, ${draft.transcript.polls.length} poll, ${draft.transcript.attendance.ticketsIssued} tickets`,
  );

  const summary = `${ATTENDEES.length} paying attendees; the top question was "${top.body}"; the poll chose ${
    [...closed.options].sort((a, b) => (b.votes ?? 0) - (a.votes ?? 0))[0]?.label ?? '-'
  }.`;
  await step('publishing the recording', () => cast.host.recordings.publish(eventId, { summary }));
  const recording = await step('reading the published recording', () => viewer.recordings.get(eventId));
  say(`${handle('host')} published the recording; anyone reads it now: "${recording.summary ?? ''}"`);

  if (onChain) {
    const { items } = await step("reading the host's ledger", () => cast.host.ledger.entries({ limit: 100 }));
    const sales = items.filter((entry) => entry.type === 'EVENT_TICKET' && entry.eventId === eventId);
    say(
      `${handle('host')}'s ledger records the ${sales.length} sales with their Solana transactions (no ledger balance moved: the USDC is in its own token account)`,
    );
  } else {
    const balance = await step("reading the host's balance", () => cast.host.ledger.balance());
    const earned = balance.balances.find((entry) => entry.asset === ASSET)?.amount ?? '0';
    say(
      `${handle('host')}'s ledger balance: ${formatAmount(earned, ASSET)} from ${ATTENDEES.length} tickets`,
    );
  }

  const { types: liveTypes, failure } = await live.stop();
  say(
    `a viewer of the live stream (SSE, no key needed) saw ${liveTypes.length} messages, e.g. ${[...new Set(liveTypes)].slice(0, 4).join(', ')}${
      failure ? ` (its stream failed: ${failure instanceof Error ? failure.message : String(failure)})` : ''
    }`,
  );
  log(`done: townhall events get ${eventId}   townhall recording get ${eventId}`);

  return {
    eventId,
    agents: Object.fromEntries(roles.map((role) => [role, cast[role].agentId])) as Record<Role, string>,
    questionId: top.id,
    pollId: poll.id,
    recording,
    liveTypes,
  };
}

/** Follows the event's live stream in the background; `stop()` ends it and gives what it saw. */
function watchLive(viewer: AgentClient, eventId: string) {
  const controller = new AbortController();
  const types: string[] = [];
  let markOpen: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    markOpen = resolve;
    // The demo does not depend on the viewer: give up waiting after a few seconds.
    setTimeout(resolve, 5_000).unref();
  });
  // The viewer is a bystander: if its stream fails, the demo says so at the end and goes on.
  const reading: Promise<unknown> = (async () => {
    for await (const message of viewer.events.live(eventId, { signal: controller.signal, onOpen: markOpen }))
      types.push(message.type);
    return undefined;
  })().then(
    (ok) => ok,
    (error: unknown) => error,
  );
  return {
    opened,
    async stop(): Promise<{ types: string[]; failure: unknown }> {
      // The last messages (the recording's) may still be on their way: give them a moment.
      await new Promise((resolve) => setTimeout(resolve, 300));
      controller.abort();
      return { types, failure: await reading };
    },
  };
}

/** Polls `probe` until it gives a value (a 404 counts as not yet) or the time is up. */
async function eventually<T>(timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (!(error instanceof TownhallError) || error.status !== 404) throw error;
      last = error;
    }
    if (Date.now() > deadline) throw last ?? new Error(`not ready after ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
