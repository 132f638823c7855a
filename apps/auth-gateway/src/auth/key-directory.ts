import { AuthError, jwkThumbprint, KEY_DIRECTORY_PATH } from '@townhall/auth/portable';
import type { Logger } from '@townhall/platform';
import {
  DestinationRefused,
  getPinned,
  resolveDestination,
  systemResolver,
  type Destination,
  type DestinationPolicy,
  type Resolver,
} from '@townhall/platform/outbound';
import { LRUCache } from 'lru-cache';
import { ParseError, parseDictionary, parseItem, type InnerList, type Item } from 'structured-headers';
import { z } from 'zod';
import type { GatewayConfig } from '../config.js';

/**
 * The bounds of key directories (docs/protocol/signing.md 8.3). A directory's URL is
 * chosen by whoever sends a request, so each bound keeps a stranger from spending the gateway:
 * its memory (origins, bytes, keys), its time (the timeout) and its outbound requests (the cap).
 */
export const KEY_DIRECTORY_DEFAULTS = {
  /** Origins whose directory (or failure) is kept; the least recently used go first. */
  origins: 1_000,
  /** How long a directory is kept when its response has no Cache-Control max-age. */
  ttlMs: 3_600_000,
  /** The least and the most a response's max-age (or no-store, no-cache: the least) keeps it. */
  minTtlMs: 60_000,
  maxTtlMs: 86_400_000,
  /** How long a failed fetch is kept: no origin is fetched again sooner, whatever is asked. */
  failureTtlMs: 60_000,
  /** Directory fetches this process starts in any minute, all origins together. */
  fetchesPerMinute: 60,
  /** One fetch, resolving the name included. */
  timeoutMs: 3_000,
  /** A larger directory is a failed fetch. */
  maxBytes: 64 * 1024,
  /** A directory listing more keys is a failed fetch. */
  maxKeys: 100,
} as const;

export type KeyDirectoryLimits = { [name in keyof typeof KEY_DIRECTORY_DEFAULTS]: number };

export interface KeyDirectoryOptions extends Partial<KeyDirectoryLimits> {
  /** Where a directory may be: https only and public addresses only, unless development says otherwise. */
  policy: DestinationPolicy;
  /** Says at debug why an origin has no key (a stranger's failures are not the operator's problem). */
  logger: Pick<Logger, 'debug' | 'warn'>;
  /** The system's name resolver; a test's stand-in. */
  resolve?: Resolver;
}

/** The media type of a key directory (draft-meunier-http-message-signatures-directory). */
export const KEY_DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';
const ACCEPTED_MEDIA_TYPES = new Set([KEY_DIRECTORY_MEDIA_TYPE, 'application/json']);
const USER_AGENT = 'Townhall-Gateway/1';
const MINUTE_MS = 60_000;

/**
 * A JWK as a directory lists it: any key type may be listed (only Ed25519 ones are taken), and
 * members other than these are allowed and ignored (kid, use, alg, nbf, exp...).
 */
const DirectoryJwkSchema = z.looseObject({
  kty: z.string(),
  crv: z.string().optional(),
  x: z.string().optional(),
});

/** What one origin's directory gave: its Ed25519 keys by RFC 7638 thumbprint, or why none. */
interface FetchedDirectory {
  keys: ReadonlyMap<string, Uint8Array>;
  /** Why the fetch failed (kept for failureTtlMs), or null. */
  failure: string | null;
  fetchedAt: number;
}

/**
 * The Ed25519 keys that Signature-Agents publish in their origins' key directories
 * (`/.well-known/http-message-signatures-directory`), fetched when a signature names one and kept
 * per origin. A directory is fetched with the same SSRF rules as a webhook delivery (every address
 * of the name checked, the connection pinned to the checked one, no redirect), within a timeout
 * and a size limit; concurrent lookups of one origin share one fetch, a failed fetch is kept for
 * a minute, and fetches of all origins together are capped per minute, so a stream of requests
 * naming different origins cannot make the gateway a request amplifier.
 */
export class KeyDirectories {
  private readonly limits: KeyDirectoryLimits;
  private readonly directories: LRUCache<string, FetchedDirectory>;
  /** Origins whose fetch is in flight (they spend nothing more: their lookups share it). */
  private readonly fetching = new Set<string>();
  /** When each fetch of the last minute started, oldest first. */
  private readonly recentFetches: number[] = [];
  private readonly policy: DestinationPolicy;
  private readonly logger: Pick<Logger, 'debug' | 'warn'>;
  private readonly resolve: Resolver;

  constructor({ policy, logger, resolve = systemResolver, ...limits }: KeyDirectoryOptions) {
    this.limits = { ...KEY_DIRECTORY_DEFAULTS, ...definedOnly(limits) };
    this.policy = policy;
    this.logger = logger;
    this.resolve = resolve;
    this.directories = new LRUCache<string, FetchedDirectory>({
      max: this.limits.origins,
      ttl: this.limits.ttlMs,
      // Each fetch sets its own ttl (the response's max-age, or the failure's).
      fetchMethod: (origin, _stale, { options }) => this.fetchDirectory(origin, options),
    });
  }

