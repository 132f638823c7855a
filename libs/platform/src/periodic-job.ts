import type { Logger } from './logger.js';

/**
 * Runs `work` every `intervalMs`, never two runs at once in one process: a tick that finds the
 * last run still going is skipped, so slow runs never pile up. stop() waits for the run in
 * flight. The timer does not keep the process alive. Every replica runs its own, so the work
 * must be safe on all of them at once. Services do not build one: a method marked @Periodic is
 * run on one (see discovery/).
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    readonly name: string,
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
    if (this.running) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
  }

  private async run(): Promise<void> {
    try {
      const done = await this.work();
      if (done > 0) this.logger.info({ job: this.name, done }, `${this.name}: ${done}`);
    } catch (error) {
      this.logger.error({ err: error, job: this.name }, `${this.name} failed`);
    }
  }
}
