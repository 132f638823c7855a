import { reply } from '@townhall/contracts';
import { z } from 'zod';

/** What the probes answer, as the API document shows it (`Health`, `Readiness`). */
export const HealthSchema = reply(z.object({ status: z.literal('ok') }), 'Health');
/**
 * Ready or not, nothing more: which dependency failed and why is the operators' port's
 * (PROBE_PORT), never told to whoever reaches the public one.
 */
export const ReadinessSchema = reply(z.object({ ready: z.boolean() }), 'Readiness');