  /**
   * The 32-byte Ed25519 public key whose RFC 7638 thumbprint is `keyid`, from the directory of
   * the origin `signatureAgent` (the Signature-Agent header's value) names; undefined when that
   * directory has no such key or cannot be had (the logger says why, at debug). Throws only an
   * `AuthError` `auth.malformed` for a header that names no http(s) origin.
   */
  async keyFor(signatureAgent: string, keyid: string): Promise<Uint8Array | undefined> {
    const origin = signatureAgentOrigin(signatureAgent);
    if (this.policy.httpsOnly && origin.protocol !== 'https:') {
      this.logger.debug({ signatureAgent: origin.origin }, 'Signature-Agent: not an https origin');
      return undefined;
    }
    let directory = await this.directoryOf(origin.origin);
    if (!directory) return undefined;
    // A key added since the directory was fetched: fetched again, at most once per minTtlMs.
    if (
      !directory.failure &&
      !directory.keys.has(keyid) &&
      Date.now() - directory.fetchedAt >= this.limits.minTtlMs
    )
      directory = await this.directoryOf(origin.origin, true);
    if (!directory) return undefined;
    if (directory.failure) {
      this.logger.debug(
        { signatureAgent: origin.origin, reason: directory.failure },
        'Signature-Agent: no key directory',
      );
      return undefined;
    }
    const key = directory.keys.get(keyid);
    if (!key)
      this.logger.debug(
        { signatureAgent: origin.origin, keyid },
        'Signature-Agent: no key with that thumbprint',
      );
    return key;
  }

  /** The origin's directory: kept, being fetched, or fetched now if the cap allows. */
  private async directoryOf(origin: string, refresh = false): Promise<FetchedDirectory | undefined> {
    const known = !refresh && this.directories.has(origin);
    // Checked before the cache is asked: a lookup the cap refuses must not take an entry.
    if (!known && !this.fetching.has(origin) && this.capReached(Date.now())) {
      this.logger.debug(
        { signatureAgent: origin, fetchesPerMinute: this.limits.fetchesPerMinute },
        'Signature-Agent: key directory fetches are at their cap for this minute',
      );
      return undefined;
    }
    return this.directories.fetch(origin, refresh ? { forceRefresh: true } : {});
  }

  private capReached(now: number): boolean {
    while (this.recentFetches.length > 0 && this.recentFetches[0]! <= now - MINUTE_MS)
      this.recentFetches.shift();
    return this.recentFetches.length >= this.limits.fetchesPerMinute;
  }

  /**
   * One fetch of `origin`'s directory; never rejects. Undefined (nothing kept) when the cap was
   * reached by concurrent lookups of other origins meanwhile.
   */
  private async fetchDirectory(
    origin: string,
    options: { ttl?: number },
  ): Promise<FetchedDirectory | undefined> {
    const started = Date.now();
    if (this.capReached(started)) return undefined;
    this.recentFetches.push(started);
    this.fetching.add(origin);
    try {
      const { keys, ttlMs } = await this.download(origin, started + this.limits.timeoutMs);
      options.ttl = ttlMs;
      return { keys, failure: null, fetchedAt: started };
    } catch (error) {
      if (!(error instanceof DirectoryUnavailable)) {
        // Not a stranger's doing: worth the operator's attention.
        this.logger.warn({ err: error, signatureAgent: origin }, 'fetching a key directory failed');
      }
      options.ttl = this.limits.failureTtlMs;
      return {
        keys: new Map(),
        failure: error instanceof Error ? error.message : String(error),
        fetchedAt: started,
      };
    } finally {
      this.fetching.delete(origin);
    }
  }

  private async download(origin: string, deadline: number) {
    const url = new URL(KEY_DIRECTORY_PATH, origin);
    let destination: Destination;
    try {
      destination = await resolveDestination(url, this.policy, this.resolve, this.limits.timeoutMs);
    } catch (error) {
      if (error instanceof DestinationRefused) throw new DirectoryUnavailable(`refused: ${error.message}`);
      throw error;
    }
    const outcome = await getPinned(
      destination,
      { accept: `${KEY_DIRECTORY_MEDIA_TYPE}, application/json;q=0.9`, 'user-agent': USER_AGENT },
      { timeoutMs: Math.max(1, deadline - Date.now()), maxBytes: this.limits.maxBytes },
    );
    if (outcome.error !== null || !outcome.body) {
      // Out of time: said in the directory's limit, the whole fetch's (the GET had what was left of it).
      const timedOut = Date.now() >= deadline;
      throw new DirectoryUnavailable(
        timedOut ? `no whole answer within ${this.limits.timeoutMs} ms` : (outcome.error ?? 'no body'),
      );
    }
    const mediaType = outcome.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!ACCEPTED_MEDIA_TYPES.has(mediaType))
      throw new DirectoryUnavailable(`not a key directory (Content-Type ${mediaType || 'missing'})`);
    return {
      keys: ed25519KeysOf(outcome.body, this.limits.maxKeys),
      ttlMs: ttlOf(outcome.cacheControl, this.limits),
    };
  }
}

