// Node only (it touches the file system), so it is `@townhall/sdk/key-file`, not part of the
// portable index that browsers import.
import { chmod, link, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { agentKeyFromSecret, type AgentKey } from '@townhall/auth/portable';

/** What a key file holds: the 32-byte Ed25519 seed, and the agentId it must derive to. */
export interface AgentKeyFile {
  kind: 'townhall-agent-key';
  version: 1;
  agentId: string;
  /** base64url (no padding) of the 32-byte RFC 8032 seed. */
  secretKey: string;
}

export type KeyFileProblem = 'key.not_found' | 'key.exists' | 'key.too_open' | 'key.malformed';

/** A key file that cannot be written or used; `code` says why. */
export class KeyFileError extends Error {
  override readonly name = 'KeyFileError';
  constructor(
    readonly code: KeyFileProblem,
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

export function encodeKeyFile(key: AgentKey): string {
  const file: AgentKeyFile = {
    kind: 'townhall-agent-key',
    version: 1,
    agentId: key.agentId,
    secretKey: Buffer.from(key.secretKey).toString('base64url'),
  };
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Parses a key file's text; refuses anything but a seed that derives to the agentId it names. */
export function decodeKeyFile(text: string, path = 'key file'): AgentKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KeyFileError('key.malformed', `${path} is not JSON`, path);
  }
  const file = parsed as Partial<AgentKeyFile> | null;
  if (
    typeof file !== 'object' ||
    file === null ||
    file.kind !== 'townhall-agent-key' ||
    file.version !== 1 ||
    typeof file.secretKey !== 'string' ||
    !/^[A-Za-z0-9_-]{43}$/.test(file.secretKey)
  )
    throw new KeyFileError('key.malformed', `${path} is not a townhall agent key (version 1)`, path);
  const key = agentKeyFromSecret(new Uint8Array(Buffer.from(file.secretKey, 'base64url')));
  if (file.agentId !== key.agentId)
    throw new KeyFileError(
      'key.malformed',
      `${path}: its secret key is not the key of ${file.agentId}`,
      path,
    );
  return key;
}

/**
 * Why a key file with these permission bits must not be used, or undefined if it may. Like ssh:
 * a private key that group or others can read (or write) is refused, not silently used.
 */
export function keyFileModeProblem(mode: number, path: string): string | undefined {
  const bits = mode & 0o777;
  if ((bits & 0o077) === 0) return undefined;
  const octal = bits.toString(8).padStart(4, '0');
  return `permissions ${octal} for ${path} are too open: a private key must be readable by its owner only (run: chmod 600 ${path})`;
}

export interface SaveKeyFileOptions {
  /** Replace an existing file (default: refuse with `key.exists`). */
  overwrite?: boolean;
}

/**
 * Writes the key to `path` with mode 0600, creating its directory with mode 0700 if missing.
 * The key is written to a 0600 file beside the target first and then put in place (renamed, or
 * hard-linked when it must not replace anything), so no reader ever sees half a key and it is
 * never, even for a moment, readable by anyone else.
 */
export async function saveKeyFile(
  path: string,
  key: AgentKey,
  options: SaveKeyFileOptions = {},
): Promise<void> {
  const directory = dirname(path);
  const created = await mkdir(directory, { recursive: true, mode: 0o700 });
  // mkdir's mode is filtered by the umask; say it again for the directory we made.
  if (created !== undefined) await chmod(directory, 0o700);
  if (!options.overwrite && (await exists(path))) throw alreadyThere(path);
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.chmod(0o600);
      await handle.writeFile(encodeKeyFile(key), 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (options.overwrite) await rename(temporary, path);
    else {
      // link() fails if the name exists: of two concurrent keygens exactly one wins.
      try {
        await link(temporary, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyThere(path);
        throw error;
      }
    }
  } finally {
    await rm(temporary, { force: true });
  }
}

/** Reads a key file, refusing one that is missing, malformed or readable by group or others. */
export async function loadKeyFile(path: string): Promise<AgentKey> {
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new KeyFileError('key.not_found', `no key at ${path}`, path);
    throw error;
  }
  // Windows has no POSIX permission bits to check.
  const problem = process.platform === 'win32' ? undefined : keyFileModeProblem(mode, path);
  if (problem) throw new KeyFileError('key.too_open', problem, path);
  return decodeKeyFile(await readFile(path, 'utf8'), path);
}

function alreadyThere(path: string): KeyFileError {
  return new KeyFileError('key.exists', `${path} already exists`, path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
