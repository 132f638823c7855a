import type { AgentKey } from '@townhall/auth/portable';
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import { x402Client, x402HTTPClient, type PaymentPolicy } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';

/** Solana's clusters as CAIP-2 ids: the only networks the official x402 Solana client pays on. */
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';
export const SOLANA_TESTNET = 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z';
const SOLANA_CLUSTERS = [SOLANA_MAINNET, SOLANA_DEVNET, SOLANA_TESTNET] as const;

/**
 * The agent's key as a Solana signer (@solana/kit): its agentId is its Solana address, so the key
 * that signs its requests signs its transfers too. Checked, so a key file that does not hold the
 * agent's own key can never pay.
 */
export async function solanaSignerOf(key: AgentKey): Promise<KeyPairSigner> {
  const signer = await createKeyPairSignerFromPrivateKeyBytes(key.secretKey);
  if (signer.address !== key.agentId) {
    throw new Error(`the Solana signer's address ${signer.address} is not the agent ${key.agentId}`);
  }
  return signer;
}

export interface SolanaPaymentOptions {
  /** Solana JSON-RPC for the blockhash and the mint (default: the cluster's public endpoint). */
  rpcUrl?: string;
  /** The networks to pay on, preferred first (default: Solana's three clusters). */
  networks?: readonly string[];
  /**
   * The most one payment may cost, in atomic units of its asset. Enforced by the official
   * client's spend controls: a payment above it is never signed.
   */
  maxPrice?: string;
}

/**
 * Pays `exact` on Solana with the agent's own key, through the official x402 client: `client` is
 * @x402/core's `x402Client` with @x402/svm's ExactSvmScheme registered, for
 * `wrapFetchWithPayment(agent.fetch, payer.client)` from @x402/fetch, and `agent.tickets.rsvp(id,
 * { maxPrice, network })` uses the same. It pays the first of `networks` a 402 offers, and never
 * more than `maxPrice` (a policy of the client, the one place the limit lives).
 */
export class SolanaPayer {
  private constructor(
    readonly client: x402Client,
    private readonly networks: readonly string[],
    private readonly maxPrice: bigint | undefined,
  ) {}

  static async create(key: AgentKey, options: SolanaPaymentOptions = {}): Promise<SolanaPayer> {
    const signer = await solanaSignerOf(key);
    const networks = (options.networks ?? SOLANA_CLUSTERS).filter((network) =>
      (SOLANA_CLUSTERS as readonly string[]).includes(network),
    );
    const maxPrice = options.maxPrice === undefined ? undefined : BigInt(options.maxPrice);
    const scheme = new ExactSvmScheme(
      signer,
      options.rpcUrl === undefined ? undefined : { rpcUrl: options.rpcUrl },
    );
    const client = new x402Client((_version, offers) => offers[0]!);
    for (const network of networks) client.register(network as `${string}:${string}`, scheme);
    // Any asset a server names may be paid, each payment capped in its own atomic units by the
    // policy below: the official USD cap knows only its default assets.
    client.setSpendControls({ maxAmountPerPayment: false, allowedAssets: true });
    const payer = new SolanaPayer(client, networks, maxPrice);
    const policy: PaymentPolicy = (_version, offers) =>
      offers
        .filter((offer) => payer.pays(offer))
        .sort((a, b) => networks.indexOf(a.network) - networks.indexOf(b.network));
    client.registerPolicy(policy);
    return payer;
  }

  /** Whether this payer pays an offer: one of its networks, at most its maxPrice. */
  pays(offer: Pick<PaymentRequirements, 'network' | 'amount'>): boolean {
    return (
      this.networks.includes(offer.network) &&
      /^[0-9]{1,40}$/.test(offer.amount) &&
      (this.maxPrice === undefined || BigInt(offer.amount) <= this.maxPrice)
    );
  }

  /**
   * The PAYMENT-SIGNATURE paying the first offer of `required` that this payer pays (an x402 v2
   * PaymentRequired: a 402's, or a refund's `{ resource, accepts: [refund.payment] }`).
   */
  async sign(required: {
    x402Version: 2;
    resource: { url: string };
    accepts: Array<Omit<PaymentRequirements, 'network'> & { network: string }>;
  }): Promise<string> {
    const payload = await this.client.createPaymentPayload(required as PaymentRequired);
    const header = new x402HTTPClient(this.client).encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'];
    if (header === undefined) throw new Error('the x402 client made no PAYMENT-SIGNATURE for a v2 payment');
    return header;
  }

  /**
   * The PAYMENT-SIGNATURE for a 402 (its `PAYMENT-REQUIRED` header, and its body for x402 v1), or
   * undefined when it offers nothing this payer pays.
   */
  async paymentFor(
    headers: { get(name: string): string | null },
    body: unknown,
  ): Promise<{ header: string; accepted: PaymentRequirements } | undefined> {
    const http = new x402HTTPClient(this.client);
    let required: PaymentRequired;
    try {
      required = http.getPaymentRequiredResponse((name) => headers.get(name), body);
    } catch {
      return undefined;
    }
    if (required.x402Version !== 2 || !required.accepts.some((offer) => this.pays(offer))) return undefined;
    const payload: PaymentPayload = await this.client.createPaymentPayload(required);
    const encoded = http.encodePaymentSignatureHeader(payload);
    const header = encoded['PAYMENT-SIGNATURE'];
    if (header === undefined) throw new Error('the x402 client made no PAYMENT-SIGNATURE for a v2 payment');
    return { header, accepted: payload.accepted };
  }
}

/** Circle's USDC mint on each Solana cluster (the default asset of a Townhall sale there). */
export const USDC_MINTS: Readonly<Record<string, string>> = {
  [SOLANA_MAINNET]: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  [SOLANA_DEVNET]: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  [SOLANA_TESTNET]: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
};

export interface WalletBalances {
  /** The agent's address: its agentId. */
  address: string;
  /** Lamports (1 SOL = 10^9). */
  sol: bigint;
  mint: string;
  /** The associated token account of `mint`, and its balance in atomic units (0 if it does not exist). */
  tokenAccount: string;
  tokens: bigint;
  tokenAccountExists: boolean;
}

/** What an agent's wallet holds, read over Solana JSON-RPC: SOL and its balance of one SPL mint. */
export async function walletBalances(
  address: string,
  options: { rpcUrl: string; mint: string },
): Promise<WalletBalances> {
  const { address: toAddress, createSolanaRpc } = await import('@solana/kit');
  const { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } = await import('@solana-program/token');
  const rpc = createSolanaRpc(options.rpcUrl);
  const [tokenAccount] = await findAssociatedTokenPda({
    owner: toAddress(address),
    mint: toAddress(options.mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  const [{ value: sol }, account] = await Promise.all([
    rpc.getBalance(toAddress(address)).send(),
    rpc.getAccountInfo(tokenAccount, { encoding: 'base64' }).send(),
  ]);
  const tokens = account.value
    ? BigInt((await rpc.getTokenAccountBalance(tokenAccount).send()).value.amount)
    : 0n;
  return {
    address,
    sol: BigInt(sol),
    mint: options.mint,
    tokenAccount,
    tokens,
    tokenAccountExists: account.value !== null,
  };
}
