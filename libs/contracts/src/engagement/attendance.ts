// What the engagement service asks ticketing about an agent's ticket.
import { z } from 'zod';
import { AgentIdSchema } from '../agent-id.js';
import { contract } from '../contract.js';
import { EventIdSchema } from '../event-fields.js';

/** Whether an agent holds a live ticket: ticketing's answer to "is this agent an attendee". */
export interface AttendanceView {
  eventId: string;
  agentId: string;
  holdsTicket: boolean;
}

export const Attendance = {
  get: contract<AttendanceView>()(
    'ticketing.attendance.get',
    z.strictObject({ eventId: EventIdSchema, agentId: AgentIdSchema }),
  ),
} as const;
