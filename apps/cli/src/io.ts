import { homedir } from 'node:os';
import { createInterface } from 'node:readline/promises';

/** Everything the CLI touches outside itself, so that tests can run it without a terminal. */
export interface CliIo {
  /** Writes to standard output (results). */
  out(text: string): void;
  /** Writes to standard error (errors, prompts, progress). */
  err(text: string): void;
  env: Record<string, string | undefined>;
  home: string;
  /** Whether a person can answer a question: standard input and error are terminals. */
  interactive: boolean;
  /** Asks a yes/no question on the terminal; only called when `interactive`. */
  confirm(question: string): Promise<boolean>;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM, for commands that run until stopped. */
  stopSignal(): AbortSignal;
}

/** The real process: stdout, stderr, the terminal, the environment and signals. */
export function processIo(): CliIo {
  // `townhall stage tail ... | head`: the reader left, so there is nobody to write for. Stop quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    env: process.env,
    home: homedir(),
    interactive: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    async confirm(question) {
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const answer = await prompt.question(`${question} [y/N] `);
        return /^y(es)?$/i.test(answer.trim());
      } finally {
        prompt.close();
      }
    },
    stopSignal() {
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      return controller.signal;
    },
  };
}
