import { DomainError } from '@townhall/contracts';

/**
 * How many live streams each client holds open on this gateway process, capped per client.
 * The route is public (never signed), so the client is its address key (rate-limit/
 * client-address.ts: an IPv4 address, or an IPv6 /64). Counted in this process only: replicas
 * each allow the cap, which bounds what one client can take from any one of them.
 */
export class StreamsPerClient {
  private readonly open = new Map<string, number>();
  private count = 0;

  /** `limit` 0 counts without refusing. */
  constructor(readonly limit: number) {}

  /** Streams open on this process, all clients together. */
  get total(): number {
    return this.count;
  }

  /** Streams `client` holds open. */
  of(client: string): number {
    return this.open.get(client) ?? 0;
  }

  /**
   * Takes one of `client`'s streams, or throws 429 `live.too_many_streams` if it holds the
   * limit already. Returns the release: call it when the stream ends, however it ends; it
   * counts once however often it is called.
   */
  take(client: string): () => void {
    const held = this.of(client);
    if (this.limit > 0 && held >= this.limit)
      throw new DomainError(
        'live.too_many_streams',
        `This client address has ${held} live streams open, the most allowed; close one before opening another`,
      );
    this.open.set(client, held + 1);
    this.count += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.count -= 1;
      const left = this.of(client) - 1;
      if (left > 0) this.open.set(client, left);
      else this.open.delete(client);
    };
  }
}
