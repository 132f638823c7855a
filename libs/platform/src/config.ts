import { z } from 'zod';

/** Configuration every app reads (ARCHITECTURE.md "Configuration names"). */
export const BaseConfigSchema = z.object({
  TOWNHALL_ENV: z.enum(['production', 'staging', 'development']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NATS_URL: z.string().min(1).optional(),
  /** Milliseconds the gateway waits for a service to answer before a 504. */
  SERVICE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
});

export const DatabaseConfigSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
});

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Validates the environment once, at start. A bad value fails fast with a message
 * naming the variable, instead of a confusing error minutes later.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map(
    (issue) => `  ${issue.path.join('.') || '(environment)'}: ${issue.message}`,
  );
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** Reads a required URL from validated config, naming the variable if it is missing. */
export function required<T>(value: T | undefined, name: string): T {
  if (value === undefined)
    throw new ConfigError(`Invalid configuration:\n  ${name}: required in distributed mode`);
  return value;
}
