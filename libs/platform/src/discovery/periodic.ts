import { recordDeclaration } from './handler-declarations.js';

/**
 * The settings of `Config` that hold a number: what `every` may name (any string when Config is
 * not given; NoInfer: the options never make Config up).
 */
export type NumericSetting<Config> = string extends keyof Config
  ? string
  : { [K in keyof Config]-?: NonNullable<Config[K]> extends number ? K : never }[keyof Config] & string;

export interface PeriodicOptions<Config> {
  /**
   * The setting that holds the interval in milliseconds: a key of the service's configuration
   * (its config.ts, so it is validated and documented with the others). Checked at start.
   */
  every: NoInfer<NumericSetting<Config>>;
  /** Also run as soon as the service has started, not only once the first interval has passed. */
  runAtStart?: boolean;
  /** Run only where this holds for the service's configuration; by default, everywhere. */
  when?: (config: NoInfer<Config>) => boolean;
}

/**
 * Marks a method that the platform runs every `every` milliseconds on each replica, from the
 * service's start to its stop (PeriodicJob: never two runs at once in one process; stop waits
 * for the run in flight). Every replica runs it, so the work must be safe on all of them at
 * once: a conditional UPDATE, a lease, an idempotent insert. It returns how many things it did
 * (logged when more than 0); a failure is logged and the next run comes as usual.
 *
 * `@Periodic<TicketingConfig>({ every: 'WAITLIST_SWEEP_INTERVAL_MS' })`: with the service's
 * configuration type, the compiler checks the setting as well.
 */
export function Periodic<Config = Record<string, unknown>>(options: PeriodicOptions<Config>) {
  return <T extends () => Promise<number>>(
    target: object,
    key: string | symbol,
    _descriptor: TypedPropertyDescriptor<T>,
  ): void =>
    recordDeclaration(target, key, {
      kind: 'periodic',
      every: options.every,
      runAtStart: options.runAtStart ?? false,
      when: options.when,
    });
}
