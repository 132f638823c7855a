import { randomUUID } from 'node:crypto';
import type {
  AccessRequestView,
  CloudEvent,
  CodeView,
  EventView,
  LedgerEntryView,
  QuestionView,
  StageMessageView,
  TicketView,
} from '@townhall/contracts';

/**
 * An event as the events service answers it, for unit tests of what reads one (pages, renderers):
 * a live, free AMA with 100 seats; `fields` overrides any of it. A new field of EventView is added
 * here once, for every such test.
 */
export function anEventView(fields: Partial<EventView> = {}): EventView {
  return {
    id: '6f1c3e2a-1b2c-4d5e-8f90-123456789abc',
    title: 'Ask me anything',
    description: '',
    agenda: [],
    startsAt: '2027-03-04T18:00:00.000Z',
    endsAt: '2027-03-04T19:30:00.000Z',
    timezone: 'UTC',
    hostId: 'HostAgent5Yq2x8dWnH3vJk7mPa9bCd4eFg6hKjLmNp',
    moderators: [],
    speakers: [],
    capacity: 100,
    ticketing: { mode: 'free' },
    moderation: { questions: 'post', reportThreshold: 3 },
    offerMinutes: 15,
    access: 'open',
    status: 'live',
    seriesId: null,
    counts: { ticketsSold: {}, questions: 0, polls: 0 },
    version: 1,
    createdAt: '2027-01-01T00:00:00.000Z',
    updatedAt: '2027-01-01T00:00:00.000Z',
    startedAt: null,
    endedAt: null,
    cancelledAt: null,
    recordingPublishedAt: null,
    ...fields,
  };
}

/**
 * A free ticket of the general tier as ticketing issues it (the data of townhall.ticket.issued),
 * held by `holderId` for `eventId`, issued now, under an id of its own: what a service that
 * counts or checks tickets is told of them.
 */
export function anIssuedTicketView(eventId: string, holderId: string): TicketView {
  return {
    id: randomUUID(),
    eventId,
    tierId: 'general',
    holderId,
    status: 'active',
    price: '0',
    network: null,
    transaction: null,
    asset: null,
    code: null,
    createdAt: new Date().toISOString(),
    cancelledAt: null,
  };
}

/**
 * A question as engagement announces it (the data of townhall.question.*): open, no upvotes,
 * asked now under an id of its own; `fields` overrides any of it.
 */
export function aQuestionView(
  fields: Partial<QuestionView> & Pick<QuestionView, 'eventId' | 'authorId'>,
): QuestionView {
  return {
    id: randomUUID(),
    body: 'Why?',
    upvotes: 0,
    state: 'open',
    createdAt: new Date().toISOString(),
    ...fields,
  };
}

/**
 * A ledger entry as ticketing announces it (the data of townhall.ledger.entry_recorded): a ticket
 * paid on the ledger now, under ids of its own; `fields` overrides any of it.
 */
export function aLedgerEntryView(
  fields: Partial<LedgerEntryView> & Pick<LedgerEntryView, 'agentId' | 'amount'>,
): LedgerEntryView {
  const onTheLedger = { network: null, transaction: null };
  return {
    id: randomUUID(),
    type: 'EVENT_TICKET',
    asset: 'USDC',
    ticketId: randomUUID(),
    eventId: null,
    createdAt: new Date().toISOString(),
    counterpartyId: null,
    code: null,
    ...onTheLedger,
    ...fields,
  };
}

/**
 * A domain event of `type` carrying `data` as the stream hands it over, for tests of what reads
 * one: whether the catalog takes its data is the test's to choose.
 */
export function aCloudEvent(type: string, data: unknown): CloudEvent {
  return {
    specversion: '1.0',
    id: randomUUID(),
    source: 'townhall/test',
    type,
    subject: 'event-1',
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    data,
  };
}

/**
 * The host's code SPRING25 of event e1 as ticketing answers it: 25% off the general tier, used 0
 * of 5 times, no expiry; `fields` overrides any of it.
 */
export function aCodeView(fields: Partial<CodeView> = {}): CodeView {
  return {
    eventId: 'e1',
    code: 'SPRING25',
    percentOff: 25,
    amountOff: null,
    free: false,
    maxUses: 5,
    uses: 0,
    tierIds: ['general'],
    unlocksTierIds: [],
    expiresAt: null,
    createdAt: '2027-03-01T10:00:00.000Z',
    ...fields,
  };
}

/** agent-b's request to come to e1 as ticketing answers it, not decided yet; `fields` overrides any of it. */
export function anAccessRequestView(fields: Partial<AccessRequestView> = {}): AccessRequestView {
  return {
    eventId: 'e1',
    agentId: 'agent-b',
    status: 'requested',
    tierId: null,
    holdExpiresAt: null,
    requestedAt: '2027-03-04T19:05:00.000Z',
    decidedAt: null,
    decidedBy: null,
    ...fields,
  };
}

/**
 * Message #3 of e1's stage, by `speaker`, hidden by a moderator (its body withheld), as engagement
 * answers it; `fields` overrides any of it.
 */
export function aStageMessageView(fields: Partial<StageMessageView> = {}): StageMessageView {
  return {
    id: 'm1',
    eventId: 'e1',
    sequence: 3,
    authorId: 'speaker',
    body: null,
    hidden: true,
    kind: 'message',
    questionId: null,
    createdAt: '2027-03-04T19:05:06.000Z',
    ...fields,
  };
}
