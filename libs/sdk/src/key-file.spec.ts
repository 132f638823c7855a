import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAgentKey } from '@townhall/auth/portable';
import {
  KeyFileError,
  decodeKeyFile,
  encodeKeyFile,
  keyFileModeProblem,
  loadKeyFile,
  saveKeyFile,
} from './key-file.js';

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KeyFileError) return error.code;
    throw error;
  }
  throw new Error('expected a KeyFileError');
}

describe('key files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'townhall-key-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('saves a key as 0600 in a new 0700 directory and loads the same key back', async () => {
    const key = generateAgentKey();
    const path = join(dir, 'home', '.townhall', 'key.json');
    await saveKeyFile(path, key);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'home', '.townhall'))).mode & 0o777).toBe(0o700);
    const loaded = await loadKeyFile(path);
    expect(loaded.agentId).toBe(key.agentId);
    expect(loaded.secretKey).toEqual(key.secretKey);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({
      kind: 'townhall-agent-key',
      version: 1,
      agentId: key.agentId,
    });
  });

  it('never replaces an existing key unless asked to', async () => {
    const path = join(dir, 'key.json');
    const first = generateAgentKey();
    await saveKeyFile(path, first);
    expect(await refusal(saveKeyFile(path, generateAgentKey()))).toBe('key.exists');
    expect((await loadKeyFile(path)).agentId).toBe(first.agentId);
    const second = generateAgentKey();
    await saveKeyFile(path, second, { overwrite: true });
    expect((await loadKeyFile(path)).agentId).toBe(second.agentId);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('refuses a key file that group or others can read, a missing one and a malformed one', async () => {
    const path = join(dir, 'key.json');
    await saveKeyFile(path, generateAgentKey());
    await chmod(path, 0o644);
    expect(await refusal(loadKeyFile(path))).toBe('key.too_open');
    await chmod(path, 0o640);
    expect(await refusal(loadKeyFile(path))).toBe('key.too_open');
    await chmod(path, 0o400);
    await expect(loadKeyFile(path)).resolves.toBeDefined();

    expect(await refusal(loadKeyFile(join(dir, 'nope.json')))).toBe('key.not_found');
    const bad = join(dir, 'bad.json');
    await writeFile(bad, 'not json', { mode: 0o600 });
    expect(await refusal(loadKeyFile(bad))).toBe('key.malformed');
  });

  it('names the permission problem like ssh does', () => {
    expect(keyFileModeProblem(0o100600, '/k')).toBeUndefined();
    expect(keyFileModeProblem(0o100400, '/k')).toBeUndefined();
    expect(keyFileModeProblem(0o100644, '/k')).toBe(
      'permissions 0644 for /k are too open: a private key must be readable by its owner only (run: chmod 600 /k)',
    );
    expect(keyFileModeProblem(0o100602, '/k')).toMatch(/0602/);
  });

  it('refuses a file whose secret does not derive to its agentId', () => {
    const file = JSON.parse(encodeKeyFile(generateAgentKey())) as Record<string, unknown>;
    file['agentId'] = generateAgentKey().agentId;
    expect(() => decodeKeyFile(JSON.stringify(file))).toThrow(KeyFileError);
    expect(() => decodeKeyFile(JSON.stringify({ ...file, secretKey: 'short' }))).toThrow(
      /not a townhall agent key/,
    );
  });
});