/** Why a directory could not be had, caused by what its origin serves or where it is. */
class DirectoryUnavailable extends Error {
  override readonly name = 'DirectoryUnavailable';
}

/**
 * The origin a Signature-Agent header names (scheme, host, port; any path is not used): an RFC
 * 8941 sf-string item (`"https://agent.example"`), or a dictionary whose first member's value is
 * one (`sig1="https://agent.example"`, newer drafts of web-bot-auth). Anything else, or a string
 * that is no http(s) URL, is `auth.malformed`.
 */
export function signatureAgentOrigin(header: unknown): URL {
  if (typeof header !== 'string') throw malformed('must be one header line');
  let member: Item | InnerList | undefined;
  try {
    member = parseItem(header);
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    try {
      member = parseDictionary(header).values().next().value;
    } catch (dictionaryError) {
      if (!(dictionaryError instanceof ParseError)) throw dictionaryError;
      throw malformed('must be a structured-field string, or a dictionary of them');
    }
  }
  if (!member) throw malformed('is empty');
  const [value] = member;
  if (typeof value !== 'string') throw malformed('must be a structured-field string (a quoted URL)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw malformed('must be an http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw malformed('must be an http(s) URL');
  return new URL(url.origin);
}

function malformed(problem: string): AuthError {
  return new AuthError('auth.malformed', `Signature-Agent ${problem}`);
}

/**
 * The Ed25519 keys of a directory document, by thumbprint. The document is JSON `{ "keys": [...] }`
 * with at most `maxKeys` JWKs; keys of other types, or whose `x` is not the base64url of 32 bytes,
 * are skipped. Anything else is not a directory.
 */
function ed25519KeysOf(body: Uint8Array, maxKeys: number): Map<string, Uint8Array> {
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (error) {
    throw new DirectoryUnavailable(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = z.looseObject({ keys: z.array(DirectoryJwkSchema).max(maxKeys) }).safeParse(document);
  if (!parsed.success)
    throw new DirectoryUnavailable(
      `not a key directory (${parsed.error.issues[0]?.path.join('.') || 'document'}: ${parsed.error.issues[0]?.message})`,
    );
  const keys = new Map<string, Uint8Array>();
  for (const jwk of parsed.data.keys) {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || jwk.x === undefined) continue;
    const x = ed25519PublicKeyOf(jwk.x);
    if (x) keys.set(jwkThumbprint(jwk.x), x);
  }
  return keys;
}

/** The 32 bytes of a JWK's `x`, if it is their canonical base64url (no padding) and nothing else. */
function ed25519PublicKeyOf(x: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(x)) return undefined;
  const bytes = Buffer.from(x, 'base64url');
  // Non-zero trailing bits would give the same key two spellings, and two thumbprints.
  if (bytes.length !== 32 || bytes.toString('base64url') !== x) return undefined;
  return new Uint8Array(bytes);
}

/** How long a directory is kept: its Cache-Control max-age within the bounds, or the default. */
export function ttlOf(
  cacheControl: string | null,
  { ttlMs, minTtlMs, maxTtlMs }: Pick<KeyDirectoryLimits, 'ttlMs' | 'minTtlMs' | 'maxTtlMs'>,
): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((directive) => directive.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return minTtlMs;
  const maxAge = directives.map((directive) => /^max-age="?(\d+)"?$/.exec(directive)).find(Boolean);
  if (!maxAge) return ttlMs;
  return Math.min(maxTtlMs, Math.max(minTtlMs, Number(maxAge[1]) * 1_000));
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * The gateway's key directories as its configuration says: undefined with
 * SIGNATURE_AGENT_DIRECTORIES=false (a Signature-Agent is then never looked up). http origins and
 * private addresses only with SIGNATURE_AGENT_ALLOW_PRIVATE=true, which production refuses.
 */
export function keyDirectoriesOf(
  config: Pick<GatewayConfig, 'SIGNATURE_AGENT_DIRECTORIES' | 'SIGNATURE_AGENT_ALLOW_PRIVATE'>,
  logger: Pick<Logger, 'debug' | 'warn'>,
): KeyDirectories | undefined {
  if (!config.SIGNATURE_AGENT_DIRECTORIES) return undefined;
  const allowPrivate = config.SIGNATURE_AGENT_ALLOW_PRIVATE;
  return new KeyDirectories({ policy: { allowPrivate, httpsOnly: !allowPrivate }, logger });
}
