// When the chain's state reaches the disk: debounced after a change, at once on demand, one write at a time.
import type { Bank } from './bank.js';
import { writeState, type ChainFiles } from './chain-store.js';
import { LocalChainError } from './errors.js';

const SAVE_DELAY_MS = 250;

/** Writes a bank's whole state to its files; with no files (an ephemeral chain) it writes nothing. */
export class SaveScheduler {
  private timer: NodeJS.Timeout | undefined;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly bank: Bank,
    private readonly files: ChainFiles | undefined,
    private readonly onPersistError: ((error: LocalChainError) => void) | undefined,
  ) {}

  /** Writes the state now, in place of any pending background write; rejects if this write fails. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.files) return;
    // A background write that failed is retried here with the whole state: if this write succeeds, what
    // the failed one was writing (and everything since) is on disk, and its error no longer applies.
    await this.write(this.files);
  }

  /** After a change: one background write SAVE_DELAY_MS later covers every change made until then. */
  schedule(): void {
    if (!this.files || this.timer) return;
    const files = this.files;
    // Not unref'd: a process ending naturally waits the few ms for its last change to reach the disk.
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.write(files).catch((error: unknown) => {
        const failure =
          error instanceof LocalChainError
            ? error
            : new LocalChainError('persistence_failed', `saving the chain failed: ${String(error)}`, {
                cause: error,
              });
        // Without a listener the failure is not lost: the next change, save() or close() writes the
        // whole state again, and save() and close() reject if that write fails too.
        this.onPersistError?.(failure);
      });
    }, SAVE_DELAY_MS);
  }

  private write(files: ChainFiles): Promise<void> {
    // The state is taken now, synchronously; writes run one after another, so the last one on disk is the newest.
    const state = this.bank.snapshot();
    const written = this.saving.then(() =>
      writeState(files, {
        snapshot: state.svm,
        blockhashQueue: state.queue,
        transactions: state.transactions,
      }),
    );
    // The scheduler only orders writes; each caller gets its own write's error from `written`.
    this.saving = written.catch(() => undefined);
    return written;
  }
}
