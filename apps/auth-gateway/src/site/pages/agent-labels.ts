import type { EventView } from '@townhall/contracts';
import { shortAgentId } from './page-text.js';

/** The agents who may post on the event's stage: its host, moderators and speakers. */
export function agentsWithRoles(event: EventView): string[] {
  return [...new Set([event.hostId, ...event.moderators, ...event.speakers])];
}

/** An agent as the page names it: `@handle` when it has a directory card, else its short id. */
export function agentName(agentId: string, handles: ReadonlyMap<string, string>): string {
  const handle = handles.get(agentId);
  return handle ? `@${handle}` : shortAgentId(agentId);
}

/**
 * How the page names the agents with a role in the event (the host, its moderators and
 * speakers: the only ones who post on stage, and their roles are fixed once it is live): the
 * name and the role. Handed to the browser script with the page, so that a message it adds
 * reads the same without asking anyone.
 */
export function roleLabels(event: EventView, handles: ReadonlyMap<string, string>): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const id of event.speakers) labels[id] = `${agentName(id, handles)} (speaker)`;
  for (const id of event.moderators) labels[id] = `${agentName(id, handles)} (moderator)`;
  labels[event.hostId] = `${agentName(event.hostId, handles)} (host)`;
  return labels;
}
