// Shared by the unit and integration tests; not a test itself (no .spec / .int-spec suffix).
import { agentKeyFromSecret } from '@townhall/auth';
import type { AgentKey } from '@townhall/auth';
import { hexToBytes } from '@noble/hashes/utils.js';
import { PaymentError } from '../src/errors.js';
import type { PaymentFailure } from '../src/errors.js';
import type { PaymentRequirements } from '../src/requirements.js';

/** RFC 8032 section 7.1 TEST 1 and TEST 2 seeds: fixed keys make failures reproducible. */
export const payer: AgentKey = agentKeyFromSecret(
  hexToBytes('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'),
);
export const host: AgentKey = agentKeyFromSecret(
  hexToBytes('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb'),
);
export const stranger: AgentKey = agentKeyFromSecret(
  hexToBytes('c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7'),
);

export const NOW = new Date('2025-01-01T12:00:00.000Z');
export const AUDIENCE = 'https://api.example.com';

export function tierRequirements(
  tierId: string,
  overrides?: Partial<PaymentRequirements>,
): PaymentRequirements {
  return {
    scheme: 'exact',
    network: 'ledger:staging',
    maxAmountRequired: '2500000',
    asset: 'USDC',
    payTo: host.agentId,
    resource: `${AUDIENCE}/events/evt_01/rsvp?tier=${tierId}`,
    description: `Ticket (${tierId}) for event evt_01`,
    mimeType: 'application/json',
    maxTimeoutSeconds: 300,
    extra: { eventId: 'evt_01', tierId },
    ...overrides,
  };
}

/** The reason a PaymentError carries, or undefined when nothing was thrown; other errors propagate. */
export function failureOf(run: () => unknown): PaymentFailure | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof PaymentError) return error.reason;
    throw error;
  }
  return undefined;
}

export function base64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}
