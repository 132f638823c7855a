import { isIP } from 'node:net';
import {
  BaseConfigSchema,
  deploymentChecks,
  PublicBaseUrlSchema,
  publicBaseUrlOf,
  publicBaseUrlRequired,
} from '@townhall/platform';
import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

/** Per-second rates: 0 turns that limit off. */
const perSecond = z.coerce.number().int().min(0).max(1_000_000);

/** Milliseconds for one of the HTTP server's timeouts. */
const serverTimeoutMs = z.coerce.number().int().min(100).max(3_600_000);

/**
 * The HTTP server's timeouts (docs/gateway.md "Limits of one client"). None of them cuts a live stream:
 * the headers and request timeouts end once the request is received, the keep-alive timeout
 * runs only between requests, and a live stream takes itself out of the idle timeout (it has
 * its own check for a client that stopped reading).
 */
export const SERVER_TIMEOUT_DEFAULTS = {
  /** The whole request head must arrive within this from the connection (or the previous request). */
  headersMs: 10_000,
  /** The whole request, head and body (at most 64 KiB), must arrive within this. */
  requestMs: 30_000,
  /**
   * An idle keep-alive connection is closed after this. Above the 60 s idle timeout of the usual
   * proxies in front (ingress-nginx upstream keep-alive, AWS ALB): the proxy closes first, so it
   * never sends a request on a connection the gateway is closing.
   */
  keepAliveMs: 65_000,
  /** A connection on which nothing moves, either way, while a request is served. */
  idleMs: 30_000,
} as const;

export type ServerTimeouts = { [name in keyof typeof SERVER_TIMEOUT_DEFAULTS]: number };

/** Live-stream limits per gateway process (docs/gateway.md "Limits of one client"). */
export const LIVE_LIMIT_DEFAULTS = {
  /** Open live streams per client address; the next one is 429 live.too_many_streams. */
  streamsPerClient: 20,
  /**
   * Open live streams of one event; the next one is 503 live.event_at_capacity. As many as one
   * process fans a stage post out to within its budget (docs/gateway.md "Workers on one machine";
   * the SSE fan-out of npm run bench).
   */
  streamsPerEvent: 10_000,
  /** Open live streams in all; the next one is 503 live.at_capacity. */
  streamsTotal: 20_000,
  /** Stream messages one resume reads at most; an older Last-Event-ID gets `history.cut`. */
  replayLimit: 1_000,
} as const;

/**
 * Whose X-Forwarded-For to believe for the client address (Fastify's `trustProxy`): `false` (the
 * socket's peer is the client), `true` (any peer: only when nothing reaches the gateway except
 * through the proxy), or a comma-separated list of proxy addresses, CIDR ranges and proxy-addr's
 * names `loopback`, `linklocal`, `uniquelocal`. A hop count is refused: Fastify cannot check the
 * peer against it, so it would trust nothing (or, elsewhere, anything).
 */
const TrustProxySchema = z
  .string()
  .trim()
  .default('false')
  .transform((value, context): boolean | string[] => {
    if (value === 'false' || value === '') return false;
    if (value === 'true') return true;
    const entries = value.split(',').map((entry) => entry.trim());
    const invalid = entries.filter((entry) => !isProxyAddress(entry));
    if (invalid.length > 0)
      context.addIssue({
        code: 'custom',
        message: `expected true, false or proxy addresses/CIDRs (loopback, linklocal, uniquelocal allowed); not ${invalid.join(', ')}`,
      });
    return entries;
  });

function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

