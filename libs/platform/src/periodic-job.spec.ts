import { pino } from 'pino';
import { PeriodicJob } from './periodic-job.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PeriodicJob', () => {
  it('never runs twice at once: ticks that find a run going are skipped, not queued', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const job = new PeriodicJob(
      'held',
      5,
      async () => {
        runs += 1;
        await held;
        return 0;
      },
      pino({ level: 'silent' }),
    );
    job.start({ runNow: true });
    await sleep(60); // a dozen ticks while the first run is held
    expect(runs).toBe(1);
    release();
    await sleep(30);
    await job.stop();
    // Once released, runs come at the ticks again; the skipped ones did not pile up behind it.
    expect(runs).toBeGreaterThan(1);
    expect(runs).toBeLessThan(12);
  });

  it('logs a run that failed, and the next run comes as usual', async () => {
    const failures: unknown[] = [];
    const logger = pino(
      { level: 'error' },
      { write: (line: string) => void failures.push(JSON.parse(line)) },
    );
    let runs = 0;
    const job = new PeriodicJob(
      'flaky',
      5,
      async () => {
        runs += 1;
        if (runs === 1) throw new Error('the database is away');
        return 0;
      },
      logger,
    );
    job.start({ runNow: true });
    while (runs < 3) await sleep(5);
    await job.stop();
    expect(failures).toEqual([expect.objectContaining({ job: 'flaky', msg: 'flaky failed' })]);
  });

  it('does not keep the process alive', () => {
    const job = new PeriodicJob('idle', 60_000, async () => 0, pino({ level: 'silent' }));
    job.start();
    const timer = (job as unknown as { timer: NodeJS.Timeout }).timer;
    expect(timer.hasRef()).toBe(false);
    return job.stop();
  });
});
