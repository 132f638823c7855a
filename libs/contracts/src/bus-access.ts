import type { z } from 'zod';
import type { Contract } from './contract.js';
import { domainEventCatalog, type DomainEventType } from './domain-event-catalog.js';
import { Attendance } from './engagement.js';
import { Events } from './events.js';
import { Inventory } from './ticketing.js';

/**
 * The apps on the bus (package.json "townhall"), each a NATS user of its own. A service serves
 * the request patterns named after it (`events.event.get` is the events service's) and announces
 * the domain events whose catalog entry names it as their source.
 */
export const BUS_APPS = [
  'auth-gateway',
  'directory',
  'events',
  'ticketing',
  'engagement',
  'webhooks',
] as const;
export type BusApp = (typeof BUS_APPS)[number];

/** What one app may do on NATS besides serving its own patterns and announcing its own events. */
export interface BusAccess {
  /**
   * The requests it may send: every service's (the gateway, which verified the caller), or these
   * contracts only. A service trusts `meta.caller` because nothing else may send it requests.
   */
  readonly calls: 'every service' | readonly Contract<z.ZodType, unknown>[];
  /** The durable consumers it binds on the TOWNHALL stream (`<app>-<what it keeps>`), and no other. */
  readonly durables: readonly string[];
  /** Reads the stream through consumers of its own that keep no place (the gateway's live streams). */
  readonly readsStream: boolean;
}

/**
 * Who may do what on the bus: the one list that NATS authorization is generated from
 * (docs/security.md "The bus"), and that each app holds itself to in every mode (a durable or a
 * call missing here fails at start or at the call, on the in-process transport too).
 */
export const BUS_ACCESS: Readonly<Record<BusApp, BusAccess>> = {
  'auth-gateway': { calls: 'every service', durables: [], readsStream: true },
  directory: { calls: [], durables: [], readsStream: false },
  events: {
    calls: [Inventory.changeCapacity],
    durables: ['events-ticket-counts', 'events-question-counts', 'events-poll-counts', 'events-recordings'],
    readsStream: false,
  },
  ticketing: {
    calls: [Events.access],
    durables: ['ticketing-events', 'ticketing-series'],
    readsStream: false,
  },
  engagement: {
    calls: [Events.get, Events.access, Attendance.get],
    durables: ['engagement-events', 'engagement-tickets'],
    readsStream: false,
  },
  webhooks: { calls: [], durables: ['webhooks-fan-out'], readsStream: false },
};

/** The service that serves a request pattern: its first token. */
export function servingServiceOf(pattern: string): string {
  return pattern.split('.', 1)[0]!;
}

/** Whether `access` (the access of the app `caller`) lets it send a request on `pattern`. */
export function grantsCall(access: BusAccess, caller: string, pattern: string): boolean {
  const service = servingServiceOf(pattern);
  return access.calls === 'every service'
    ? service !== caller && service !== 'auth-gateway' && (BUS_APPS as readonly string[]).includes(service)
    : access.calls.some((contract) => contract.pattern === pattern);
}

/** Whether `app` may send a request on `pattern`. */
export function mayCall(app: BusApp, pattern: string): boolean {
  return grantsCall(BUS_ACCESS[app], app, pattern);
}

/** The domain event types `service` announces (their catalog source is `townhall/<service>`). */
export function announcedBy(service: BusApp): DomainEventType[] {
  return (Object.keys(domainEventCatalog) as DomainEventType[]).filter(
    (type) => domainEventCatalog[type].source === `townhall/${service}`,
  );
}

export function isBusApp(name: string): name is BusApp {
  return (BUS_APPS as readonly string[]).includes(name);
}

/** `name` as an app of the bus; a name BUS_ACCESS does not list is a bug, thrown. */
export function busAppOf(name: string): BusApp {
  if (!isBusApp(name))
    throw new Error(`${name} is not an app of BUS_ACCESS (libs/contracts/src/bus-access.ts)`);
  return name;
}
