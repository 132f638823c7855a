import {
  domainEventCatalog,
  isDomainEventType,
  isUuid,
  type CloudEvent,
  type DomainEvent,
  type DomainEventSpec,
} from '@townhall/contracts';

/**
 * What a consumer makes of a delivered domain event, before any handler sees it:
 * - `read`: its data parsed by domainEventCatalog's schema of its type (the parsed data is what
 *   the handler is handed, as @Handle hands a request's);
 * - `unknown`: a type this release's catalog does not have (announced by a newer release during a
 *   rollout): no handler of this release can take it, so it is passed over;
 * - `malformed`: data its type's schema refuses. Handing it over again would fail the same way
 *   forever, so it is dropped like a malformed envelope: logged as an error and never redelivered.
 */
export type DomainEventReading<E extends CloudEvent = DomainEvent> =
  { outcome: 'read'; event: E } | { outcome: 'unknown' } | { outcome: 'malformed'; problem: string };

export function readDomainEvent(event: CloudEvent): DomainEventReading {
  if (!isDomainEventType(event.type)) return { outcome: 'unknown' };
  const spec: DomainEventSpec = domainEventCatalog[event.type];
  const parsed = spec.data.safeParse(event.data);
  if (!parsed.success) return { outcome: 'malformed', problem: parsed.error.message };
  // The schema of its type parsed the data: the event is that type's DomainEvent.
  return { outcome: 'read', event: { ...event, data: parsed.data } as DomainEvent };
}

/** A CloudEvents 1.0 envelope as consumers need it, or undefined for anything else. */
export function cloudEventOf(value: unknown): CloudEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Partial<Record<keyof CloudEvent, unknown>>;
  const valid =
    event.specversion === '1.0' &&
    typeof event.id === 'string' &&
    isUuid(event.id) &&
    typeof event.type === 'string' &&
    typeof event.source === 'string' &&
    typeof event.subject === 'string' &&
    typeof event.time === 'string' &&
    'data' in event;
  return valid ? (value as CloudEvent) : undefined;
}
