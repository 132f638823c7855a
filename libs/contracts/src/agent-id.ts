import { z } from 'zod';

/** Base58 (Bitcoin alphabet) of a 32-byte key: 32 to 44 characters. The gateway has verified callers fully. */
export const AgentIdSchema = z
  .string()
  .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'must be a base58 Ed25519 public key (agentId)');
