import { isAbsolute, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { AgentClient } from '@townhall/sdk';
import { loadKeyFile } from '@townhall/sdk/key-file';
import { UsageError } from './failure.js';
import type { CliIo } from './io.js';

export const DEFAULT_URL = 'http://localhost:3000';

/** The options every command accepts (commander's `optsWithGlobals()`). */
export interface GlobalOptions {
  url?: string;
  key?: string;
  audience?: string;
  idempotencyKey?: string;
  json?: boolean;
}

export interface Settings {
  /** The gateway's base URL. */
  url: string;
  /** The agent's key file. */
  keyPath: string;
  /** The audience to sign for, when it is not the URL's origin (PUBLIC_BASE_URL behind a proxy). */
  audience: string | undefined;
  /** Sent on every signed write of this command (docs/protocol/idempotency.md). */
  idempotencyKey: string | undefined;
  json: boolean;
}

/** Flags first, then TOWNHALL_URL / TOWNHALL_KEY / TOWNHALL_AUDIENCE, then the defaults. */
export function resolveSettings(options: GlobalOptions, env: CliIo['env'], home: string): Settings {
  // An empty variable (`TOWNHALL_URL= townhall ...`) counts as unset.
  const variable = (name: string) => env[name] || undefined;
  const url = (options.url ?? variable('TOWNHALL_URL') ?? DEFAULT_URL).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${url} is not a URL (--url or TOWNHALL_URL, e.g. http://localhost:3000)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`${url} must be an http:// or https:// URL (--url or TOWNHALL_URL)`);
  const key = options.key ?? variable('TOWNHALL_KEY') ?? join(home, '.townhall', 'key.json');
  const expanded = key === '~' || key.startsWith('~/') ? join(home, key.slice(1)) : key;
  return {
    url,
    keyPath: isAbsolute(expanded) ? expanded : resolve(expanded),
    audience: options.audience ?? variable('TOWNHALL_AUDIENCE'),
    idempotencyKey: options.idempotencyKey,
    json: options.json === true,
  };
}

/** What one command runs with: the settings, the agent (loaded on first use) and the output. */
export class CommandContext {
  constructor(
    readonly settings: Settings,
    readonly io: CliIo,
  ) {}

  /** The agent of the key file: for signed requests. Refuses a missing or too open key file. */
  async agent(): Promise<AgentClient> {
    const key = await loadKeyFile(this.settings.keyPath);
    const agent = new AgentClient({
      baseUrl: this.settings.url,
      key,
      ...(this.settings.audience ? { audience: this.settings.audience } : {}),
    });
    const { idempotencyKey } = this.settings;
    return idempotencyKey === undefined ? agent : agent.withIdempotencyKey(idempotencyKey);
  }

  /** A client for public reads: it signs nothing, so no key file is needed. */
  visitor(): AgentClient {
    return new AgentClient({ baseUrl: this.settings.url });
  }

  /** Prints a result: its JSON with --json, else the lines `human` makes of it. */
  print<T>(value: T, human: (value: T) => string | string[]): void {
    if (this.settings.json) {
      this.io.out(JSON.stringify(value, null, 2));
      return;
    }
    const lines = human(value);
    const text = typeof lines === 'string' ? lines : lines.join('\n');
    if (text.length > 0) this.io.out(text);
  }

  /** Progress and prompts: stderr, so that stdout stays the result. */
  note(text: string): void {
    this.io.err(text);
  }
}

/** The context of the command commander is running (its options merged with the global ones). */
export function contextOf(command: Command, io: CliIo): CommandContext {
  return new CommandContext(resolveSettings(command.optsWithGlobals<GlobalOptions>(), io.env, io.home), io);
}