export const GatewayConfigSchema = BaseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /**
   * Gateway processes on this machine sharing PORT (gateway-workers.ts): 1 is this process alone;
   * more, and this process forks that many workers and only keeps PROBE_PORT. Distributed mode only.
   */
  GATEWAY_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /** The operators' port: /healthz, /readyz and Prometheus /metrics, never exposed outside. */
  PROBE_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The audience line of every signing string; never derived from the Host header (audienceOf). */
  PUBLIC_BASE_URL: PublicBaseUrlSchema,
  REDIS_URL: z.string().min(1).optional(),
  /**
   * Only where the Redis refuses `CONFIG GET` (a managed Redis): the operator's word that its
   * maxmemory-policy is noeviction, which the gateway otherwise checks itself at start
   * (auth/redis-eviction-policy.ts). Any other policy may evict nonces.
   */
  REDIS_MAXMEMORY_POLICY: z.literal('noeviction').optional(),
  /**
   * Idempotency-Keys one agent holds at once (each an answer kept 24 h, or a request in flight);
   * the next is 429 idempotency.too_many_keys until one expires.
   */
  IDEMPOTENCY_KEYS_PER_AGENT: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  /** Without REDIS_URL (standalone): the most unexpired nonces this process holds; then 503. */
  MEMORY_NONCES_MAX: z.coerce.number().int().min(1_000).max(100_000_000).default(500_000),
  /** The agents kept by their key's thumbprint (auth/seen-keys.ts): the most recently seen. */
  SEEN_KEYS_MAX: z.coerce.number().int().min(100).max(10_000_000).default(100_000),
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
  /** Live streams one client address may hold open at once on this process; 0 turns the cap off. */
  LIVE_STREAMS_PER_CLIENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(LIVE_LIMIT_DEFAULTS.streamsPerClient),
  /** Live streams of one event this process serves at once; 0 turns the cap off. */
  LIVE_STREAMS_PER_EVENT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(LIVE_LIMIT_DEFAULTS.streamsPerEvent),
  /** Live streams this process serves at once, all events together; 0 turns the cap off. */
  LIVE_STREAMS_TOTAL: z.coerce.number().int().min(0).max(1_000_000).default(LIVE_LIMIT_DEFAULTS.streamsTotal),
  /** The most stream messages one resume (Last-Event-ID) reads; older history is cut. */
  LIVE_REPLAY_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(LIVE_LIMIT_DEFAULTS.replayLimit),
  /**
   * How often this process tells engagement who is on its live streams (live/presence-reporter.ts:
   * attendance and concurrent viewers, docs/product.md "The report"); it also reports each stream
   * opening and closing at once. Its viewer samples are this long, and a gateway silent for three
   * of them is taken for dead: its sessions end at its last report.
   */
  PRESENCE_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /**
   * The longest the gateway serves a cached public event read (read-cache/); domain events and
   * writes invalidate it sooner. 0 turns the cache off.
   */
  READ_CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  HTTP_HEADERS_TIMEOUT_MS: serverTimeoutMs.default(SERVER_TIMEOUT_DEFAULTS.headersMs),
  HTTP_REQUEST_TIMEOUT_MS: serverTimeoutMs.default(SERVER_TIMEOUT_DEFAULTS.requestMs),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: serverTimeoutMs.default(SERVER_TIMEOUT_DEFAULTS.keepAliveMs),
  HTTP_IDLE_TIMEOUT_MS: serverTimeoutMs.default(SERVER_TIMEOUT_DEFAULTS.idleMs),
  /** Signed writes (any method but GET/HEAD) per agent per second, shared by every replica. */
  RATE_LIMIT_WRITES_PER_SECOND: perSecond.default(20),
  /** The most signed writes one agent may make within one second (the rate plus a reserve). */
  RATE_LIMIT_WRITE_BURST: perSecond.default(40),
  /** Unsigned requests per client IP, and signed GET/HEAD per agent, per second. */
  RATE_LIMIT_READS_PER_SECOND: perSecond.default(200),
  /**
   * Signed requests per client address (an IPv6 /64) per second, counted before the signature is
   * looked at (rate-limit/address-limits.ts), shared by every replica.
   */
  RATE_LIMIT_SIGNED_PER_ADDRESS_PER_SECOND: perSecond.default(200),
  /** Signed requests refused as not authentic that block their address; 0 turns the block off. */
  AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(0).max(1_000_000).default(20),
  /** The window those failures are counted in. */
  AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** How long a blocked address is refused every signed request (429 auth.address_blocked). */
  AUTH_FAILURE_BLOCK_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  TRUST_PROXY: TrustProxySchema,
  /**
   * true: a signature whose `keyid` is a JWK thumbprint may name its key by the request's
   * Signature-Agent, whose origin's key directory the gateway fetches (auth/key-directory.ts).
   */
  SIGNATURE_AGENT_DIRECTORIES: flag.default(true),
  /**
   * true: a Signature-Agent may name an http origin, and one on a private, loopback or link-local
   * address (development, and the tests' directories on 127.0.0.1). Never in production.
   */
  SIGNATURE_AGENT_ALLOW_PRIVATE: flag.default(false),
})
  .refine(
    (config) =>
      config.RATE_LIMIT_WRITES_PER_SECOND === 0 ||
      config.RATE_LIMIT_WRITE_BURST >= config.RATE_LIMIT_WRITES_PER_SECOND,
    {
      path: ['RATE_LIMIT_WRITE_BURST'],
      message: 'must be at least RATE_LIMIT_WRITES_PER_SECOND (a burst below the rate would lower the rate)',
    },
  )
  // Node refuses a headers timeout longer than the request timeout (the head is part of the request).
  .refine((config) => config.HTTP_HEADERS_TIMEOUT_MS <= config.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must be at most HTTP_REQUEST_TIMEOUT_MS',
  })
  .refine((config) => config.HTTP_IDLE_TIMEOUT_MS > config.SERVICE_TIMEOUT_MS, {
    path: ['HTTP_IDLE_TIMEOUT_MS'],
    message:
      'must be longer than SERVICE_TIMEOUT_MS (nothing moves on the connection while a service answers)',
  })
  .refine((config) => !(config.TOWNHALL_ENV === 'production' && config.SIGNATURE_AGENT_ALLOW_PRIVATE), {
    path: ['SIGNATURE_AGENT_ALLOW_PRIVATE'],
    message: 'must not be true in production (it lets any agent make the gateway call private addresses)',
  })
  .superRefine(deploymentChecks)
  .superRefine(publicBaseUrlRequired);
export type GatewayConfig = z.output<typeof GatewayConfigSchema>;

/** PUBLIC_BASE_URL defaults to http://localhost:$PORT (docs/operations.md "Configuration"). */
export function audienceOf(config: GatewayConfig): string {
  return publicBaseUrlOf(config, config.PORT);
}

/** createGateway's `serverTimeouts`, from the config. */
export function serverTimeoutsOf(config: GatewayConfig): ServerTimeouts {
  return {
    headersMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestMs: config.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    idleMs: config.HTTP_IDLE_TIMEOUT_MS,
  };
}

/** What startLiveStream and startInProcessLiveStream take from the config, besides their transport. */
export function liveStreamSettingsOf(config: GatewayConfig) {
  return {
    heartbeatMs: config.LIVE_HEARTBEAT_MS,
    clientBuffer: config.LIVE_CLIENT_BUFFER,
    streamsPerClient: config.LIVE_STREAMS_PER_CLIENT,
    streamsPerEvent: config.LIVE_STREAMS_PER_EVENT,
    streamsTotal: config.LIVE_STREAMS_TOTAL,
    replayLimit: config.LIVE_REPLAY_LIMIT,
  };
}
