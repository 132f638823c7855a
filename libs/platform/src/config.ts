import { z } from 'zod';

/** DATABASE_POOL_WAIT_MS's default: well within the gateway's 5 s deadline (SERVICE_TIMEOUT_MS). */
export const DEFAULT_POOL_WAIT_MS = 2_000;

/** Configuration every app reads (the root README's "Configuration" table). */
export const BaseConfigSchema = z.object({
  TOWNHALL_ENV: z.enum(['production', 'staging', 'development']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Required in distributed mode (each app's main.ts); standalone runs without it. One server, or
   * a cluster's servers comma-separated (`natsServers`): the client connects to one of them and
   * fails over to the others, and learns the rest of the cluster from the server it reaches.
   */
  NATS_URL: z
    .string()
    .min(1)
    .refine((value) => natsServers(value).length > 0, 'must name at least one NATS server')
    .optional(),
  /**
   * Replicas of the TOWNHALL stream (and so of every durable consumer on it, which follow the
   * stream's): 1 on a single NATS server, 3 on a JetStream cluster of 3 or more nodes.
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Milliseconds the gateway waits for a service to answer before a 504. */
  SERVICE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
});

/**
 * The servers of NATS_URL: comma-separated, each trimmed, empty entries dropped. The NATS client
 * takes a list; given the whole string as one server it would try only one of them.
 */
export function natsServers(natsUrl: string): string[] {
  return natsUrl
    .split(',')
    .map((server) => server.trim())
    .filter((server) => server !== '');
}

export const DatabaseConfigSchema = z.object({
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** How long a statement waits for a pooled connection before the request is shed (503 service.overloaded). */
  DATABASE_POOL_WAIT_MS: z.coerce.number().int().min(100).max(60_000).default(DEFAULT_POOL_WAIT_MS),
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
  const lines = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    const unset = issue.path.length === 1 && env[String(issue.path[0])] === undefined;
    return `  ${name}: ${unset ? 'required, not set' : issue.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** Reads a required URL from validated config, naming the variable if it is missing. */
export function required<T>(value: T | undefined, name: string): T {
  if (value === undefined)
    throw new ConfigError(`Invalid configuration:\n  ${name}: required in distributed mode`);
  return value;
}

/** EX_CONFIG (sysexits.h): the process was started with a bad configuration. */
export const CONFIG_EXIT_CODE = 78;

/**
 * loadConfig for an app's entry point: a bad or missing variable ends the process at once with
 * one readable message naming it (no stack trace) and exit code 78, before anything connects.
 */
export function loadConfigOrExit<S extends z.ZodType>(
  schema: S,
  app: string,
  env: NodeJS.ProcessEnv = process.env,
): z.output<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${app}: ${error.message}\n`);
    process.exit(CONFIG_EXIT_CODE);
  }
}
