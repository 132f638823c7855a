import type { Logger } from '@townhall/platform/service';

/** Injection tokens of the ticketing service. */
export const OUTBOX_RELAY = Symbol('OutboxRelay');
export const SERVICES = Symbol('ServiceClient');
export const CLOCK = Symbol('Clock');
export const LOGGER = Symbol('Logger');
export const SETTINGS = Symbol('TicketingSettings');
export const FACILITATOR = Symbol('Facilitator');
export const RAILS = Symbol('PaymentRails');
export const SIGNATURES = Symbol('SignatureVerifier');

export type Clock = () => Date;

export interface TicketingSettings {
  environment: string;
  publicBaseUrl: string;
  faucet: boolean;
  /** The most one faucet call mints (LEDGER_FAUCET_MAX_AMOUNT). */
  faucetMaxAmount: bigint;
  /** Faucet calls per agent per hour, across replicas (LEDGER_FAUCET_CALLS_PER_HOUR). */
  faucetCallsPerHour: number;
  facilitator: 'ledger' | 'http' | 'solana-local';
  /** x402 network: `ledger:<environment>` for the ledger facilitator, else X402_NETWORK. */
  network: string;
  /** The SPL mint a Solana network is paid in (X402_ASSET); undefined elsewhere. */
  asset: string | undefined;
  paymentTimeoutSeconds: number;
  /** How long the http facilitator has to answer /verify or /settle (X402_FACILITATOR_TIMEOUT_MS). */
  facilitatorTimeoutMs: number;
  /** How long a purchase waits at a sold-out-looking tier's SeatGate before it is shed (DATABASE_POOL_WAIT_MS). */
  admissionWaitMs: number;
}

export type { Logger };
