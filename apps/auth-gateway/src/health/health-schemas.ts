import { reply } from '@townhall/contracts';
import { z } from 'zod';

/** What the probes answer, as the API document shows it (`Health`, `Readiness`). */
export const HealthSchema = reply(z.object({ status: z.literal('ok') }), 'Health');
export const ReadinessSchema = reply(
  z.object({
    ready: z.boolean(),
    checks: z.record(z.string(), z.string()).describe('`ok`, or why the dependency is not ready'),
  }),
  'Readiness',
);
