import { runChecks, type ReadinessCheck } from '@townhall/platform';

/** How long one run of the checks answers the public /readyz. */
export const PUBLIC_READINESS_MAX_AGE_MS = 1_000;

/**
 * Readiness as the public port answers it: ready or not, from one run of the checks at most
 * every `maxAgeMs`, shared by every request meanwhile (and by those that arrive while it runs).
 * A flood of /readyz then costs the dependencies nothing: no SELECT 1 on standalone's single
 * PGlite connection per request, no Redis or NATS round trip per request. Which dependency
 * failed, and why, is for the operators' port (PROBE_PORT), which runs the checks each time.
 */
export class CachedReadiness {
  private last: { atMs: number; ready: boolean } | undefined;
  private running: Promise<boolean> | undefined;
  private closing = false;

  constructor(
    private readonly checks: Record<string, ReadinessCheck>,
    private readonly maxAgeMs = PUBLIC_READINESS_MAX_AGE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  ready(): Promise<boolean> {
    if (this.closing) return Promise.resolve(false);
    const last = this.last;
    if (last && this.now() - last.atMs < this.maxAgeMs) return Promise.resolve(last.ready);
    this.running ??= runChecks(this.checks)
      .then(({ ready }) => {
        this.last = { atMs: this.now(), ready };
        return ready;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** From now on not ready: the gateway is closing, and load balancers should send elsewhere. */
  close(): void {
    this.closing = true;
  }
}
