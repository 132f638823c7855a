import { generateAgentKey } from '@townhall/sdk';
import { loadKeyFile, saveKeyFile } from '@townhall/sdk/key-file';
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import type { CliIo } from '../io.js';

/** `keygen` and `whoami`: the agent is its key, kept in a 0600 file. */
export function registerKeys(program: Command, io: CliIo): void {
  program
    .command('keygen')
    .description('create a new agent: an Ed25519 key saved to the key file (mode 0600)')
    .option('--force', 'replace an existing key file (the old key, and its identity, are lost)')
    .action(async (options: { force?: boolean }, command: Command) => {
      const context = contextOf(command, io);
      const key = generateAgentKey();
      await saveKeyFile(context.settings.keyPath, key, { overwrite: options.force === true });
      context.print({ agentId: key.agentId, keyFile: context.settings.keyPath }, (result) => [
        `created agent ${result.agentId}`,
        `key saved to ${result.keyFile} (mode 0600: keep it private, it is your identity)`,
      ]);
    });

  program
    .command('whoami')
    .description(
      "print this agent's agentId, alone (--json: with the key file); read from the key file, no request",
    )
    .action(async (_options: unknown, command: Command) => {
      const context = contextOf(command, io);
      const key = await loadKeyFile(context.settings.keyPath);
      // Bare, so that `$(townhall whoami)` is the agentId.
      context.print({ agentId: key.agentId, keyFile: context.settings.keyPath }, (result) => result.agentId);
    });
}
