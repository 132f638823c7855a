import ical, { escape, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { ICalEventData } from 'ical-generator';
import { Temporal } from 'temporal-polyfill';
import { tzlib_get_ical_block, tzlib_get_timezones } from 'timezones-ical-library';

import { instantsAt, parseVTimezone } from './vtimezone.js';
import type { VTimezoneRules } from './vtimezone.js';

export interface CalendarEvent {
  /** Event id (opaque string). */
  id: string;
  title: string;
  description: string;
  /** RFC 3339 UTC instant, e.g. '2026-11-05T00:00:00.000Z'. */
  startsAt: string;
  endsAt: string;
  /** IANA zone the event is shown in. */
  timezone: string;
  status: 'scheduled' | 'live' | 'past' | 'cancelled';
  createdAt: string;
  updatedAt: string;
  /** Increments on every change (RFC 5545 SEQUENCE). */
  sequence: number;
  /** Absolute URL of the event resource. */
  url: string;
  hostId: string;
  seriesId: string | null;
}

export interface CalendarOptions {
  name: string;
  /** e.g. 'http://localhost:3000' */
  baseUrl: string;
}

export const CALENDAR_CONTENT_TYPE = 'text/calendar; charset=utf-8';

// ical-generator prepends the leading '-' of the FPI itself.
const PROD_ID = '//Townhall//Townhall Events//EN';
// A constant host part keeps UIDs stable across deployments, hostnames and ports.
const UID_HOST = 'townhall';
// timezones-ical-library resolves every UTC alias (UTC, Etc/UTC, Zulu, ...) to this TZID.
const TZLIB_UTC = 'Etc/UTC';

interface ZoneDefinition {
  tzid: string;
  vtimezone: string;
  rules: VTimezoneRules;
}

// Keyed by tzlib-known names only, so it stays bounded (~600 entries) whatever zone strings come in.
const zoneCache = new Map<string, ZoneDefinition | null>();
let tzlibZones: ReadonlySet<string> | undefined;

function knownToTzlib(zone: string): boolean {
  if (!tzlibZones) {
    const zones = tzlib_get_timezones();
    tzlibZones = new Set(Array.isArray(zones) ? zones : []);
  }
  return tzlibZones.has(zone);
}

function temporalZoneId(timezone: string): string | null {
  try {
    // Also normalises the name's case ('america/new_york'), which tzlib's case-sensitive lookup needs.
    return Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(timezone).timeZoneId;
  } catch {
    return null;
  }
}

/**
 * null means: write the event's times in UTC form (`...Z`, no TZID). That is the RFC 5545 way for UTC events,
 * and the only self-contained option for a zone one of the libraries does not know, since a TZID without its
 * VTIMEZONE would leave clients guessing.
 */
function resolveZone(timezone: string): ZoneDefinition | null {
  const id = temporalZoneId(timezone);
  // tzlib logs to the console on unknown names, so ask its zone list first.
  if (id === null || !knownToTzlib(id)) return null;
  const cached = zoneCache.get(id);
  if (cached !== undefined) return cached;

  let zone: ZoneDefinition | null = null;
  const block = tzlib_get_ical_block(id);
  const [vtimezone, tzidLine] = Array.isArray(block) ? block : [];
  // tzlib answers aliases (US/Eastern, Asia/Calcutta) with the canonical zone's VTIMEZONE, whose TZID differs
  // from the name asked for: DTSTART must reference that TZID or it would dangle.
  const tzid = tzidLine?.startsWith('TZID=') ? tzidLine.slice('TZID='.length) : undefined;
  const rules = vtimezone ? parseVTimezone(vtimezone) : null;
  if (vtimezone && rules && tzid && tzid !== TZLIB_UTC) zone = { tzid, vtimezone, rules };
  zoneCache.set(id, zone);
  return zone;
}

function instant(value: string): Temporal.Instant {
  return Temporal.Instant.from(value);
}

/**
 * Whether a client applying the embedded VTIMEZONE can only read the wall-clock time we write for `at` as
 * `at`. Not so when tzlib's rules disagree with Temporal's for that date, nor in the repeated hour after a
 * fall-back transition: RFC 5545 (3.3.5) says the first occurrence is meant, but clients differ (ical.js 2
 * takes the second), so a repeated wall-clock time is never trusted.
 */
function wallClockIsUnambiguous(zone: ZoneDefinition, at: Temporal.Instant): boolean {
  // iCalendar DATE-TIME has whole seconds; ical-generator drops the rest.
  const seconds = Math.floor(at.epochMilliseconds / 1000);
  const offset = at.toZonedDateTimeISO(zone.tzid).offsetNanoseconds / 1e9;
  const instants = instantsAt(zone.rules, seconds + offset);
  return instants.length === 1 && instants[0] === seconds;
}

/** The zone to write the event's times in, or null for UTC form. */
function zoneFor(event: CalendarEvent): ZoneDefinition | null {
  const zone = resolveZone(event.timezone);
  const exact =
    zone !== null &&
    wallClockIsUnambiguous(zone, instant(event.startsAt)) &&
    wallClockIsUnambiguous(zone, instant(event.endsAt));
  return exact ? zone : null;
}

function toEventData(
  event: CalendarEvent,
  zone: ZoneDefinition | null,
  options: CalendarOptions,
): ICalEventData {
  if (!Number.isSafeInteger(event.sequence) || event.sequence < 0) {
    // ical-generator writes whatever number it gets, which would be an invalid SEQUENCE.
    throw new RangeError(`event ${event.id}: sequence must be a non-negative integer`);
  }
  const start = instant(event.startsAt);
  const end = instant(event.endsAt);
  const x: [string, string][] = [['X-TOWNHALL-HOST', event.hostId]];
  if (event.seriesId !== null) x.push(['X-TOWNHALL-SERIES', event.seriesId]);

  return {
    // ical-generator writes UID verbatim, but it is a TEXT value.
    id: `${escape(event.id, false)}@${UID_HOST}`,
    sequence: event.sequence,
    stamp: instant(event.updatedAt),
    created: instant(event.createdAt),
    lastModified: instant(event.updatedAt),
    // With a timezone set, ical-generator formats the wall-clock fields of a ZonedDateTime in its own zone;
    // native Dates would instead be formatted in the server process's local zone.
    ...(zone
      ? {
          start: start.toZonedDateTimeISO(zone.tzid),
          end: end.toZonedDateTimeISO(zone.tzid),
          timezone: zone.tzid,
        }
      : { start, end, timezone: null }),
    summary: event.title,
    description: event.description,
    url: new URL(event.url, options.baseUrl).href,
    status: event.status === 'cancelled' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    x,
  };
}

/** A VCALENDAR with one VEVENT per event, and one VTIMEZONE per zone used. */
export function renderCalendar(events: CalendarEvent[], options: CalendarOptions): string {
  const vtimezones = new Map<string, string>();
  const eventData = events.map((event) => {
    const zone = zoneFor(event);
    if (zone) vtimezones.set(zone.tzid, zone.vtimezone);
    return toEventData(event, zone, options);
  });
  const calendar = ical({
    prodId: PROD_ID,
    method: ICalCalendarMethod.PUBLISH,
    // ical-generator writes NAME and X-WR-CALNAME without escaping them.
    name: escape(options.name, false),
    // No calendar-wide zone (that would add X-WR-TIMEZONE); ical-generator calls the generator once per
    // distinct event TZID, in order of first use.
    timezone: { name: null, generator: (tzid) => vtimezones.get(tzid) ?? null },
    events: eventData,
  });
  // RFC 5545 ends every content line with CRLF, the last one too; ical-generator omits the final one.
  return `${calendar.toString()}\r\n`;
}
