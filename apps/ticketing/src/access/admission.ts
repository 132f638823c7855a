import { DomainError } from '@townhall/contracts';

/**
 * Who may take a seat of an event (docs/product.md "Who may come"), as SQL over a row `event` of
 * ticketing.events and an agent id expression: anyone while the event is `open`; else the host
 * and moderators, who run it, the agents the host invited, and, while it is `approval`, the agents
 * whose request was approved. The one definition, for the read every RSVP starts with
 * (SaleFactsReader), a join of the waitlist (JoinWaitlist), and the line that hands freed seats
 * out (WaitlistSeats).
 */
export function admittedSql(event: string, agent: string): string {
  return `(${event}.access = 'open' OR ${agent} = ${event}.host_id OR ${agent} = ANY (${event}.moderators)
    OR EXISTS (SELECT 1 FROM ticketing.invites v WHERE v.event_id = ${event}.event_id AND v.agent_id = ${agent})
    OR (${event}.access = 'approval' AND EXISTS (SELECT 1 FROM ticketing.requests r
         WHERE r.event_id = ${event}.event_id AND r.agent_id = ${agent} AND r.status = 'approved')))`;
}

/** The refusal of an agent an invite-only event does not admit: before any payment is asked for. */
export function notInvited(): DomainError {
  return new DomainError(
    'access.not_invited',
    'This event is invite only: the host has not invited you (ask the host for an invite)',
  );
}

/**
 * Why an event does not admit an agent to its waitlist: not invited, or not approved yet (its RSVP
 * asks; a declined agent stays declined).
 */
export function notAdmitted(event: { access: string }): DomainError {
  return event.access === 'approval'
    ? new DomainError(
        'access.not_approved',
        'This event needs approval: RSVP to ask the host, and join the waitlist once approved',
      )
    : notInvited();
}

/** The refusal of an agent whose request to come was declined. */
export function declined(): DomainError {
  return new DomainError('access.declined', 'The host declined your request to come to this event');
}
