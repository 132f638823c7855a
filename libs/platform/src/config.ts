import { z } from 'zod';

/** DATABASE_POOL_WAIT_MS's default: well within the gateway's 5 s deadline (SERVICE_TIMEOUT_MS). */
export const DEFAULT_POOL_WAIT_MS = 2_000;

/** Configuration every app reads (docs/operations.md "Configuration"). */
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
  /**
   * How this app proves to NATS that it is itself (docs/security.md "The bus"): a user and password,
   * an NKey seed, or a creds file (operator mode), one of them. Required outside development.
   */
  NATS_USER: z.string().min(1).max(256).optional(),
  NATS_PASSWORD: z.string().min(1).max(1024).optional(),
  /** A user NKey seed (`SU` and 56 base32 characters): the user's private key. */
  NATS_NKEY_SEED: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/, 'must be a user NKey seed: SU and 56 base32 characters')
    .optional(),
  /** A creds file (the user's JWT and its NKey seed), as `nsc` writes it for an operator's account. */
  NATS_CREDS_FILE: z.string().min(1).max(4096).optional(),
  /**
   * TLS to NATS: the CA to trust (PEM), and this app's certificate and key for mutual TLS. Any of
   * them, or a `tls://` server in NATS_URL, makes TLS required: the connection fails rather than
   * fall back to plain text.
   */
  NATS_TLS_CA_FILE: z.string().min(1).max(4096).optional(),
  NATS_TLS_CERT_FILE: z.string().min(1).max(4096).optional(),
  NATS_TLS_KEY_FILE: z.string().min(1).max(4096).optional(),
});
type BaseConfig = z.output<typeof BaseConfigSchema>;

/** The settings of every app's PUBLIC_BASE_URL: an http(s) origin, without a trailing slash. */
export const PublicBaseUrlSchema = z
  .url({ protocol: /^https?$/ })
  .transform((value) => value.replace(/\/+$/, ''))
  .optional();

/**
 * PUBLIC_BASE_URL, or in development (the only place it may be unset) the gateway on localhost at
 * its default port, as every app of one development deployment must name the same origin.
 */
export function publicBaseUrlOf(config: { PUBLIC_BASE_URL?: string | undefined }, port = 3000): string {
  return config.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
}

/**
 * Outside development, PUBLIC_BASE_URL is required (`.superRefine(publicBaseUrlRequired)` on the
 * schemas of the apps that read it): it is the audience every request is signed for, and two
 * deployments that both left it unset would accept each other's requests.
 */
export function publicBaseUrlRequired(
  config: { TOWNHALL_ENV: string; PUBLIC_BASE_URL?: string | undefined },
  context: z.RefinementCtx,
): void {
  if (config.TOWNHALL_ENV !== 'development' && config.PUBLIC_BASE_URL === undefined)
    context.addIssue({
      code: 'custom',
      path: ['PUBLIC_BASE_URL'],
      message: `required when TOWNHALL_ENV=${config.TOWNHALL_ENV}: it is the audience every request is signed for, and deployments that leave it unset share one`,
    });
}

/**
 * The checks across settings that every app's schema ends with (`.superRefine(deploymentChecks)`),
 * so that an app does not reach NATS as nobody, or as two users at once:
 * - outside development, an app on NATS proves who it is (each app is a NATS user of its own);
 * - one way to authenticate to NATS, a password with its user, a certificate with its key.
 */
export function deploymentChecks(config: BaseConfig, context: z.RefinementCtx): void {
  const issue = (path: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message });
  const deployed = config.TOWNHALL_ENV !== 'development';
  if ((config.NATS_USER === undefined) !== (config.NATS_PASSWORD === undefined))
    issue(
      config.NATS_USER === undefined ? 'NATS_USER' : 'NATS_PASSWORD',
      'NATS_USER and NATS_PASSWORD go together',
    );
  const ways = [config.NATS_USER, config.NATS_NKEY_SEED, config.NATS_CREDS_FILE].filter(
    (way) => way !== undefined,
  ).length;
  if (ways > 1)
    issue(
      'NATS_USER',
      'one way to authenticate to NATS: NATS_USER and NATS_PASSWORD, NATS_NKEY_SEED, or NATS_CREDS_FILE',
    );
  if (deployed && config.NATS_URL !== undefined && ways === 0)
    issue(
      'NATS_USER',
      `required when TOWNHALL_ENV=${config.TOWNHALL_ENV} (or NATS_NKEY_SEED, or NATS_CREDS_FILE): every app connects to NATS as its own user`,
    );
  if ((config.NATS_TLS_CERT_FILE === undefined) !== (config.NATS_TLS_KEY_FILE === undefined))
    issue(
      config.NATS_TLS_CERT_FILE === undefined ? 'NATS_TLS_CERT_FILE' : 'NATS_TLS_KEY_FILE',
      'NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together',
    );
}

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

/**
 * What every domain service reads: BaseConfigSchema, DatabaseConfigSchema, its probe port and its
 * outbox relay. A service extends it with its own settings.
 */
export const DomainServiceConfigSchema = BaseConfigSchema.extend(DatabaseConfigSchema.shape).extend({
  /** Port of the probe server (/healthz, /readyz); unset: none. */
  PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** How often the outbox relay looks for unpublished domain events (it is also woken after each commit). */
  OUTBOX_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(500),
  /** Off only to test recovery: domain events then wait in the outbox. */
  OUTBOX_RELAY: z.enum(['on', 'off']).default('on'),
});
export type DomainServiceConfig = z.output<typeof DomainServiceConfigSchema>;

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
    // zod's own "required" for an unset variable; a check's message (deploymentChecks) says why.
    const unset =
      issue.code === 'invalid_type' && issue.path.length === 1 && env[String(issue.path[0])] === undefined;
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
 * Runs an app's start, ending the process as loadConfigOrExit does if it fails with a ConfigError
 * (a setting only found wrong on use: a file it names that cannot be read, a combination refused).
 */
export async function exitOnConfigError<T>(app: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${app}: ${error.message}\n`);
    process.exit(CONFIG_EXIT_CODE);
  }
}

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
