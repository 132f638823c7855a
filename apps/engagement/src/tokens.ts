import type { Logger } from '@townhall/platform/service';

/** Injection tokens of the engagement service. */
export const SERVICES = Symbol('ServiceClient');
export const LOGGER = Symbol('Logger');
export const SETTINGS = Symbol('EngagementSettings');

export interface EngagementSettings {
  questionsPerMinute: number;
}

export type { Logger };
