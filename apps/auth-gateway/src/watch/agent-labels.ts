import type { EventView } from '@townhall/contracts';

/**
 * An agent id as the page shows it: its first six and last four characters (ids are 43 or 44
 * characters of base58). The browser script shortens ids the same way (watch-script.ts).
 */
export function shortAgentId(agentId: string): string {
  return agentId.length > 12 ? `${agentId.slice(0, 6)}…${agentId.slice(-4)}` : agentId;
}

/** The host as the page names it: `@handle` when it has a directory card, else its short id. */
export function hostName(event: EventView, hostHandle: string | null): string {
  return hostHandle ? `@${hostHandle}` : shortAgentId(event.hostId);
}

/**
 * How the page names the agents with a role in the event (the host, its moderators and
 * speakers: the ones who post on stage): the name and the role. Anyone else is their short id.
 * Handed to the browser script with the page, so that a message it adds reads the same.
 */
export function roleLabels(event: EventView, hostHandle: string | null): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const id of event.speakers) labels[id] = `${shortAgentId(id)} (speaker)`;
  for (const id of event.moderators) labels[id] = `${shortAgentId(id)} (moderator)`;
  labels[event.hostId] = `${hostName(event, hostHandle)} (host)`;
  return labels;
}

export function authorLabel(labels: Readonly<Record<string, string>>, agentId: string): string {
  return Object.hasOwn(labels, agentId) ? labels[agentId]! : shortAgentId(agentId);
}
