/** The ticketing service's settings (SETTINGS), read from its configuration once. */
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
