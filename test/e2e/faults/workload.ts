// The fault tests' shared workload and invariants: a burst of signed writes of every kind
// (paid RSVPs, questions, upvotes, directory cards) against a topology, a fault injected while
// it runs, and then what must hold whatever the fault was.
import { jetstreamManager } from '@nats-io/jetstream';
import { TOWNHALL_STREAM, type EventFieldsInput } from '@townhall/contracts';
import { TownhallError, type AgentClient, type RsvpTicketResult } from '@townhall/sdk';
import { waitFor, type Topology } from '@townhall/testing';
import pg from 'pg';

const HOUR = 3_600_000;
export const PRICE = '100';
/** The codes a client may see while a dependency is down: each tells it to retry (Retry-After). */
export const RETRY_CODES = [
  'dependency.unavailable',
  'service.unavailable',
  'service.overloaded',
  'service.timeout',
];

export type WriteKind = 'rsvp' | 'question' | 'upvote' | 'card';

/** One signed write as the client saw it. */
export interface Write {
  kind: WriteKind;
  agent: AgentClient;
  /** The id the service answered with (ticket, question), when it succeeded. */
  id?: string;
  ok: boolean;
  status?: number;
  code?: string;
  retryAfter?: string | null;
  /** A failure that was not an HTTP answer (the connection was refused or reset). */
  network?: string;
  ms: number;
  /** When it was answered (Date.now()). */
  at: number;
  /** Later than the `after`-th answer of the burst: the fault had been injected. */
  afterFault: boolean;
}

export function aPaidEvent(capacity = 1_000): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Faults',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity,
    ticketing: { mode: 'single', price: PRICE, asset: 'USDC' },
  };
}

/** `count` agents with 1,000 on the ledger each (the faucet is on in these topologies). */
export async function fundedAgents(topology: Topology, count: number): Promise<AgentClient[]> {
  const agents = Array.from({ length: count }, () => topology.client());
  for (let index = 0; index < agents.length; index += 50) {
    await Promise.all(agents.slice(index, index + 50).map((agent) => agent.ledger.faucet('1000')));
  }
  return agents;
}

/** The stage a burst runs on: a paid event, and a question of the host's that everyone upvotes. */
export interface Stage {
  eventId: string;
  hostQuestionId: string;
}

export async function aStage(topology: Topology, host: AgentClient): Promise<Stage> {
  await recordOutboxes(topology);
  const event = await host.events.create(aPaidEvent());
  const question = await host.questions.submit(event.id, 'What does a fault cost?');
  return { eventId: event.id, hostQuestionId: question.id };
}

/** The services' outboxes. */
const OUTBOXES = ['events', 'ticketing', 'engagement', 'directory'];

/**
 * From now on, keeps the id of every row committed to the services' outboxes in
 * `public.outbox_record` (a trigger of the test's, in the transaction that wrote the row): the
 * relays delete a row once JetStream acknowledged its event, so this is what tells how many events
 * the changes committed. Idempotent; aStage calls it before the workload's first write.
 */
async function recordOutboxes(topology: Topology): Promise<void> {
  const db = new pg.Client({ connectionString: topology.database.url });
  await db.connect();
  try {
    await db.query('CREATE TABLE IF NOT EXISTS public.outbox_record (id uuid PRIMARY KEY)');
    // SECURITY DEFINER: whichever role the apps write as, the record is the test's to write.
    await db.query(`CREATE OR REPLACE FUNCTION public.outbox_record() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER AS $$
      BEGIN
        INSERT INTO public.outbox_record (id) VALUES (NEW.id);
        RETURN NULL;
      END $$`);
    for (const schema of OUTBOXES)
      await db.query(`CREATE OR REPLACE TRIGGER outbox_record AFTER INSERT ON ${schema}.outbox
        FOR EACH ROW EXECUTE FUNCTION public.outbox_record()`);
  } finally {
    await db.end();
  }
}

/** The directory handle the workload gives an agent's card. */
export function cardHandle(agent: AgentClient): string {
  return `fault_${agent.agentId.slice(0, 12).toLowerCase()}`;
}

/** One signed write, timed, as the client saw it. */
export async function attempt(
  kind: WriteKind,
  agent: AgentClient,
  call: () => Promise<string>,
  afterFault = true,
): Promise<Write> {
  const started = Date.now();
  const record: Write = { kind, agent, ok: false, ms: 0, at: 0, afterFault };
  try {
    record.id = await call();
    record.ok = true;
  } catch (error) {
    if (error instanceof TownhallError) {
      record.status = error.status;
      record.code = error.code;
      record.retryAfter = error.headers.get('retry-after');
    } else {
      record.network =
        error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error);
    }
  }
  record.at = Date.now();
  record.ms = record.at - started;
  return record;
}

