import { runCli } from '../src/cli.js';
import type { CliIo } from '../src/io.js';

/**
 * Runs one command line in memory, as a script would (no terminal): its exit code and what it
 * printed, each line ended once. `confirm` answers every question the command asks.
 */
export async function runInMemory(
  argv: string[],
  { home, confirm = false }: { home: string; confirm?: boolean },
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => (stderr += text.endsWith('\n') ? text : `${text}\n`),
    env: {},
    home,
    interactive: false,
    confirm: async () => confirm,
    stopSignal: () => new AbortController().signal,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}
