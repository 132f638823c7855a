/**
 * The times of one event as a person reads them: in the event's own IANA time zone, in English
 * (the page is `lang="en"`), on a 24-hour clock, with the zone's short name. The browser script
 * formats a new stage message's time with this same class (site/browser/watch/).
 */
export class EventClock {
  /** The zone the times are shown in: the event's, or UTC if the runtime does not know it. */
  readonly zone: string;
  private readonly full: Intl.DateTimeFormat;
  private readonly short: Intl.DateTimeFormat;

  constructor(timezone: string) {
    this.zone = isKnownZone(timezone) ? timezone : 'UTC';
    this.full = new Intl.DateTimeFormat('en-GB', {
      timeZone: this.zone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    });
    this.short = new Intl.DateTimeFormat('en-GB', {
      timeZone: this.zone,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
  }

  /** E.g. `Thu 4 Mar 2027, 19:00 CET`. */
  dateTime(instant: string | Date): string {
    return this.full.format(new Date(instant));
  }

  /** E.g. `19:00`: the time of day of something during the event. */
  time(instant: string | Date): string {
    return this.short.format(new Date(instant));
  }
}

/**
 * Whether Intl knows the zone. The events service validates zones when an event is created; a
 * runtime with older zone data than the service's could still miss one, and a page in UTC
 * (saying so) beats no page.
 */
function isKnownZone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: timezone });
    return true;
  } catch {
    return false; // RangeError: an unknown zone
  }
}
