import type { Logger } from '@townhall/platform/service';

/** Injection tokens of the engagement service. */
export const SERVICES = Symbol('ServiceClient');
export const LOGGER = Symbol('Logger');
export const SETTINGS = Symbol('EngagementSettings');
export const CLOCK = Symbol('Clock');

/**
 * The service's clock: "now" for what engagement stamps itself (attendance: the sessions of live
 * streams, the writes that count as presence, the report's window of an event still live).
 */
export type Clock = () => Date;

export interface EngagementSettings {
  questionsPerMinute: number;
}

export type { Logger };