/**
 * Every agent at once: a paid RSVP (two signed writes, the 402 then the payment), then a
 * question, an upvote of the host's question and a directory card: four or five writes each.
 * Once `after` writes have been answered, `fault` runs (not awaited). An agent whose RSVP failed
 * goes on with its card only (its question would rightly be refused: it holds no ticket).
 */
export async function burst(
  agents: AgentClient[],
  stage: Stage,
  after: number,
  fault: () => void,
): Promise<Write[]> {
  const writes: Write[] = [];
  let answered = 0;
  const write = async (kind: WriteKind, agent: AgentClient, call: () => Promise<string>): Promise<Write> => {
    const record = await attempt(kind, agent, call, answered >= after);
    writes.push(record);
    if (++answered === after) fault();
    return record;
  };
  await Promise.all(
    agents.map(async (agent, index) => {
      const rsvp = await write('rsvp', agent, async () => {
        const { ticket } = (await agent.tickets.rsvp(stage.eventId, { maxPrice: PRICE })) as RsvpTicketResult;
        return ticket.id;
      });
      if (rsvp.ok) {
        await write(
          'question',
          agent,
          async () => (await agent.questions.submit(stage.eventId, `Q${index}`)).id,
        );
        await write('upvote', agent, async () => {
          await agent.questions.upvote(stage.eventId, stage.hostQuestionId);
          return stage.hostQuestionId;
        });
      }
      await write('card', agent, async () => {
        await agent.directory.putMe({
          handle: cardHandle(agent),
          displayName: `A${index}`,
        });
        return agent.agentId;
      });
    }),
  );
  return writes;
}

/** `480 writes: 450 ok, 30 failed (dependency.unavailable 28, service.timeout 2), slowest 812 ms`. */
export function summary(writes: Write[]): string {
  const failed = writes.filter((write) => !write.ok);
  const codes = new Map<string, number>();
  for (const write of failed) {
    const code = write.code ?? 'network';
    codes.set(code, (codes.get(code) ?? 0) + 1);
  }
  const detail = [...codes].map(([code, count]) => `${code} ${count}`).join(', ');
  return `${writes.length} writes: ${writes.length - failed.length} ok, ${failed.length} failed${
    detail ? ` (${detail})` : ''
  }, slowest ${Math.max(...writes.map((write) => write.ms))} ms`;
}

/** One line of figures in the test's output (the CI log keeps it). */
export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Every failed write failed the way a fault allows: an HTTP 503 or 504 with a code that tells the
 * client to retry and a Retry-After, or (only where `network` allows it, e.g. a gateway killed) a
 * connection refused or cut. Never a 500, never another code, never past `maxMs`.
 */
export function expectOnlyRetryableFailures(
  writes: Write[],
  { maxMs, network = false }: { maxMs: number; network?: boolean },
): void {
  const wrong = writes.filter(
    (write) =>
      !write.ok &&
      !(
        (write.status !== undefined &&
          RETRY_CODES.includes(write.code ?? '') &&
          [503, 504].includes(write.status) &&
          write.retryAfter !== null) ||
        (network && write.network !== undefined)
      ),
  );
  expect(wrong.map(({ kind, status, code, network: cause }) => ({ kind, status, code, cause }))).toEqual([]);
  const slowest = Math.max(...writes.map((write) => write.ms));
  expect(slowest).toBeLessThanOrEqual(maxMs);
}

/** Each failed write tried once more, now that the fault is over; all of them must succeed. */
export async function retryFailed(writes: Write[], stage: Stage): Promise<Write[]> {
  const again = writes.filter((write) => !write.ok);
  const retried = await Promise.all(
    again.map(async (failed): Promise<Write> => {
      const agent = failed.agent;
      const started = Date.now();
      const record: Write = { ...failed, ok: false, afterFault: true };
      try {
        if (failed.kind === 'rsvp') {
          record.id = (
            (await agent.tickets.rsvp(stage.eventId, { maxPrice: PRICE })) as RsvpTicketResult
          ).ticket.id;
        } else if (failed.kind === 'question') {
          record.id = (await agent.questions.submit(stage.eventId, 'Asked again')).id;
        } else if (failed.kind === 'upvote') {
          await agent.questions.upvote(stage.eventId, stage.hostQuestionId);
        } else {
          await agent.directory.putMe({
            handle: cardHandle(agent),
            displayName: 'Again',
          });
        }
        record.ok = true;
      } catch (error) {
        record.code = error instanceof TownhallError ? error.code : String(error);
      }
      record.ms = Date.now() - started;
      return record;
    }),
  );
  expect(retried.filter((write) => !write.ok).map(({ kind, code }) => ({ kind, code }))).toEqual([]);
  return retried;
}

