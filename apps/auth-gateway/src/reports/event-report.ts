import {
  MAX_CARDS_AT_ONCE,
  type DirectoryCardList,
  type EngagementAnswer,
  type EventReport,
  type SalesReport,
} from '@townhall/contracts';

/** The directory asked this many batches of cards at once, at most (an event of 100,000 holders: 1,000 batches). */
const CARD_BATCHES_AT_ONCE = 8;

/**
 * Each agent's handle (null: it has no card), asking the directory for at most MAX_CARDS_AT_ONCE
 * agents a time and at most CARD_BATCHES_AT_ONCE batches at once. An agent named twice is asked once.
 */
export async function handlesOf(
  agentIds: readonly string[],
  getCards: (agentIds: string[]) => Promise<DirectoryCardList>,
): Promise<Map<string, string | null>> {
  const unique = [...new Set(agentIds)];
  const handles = new Map<string, string | null>(unique.map((agentId) => [agentId, null]));
  const batches: string[][] = [];
  for (let at = 0; at < unique.length; at += MAX_CARDS_AT_ONCE)
    batches.push(unique.slice(at, at + MAX_CARDS_AT_ONCE));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      const { items } = await getCards(batch);
      for (const card of items) if (handles.has(card.agentId)) handles.set(card.agentId, card.handle);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CARD_BATCHES_AT_ONCE, batches.length) }, worker));
  return handles;
}

export interface ReportParts {
  eventId: string;
  /** The event's status as the events service answered it. */
  status: string;
  generatedAt: string;
  sales: SalesReport;
  engagement: EngagementAnswer['report'];
  handles: ReadonlyMap<string, string | null>;
}

/** The public report: ticketing's part and engagement's, each attendee with its handle. */
export function eventReport({
  eventId,
  status,
  generatedAt,
  sales,
  engagement,
  handles,
}: ReportParts): EventReport {
  const { attendance } = engagement;
  return {
    eventId,
    status,
    generatedAt,
    ...sales,
    ...engagement,
    attendance: {
      ...attendance,
      byAgent: attendance.byAgent.map(({ agentId, minutes, firstSeenAt, lastSeenAt }) => ({
        agentId,
        handle: handles.get(agentId) ?? null,
        minutes,
        firstSeenAt,
        lastSeenAt,
      })),
    },
  };
}

/**
 * Waits for every one of `promises` and answers their values; if any failed, throws the failure of
 * the first in the order given (not the first in time), so that the same request is refused the
 * same way every time: an unknown event is `event.not_found` whichever service answers first.
 */
export async function allInOrder<const T extends readonly unknown[]>(
  promises: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(promises);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
