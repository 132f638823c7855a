import { DomainError, type FieldError, type EventFields } from '@townhall/contracts';

const MAX_DURATION_MS = 31 * 24 * 60 * 60_000;

/**
 * The rules that span fields (docs/product.md "Event lifecycle"), checked on the whole event:
 * on create, and on the merged result of a PATCH. Every broken rule is reported.
 */
export function checkEventRules(
  event: EventFields,
  hostId: string,
  now: Date,
  options: { requireFuture: boolean },
): void {
  const errors: FieldError[] = [];
  const starts = Date.parse(event.startsAt);
  const ends = Date.parse(event.endsAt);
  if (!(starts < ends)) errors.push({ field: 'endsAt', message: 'must be after startsAt' });
  else if (ends - starts > MAX_DURATION_MS)
    errors.push({ field: 'endsAt', message: 'an event lasts at most 31 days' });
  if (options.requireFuture && starts < now.getTime() - 60_000) {
    errors.push({ field: 'startsAt', message: 'must not be in the past' });
  }

  if (event.ticketing.mode === 'tiered') {
    const seen = new Set<string>();
    event.ticketing.tiers.forEach((tier, index) => {
      if (seen.has(tier.id))
        errors.push({ field: `ticketing.tiers.${index}.id`, message: `duplicate tier id ${tier.id}` });
      seen.add(tier.id);
      if (tier.capacity > event.capacity) {
        errors.push({
          field: `ticketing.tiers.${index}.capacity`,
          message: 'must not exceed the event capacity',
        });
      }
    });
  }

  const durationMinutes = (ends - starts) / 60_000;
  const onStage = new Set([hostId, ...event.moderators, ...event.speakers]);
  event.agenda.forEach((item, index) => {
    const end = (item.startOffsetMinutes ?? 0) + (item.durationMinutes ?? 0);
    if (Number.isFinite(durationMinutes) && durationMinutes > 0 && end > durationMinutes) {
      errors.push({ field: `agenda.${index}`, message: 'must end within the event' });
    }
    item.speakerIds?.forEach((id, speaker) => {
      if (!onStage.has(id)) {
        errors.push({
          field: `agenda.${index}.speakerIds.${speaker}`,
          message: 'must be the host, a moderator or a speaker',
        });
      }
    });
  });

  if (errors.length > 0) {
    throw new DomainError('validation.failed', `${errors[0]!.field}: ${errors[0]!.message}`, errors);
  }
}
