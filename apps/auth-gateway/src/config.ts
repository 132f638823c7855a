import { BaseConfigSchema } from '@townhall/platform';
import { z } from 'zod';

export const GatewayConfigSchema = BaseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** The audience line of every signing string; never derived from the Host header. */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((value) => value.replace(/\/+$/, ''))
    .optional(),
  REDIS_URL: z.string().min(1).optional(),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  /** How often an idle live stream (GET /events/{id}/live) sends a `: keep-alive` comment. */
  LIVE_HEARTBEAT_MS: z.coerce.number().int().min(50).max(300_000).default(15_000),
  /** Messages one live-stream client may have waiting for its socket before it is disconnected. */
  LIVE_CLIENT_BUFFER: z.coerce.number().int().min(1).max(100_000).default(1_000),
});
export type GatewayConfig = z.output<typeof GatewayConfigSchema>;

/** PUBLIC_BASE_URL defaults to http://localhost:$PORT (ARCHITECTURE.md). */
export function audienceOf(config: GatewayConfig): string {
  return config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`;
}
