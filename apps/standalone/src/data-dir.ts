import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class DataDirInUse extends Error {
  override readonly name = 'DataDirInUse';
}

/**
 * The folder standalone mode keeps its data in (PGlite's files under `pgdata/`), taken for
 * this process by a pid file: two processes on one PGlite folder would corrupt it. A pid file
 * left by a process that no longer runs is taken over.
 */
export function lockDataDir(dir: string): { path: string; pgdata: string; release(): void } {
  const path = resolve(dir);
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const pidFile = join(path, 'townhall.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(pidFile, String(process.pid), { flag: 'wx' });
      return {
        path,
        pgdata: join(path, 'pgdata'),
        release: () => rmSync(pidFile, { force: true }),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(pidFile, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) {
        throw new DataDirInUse(
          `${path} is in use by another Townhall (pid ${owner}); stop it, or start with --data-dir <other folder> or --ephemeral`,
        );
      }
      rmSync(pidFile, { force: true });
    }
  }
  throw new DataDirInUse(`Could not take ${pidFile}`);
}

/**
 * A signing key kept in the data folder as `file` (readable by its owner only): made by `generate`
 * on the first start, the same at every start after. The webhook signing key
 * (`webhook-signing-key`), so that receivers keep verifying with the public key they fetched once;
 * the receipts' (`receipt-signing-key`), so that a receipt a buyer kept still verifies after a
 * restart.
 */
export function keptSigningKey(
  dir: string,
  file: 'webhook-signing-key' | 'receipt-signing-key',
  generate: () => string,
): string {
  const path = join(resolve(dir), file);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = generate();
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
