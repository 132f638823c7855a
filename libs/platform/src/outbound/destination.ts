import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { refusedAddressReason } from './public-address.js';

/** One address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses (the system resolver, or a test's). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

/**
 * Where an app may connect to a URL a stranger chose (webhooks: WEBHOOK_ALLOW_PRIVATE and
 * TOWNHALL_ENV; the gateway's key directories: SIGNATURE_AGENT_ALLOW_PRIVATE).
 */
export interface DestinationPolicy {
  /** Private, loopback, link-local... addresses too (development and tests only). */
  allowPrivate: boolean;
  /** https only. */
  httpsOnly: boolean;
}

/** The URL may not be connected to: the message says why (webhooks show it to the agent). */
export class DestinationRefused extends Error {
  override readonly name = 'DestinationRefused';
}

/** Where a request goes: the URL, and the one checked address it connects to (pinned). */
export interface Destination {
  url: URL;
  /** The host as the URL names it, without IPv6 brackets: the Host header and the TLS name. */
  hostname: string;
  address: ResolvedAddress;
}

/**
 * Checks a URL a stranger chose and resolves its host, now: the scheme, then every address the
 * name resolves to (one refused address refuses the URL: a name that also points inside could be
 * steered there). Run right before every request (webhooks: also when a subscription is made),
 * whose connection then goes to exactly the address returned (`postPinned`, `getPinned`: a name
 * that changes its answer between the check and the connection, DNS rebinding, cannot slip
 * through). A name that does not resolve within `timeoutMs` is refused too.
 */
export async function resolveDestination(
  url: string | URL,
  policy: DestinationPolicy,
  resolve: Resolver,
  timeoutMs = 5_000,
): Promise<Destination> {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.protocol !== 'https:' && (policy.httpsOnly || parsed.protocol !== 'http:'))
    throw new DestinationRefused(policy.httpsOnly ? 'must be an https URL' : 'must be an http(s) URL');
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    let timer: NodeJS.Timeout | undefined;
    try {
      addresses = await Promise.race([
        resolve(hostname),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })),
            timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      throw new DestinationRefused(
        `${hostname} does not resolve (${(error as { code?: string }).code ?? 'error'})`,
      );
    } finally {
      clearTimeout(timer);
    }
  }
  const [first] = addresses;
  if (!first) throw new DestinationRefused(`${hostname} does not resolve`);
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const reason = refusedAddressReason(address);
      if (reason)
        throw new DestinationRefused(
          `${hostname === address ? address : `${hostname} resolves to ${address}`}: ${reason} addresses are not delivered to`,
        );
    }
  }
  return { url: parsed, hostname, address: first };
}
