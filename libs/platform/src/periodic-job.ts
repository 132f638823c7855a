import type { Logger } from './logger.js';

/**
 * Runs `work` every `intervalMs`, never two runs at once in one process; stop() waits for
 * the run in flight. Jobs built on it must be safe on every replica at the same time.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly work: () => Promise<number>,
    private readonly logger: Logger,
  ) {}

  start(options: { runNow?: boolean } = {}): void {
    if (options.runNow) this.tick();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    this.running = this.running
      .then(() => this.work())
      .then((done) => done > 0 && this.logger.info({ job: this.name, done }, `${this.name}: ${done}`))
      .catch((error: unknown) => this.logger.error({ err: error, job: this.name }, `${this.name} failed`));
  }
}
