import { BaseConfigSchema, DatabaseConfigSchema } from '@townhall/platform/service';
import { z } from 'zod';

export const DirectoryConfigSchema = BaseConfigSchema.extend(DatabaseConfigSchema.shape).extend({
  /** Port of the probe server (/healthz, /readyz); unset: none. */
  PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});
export type DirectoryConfig = ReturnType<typeof DirectoryConfigSchema.parse>;