/**
 * How long after `since` the first signed write succeeds, trying every 50 ms: the time a client
 * waits for the system to recover once the fault is over.
 */
export async function recoveryMs(host: AgentClient, stage: Stage, since: number): Promise<number> {
  await waitFor(
    'a signed write to succeed',
    async () => {
      try {
        await host.questions.submit(stage.eventId, 'Back?');
        return true;
      } catch (error) {
        if (process.env['DEBUG_RECOVERY']) report(`${Date.now() - since} ms: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return undefined;
      }
    },
    30_000,
  );
  return Date.now() - since;
}

/**
 * What the databases say once the system has settled, whatever the fault was:
 * - ticketing is whole: every acknowledged ticket stored under its id; seats sold equal live
 *   tickets; one debit and one credit per ticket; balances sum to what the faucet gave; no
 *   payment without its ticket;
 * - every acknowledged question and upvote is stored; each question's upvote count equals its rows;
 * - every domain event a change committed was published (no outbox row left), exactly once (the
 *   stream holds as many messages as the outboxes were given rows: recordOutboxes);
 * - the projections converged, each event applied once: the events service's ticketsSold and
 *   question count, and engagement's attendance, equal the owners' rows.
 */
export async function expectWhole(topology: Topology, stage: Stage, writes: Write[]): Promise<void> {
  const db = new pg.Client({ connectionString: topology.database.url });
  await db.connect();
  try {
    await expectTicketingWhole(
      db,
      stage.eventId,
      writes
        .filter((write) => write.kind === 'rsvp' && write.ok)
        .map((write) => ({
          holderId: write.agent.agentId,
          ticketId: write.id!,
        })),
    );

    const { rows: questions } = await db.query<{ id: string; upvotes: number; rows: number }>(
      `SELECT q.id, q.upvotes, (SELECT count(*) FROM engagement.question_upvotes u WHERE u.question_id = q.id)::int AS rows
         FROM engagement.questions q WHERE q.event_id = $1`,
      [stage.eventId],
    );
    const stored = new Set(questions.map((question) => question.id));
    for (const write of writes.filter((item) => item.kind === 'question' && item.ok)) {
      expect(stored.has(write.id!)).toBe(true);
    }
    for (const question of questions) expect(question.upvotes).toBe(question.rows);
    const { rows: upvoters } = await db.query<{ agent_id: string }>(
      'SELECT agent_id FROM engagement.question_upvotes WHERE question_id = $1',
      [stage.hostQuestionId],
    );
    const voters = new Set(upvoters.map((row) => row.agent_id));
    for (const write of writes.filter((item) => item.kind === 'upvote' && item.ok)) {
      expect(voters.has(write.agent.agentId)).toBe(true);
    }
    const { rows: cards } = await db.query<{ agent_id: string }>('SELECT agent_id FROM directory.cards');
    const carded = new Set(cards.map((row) => row.agent_id));
    for (const write of writes.filter((item) => item.kind === 'card' && item.ok)) {
      expect(carded.has(write.agent.agentId)).toBe(true);
    }

    // Every committed change's domain events reach JetStream once the relays have caught up, and
    // each event's row is deleted once JetStream acknowledged it.
    const published = await waitFor(
      'every outbox published',
      async () => {
        const { rows } = await db.query<{ schema: string; pending: number; claimed: number }>(
          OUTBOXES.map(
            (schema) =>
              `SELECT '${schema}' AS schema, count(*)::int AS pending,
                      count(*) FILTER (WHERE claimed_until > now())::int AS claimed FROM ${schema}.outbox`,
          ).join(' UNION ALL '),
        );
        // What is still waiting, by outbox, and how much of it is under a live claim: the error
        // a timeout reports.
        if (rows.some((row) => row.pending > 0)) throw new Error(JSON.stringify(rows));
        const { rows: recorded } = await db.query<{ rows: number }>(
          'SELECT count(*)::int AS rows FROM public.outbox_record',
        );
        return recorded[0]!.rows;
      },
      30_000,
    );
    expect(await streamMessages(topology)).toBe(published);

    // The projections converge: every event applied, none twice.
    await untilConverged(db, stage.eventId, 30_000);
  } finally {
    await db.end();
  }
}

/** The owners' counts and the projections' for one event. */
async function projectionsOf(db: pg.Client, eventId: string): Promise<Record<string, number>> {
  const { rows } = await db.query<Record<string, number>>(
    `SELECT
       (SELECT count(*) FROM ticketing.tickets WHERE event_id = $1 AND status = 'active')::int AS tickets,
       (SELECT COALESCE(sum(value::int), 0) FROM events.events, jsonb_each_text(tickets_sold) WHERE id = $1)::int AS tickets_sold,
       (SELECT count(*) FROM engagement.attendance WHERE event_id = $1 AND cancelled_at IS NULL)::int AS attendance,
       (SELECT count(*) FROM engagement.questions WHERE event_id = $1)::int AS questions,
       (SELECT question_count FROM events.events WHERE id = $1) AS question_count`,
    [eventId],
  );
  return rows[0]!;
}

function converged(state: Record<string, number>): boolean {
  return (
    state['tickets_sold'] === state['tickets'] &&
    state['attendance'] === state['tickets'] &&
    state['question_count'] === state['questions']
  );
}

/**
 * Milliseconds from `since` until the derived views (the events service's ticketsSold and
 * question count, engagement's attendance) agree with their owners' rows, polled every 100 ms for
 * up to 60 s: how long a fault held them up.
 */
export async function convergenceMs(topology: Topology, stage: Stage, since: number): Promise<number> {
  const db = new pg.Client({ connectionString: topology.database.url });
  await db.connect();
  try {
    await untilConverged(db, stage.eventId, Math.max(0, since + 60_000 - Date.now()));
    return Date.now() - since;
  } finally {
    await db.end();
  }
}

/** Polls the projections of one event until they agree with their owners (the timeout names the state). */
function untilConverged(db: pg.Client, eventId: string, timeoutMs: number): Promise<boolean> {
  return waitFor(
    'the projections to converge',
    async () => {
      const state = await projectionsOf(db, eventId);
      if (!converged(state)) throw new Error(JSON.stringify(state));
      return true;
    },
    timeoutMs,
  );
}

/**
 * Ticketing is whole: no ticket left pending, seats sold (per event and per tier) equal live
 * tickets, one debit and one credit per ticket, no payment without its ticket, balances sum to
 * what the faucet gave, and every acknowledged ticket is stored for its holder under its id.
 */
export async function expectTicketingWhole(
  db: pg.Client,
  eventId: string,
  acknowledged: Array<{ holderId: string; ticketId: string }>,
): Promise<void> {
  const { rows: invariants } = await db.query<Record<string, number | string>>(
    `SELECT
       (SELECT count(*) FROM ticketing.tickets WHERE status = 'pending')::int AS pending_tickets,
       (SELECT count(*) FROM ticketing.tickets WHERE event_id = $1 AND status = 'active')::int AS active_tickets,
       (SELECT sold FROM ticketing.events WHERE event_id = $1) AS event_sold,
       (SELECT sum(sold) FROM ticketing.inventory WHERE event_id = $1)::int AS tier_sold,
       (SELECT count(*) FROM ticketing.ledger_entries WHERE event_id = $1 AND type = 'EVENT_TICKET' AND amount < 0)::int AS debits,
       (SELECT count(*) FROM ticketing.ledger_entries WHERE event_id = $1 AND type = 'EVENT_TICKET' AND amount > 0)::int AS credits,
       (SELECT count(*) FROM ticketing.payments WHERE event_id = $1 AND ticket_id IS NULL)::int AS payments_without_ticket,
       (SELECT COALESCE(sum(amount), 0) FROM ticketing.balances)::text AS balances,
       (SELECT COALESCE(sum(amount), 0) FROM ticketing.ledger_entries WHERE type = 'FAUCET')::text AS faucet`,
    [eventId],
  );
  const state = invariants[0]!;
  expect(state['pending_tickets']).toBe(0);
  expect(state['event_sold']).toBe(state['active_tickets']);
  expect(state['tier_sold']).toBe(state['active_tickets']);
  expect(state['debits']).toBe(state['active_tickets']);
  expect(state['credits']).toBe(state['active_tickets']);
  expect(state['payments_without_ticket']).toBe(0);
  expect(state['balances']).toBe(state['faucet']);

  const { rows: tickets } = await db.query<{ id: string; holder_id: string }>(
    `SELECT id, holder_id FROM ticketing.tickets WHERE event_id = $1 AND status = 'active'`,
    [eventId],
  );
  const stored = new Map(tickets.map((row) => [row.holder_id, row.id]));
  for (const { holderId, ticketId } of acknowledged) expect(stored.get(holderId)).toBe(ticketId);
}

/** How many messages the TOWNHALL stream holds. */
async function streamMessages(topology: Topology): Promise<number> {
  const nc = await topology.connectNats('auth-gateway');
  try {
    const info = await (await jetstreamManager(nc)).streams.info(TOWNHALL_STREAM);
    return info.state.messages;
  } finally {
    await nc.close();
  }
}
