import { DomainError } from '@townhall/contracts';

/**
 * Who may take a seat of an event (docs/product.md "Who may come"), as SQL over a row `event` of
 * ticketing.events and an agent id expression: anyone while the event is `open`; while it is
 * `invite`, the agents the host invited, and the host and moderators, who run it. The one
 * definition, for the read every RSVP starts with (SaleFactsReader), a join of the waitlist
 * (JoinWaitlist), and the line that hands freed seats out (WaitlistSeats).
 */
export function admittedSql(event: string, agent: string): string {
  return `(${event}.access = 'open' OR ${agent} = ${event}.host_id OR ${agent} = ANY (${event}.moderators)
    OR EXISTS (SELECT 1 FROM ticketing.invites v WHERE v.event_id = ${event}.event_id AND v.agent_id = ${agent}))`;
}

/** The refusal of an agent the event does not admit: before any payment is asked for. */
export function notInvited(): DomainError {
  return new DomainError(
    'access.not_invited',
    'This event is invite only: the host has not invited you (ask the host for an invite)',
  );
}
