import type { AgentKey } from '@townhall/auth/portable';
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import { x402Client, x402HTTPClient, type PaymentPolicy } from '@x402/core/client';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { acceptsAsset, assetRefusal, type PaymentRefusedError } from './payment-checks.js';
import { SOLANA_CLUSTERS } from '@townhall/x402';

export { SOLANA_DEVNET, SOLANA_MAINNET, SOLANA_TESTNET, USDC_MINTS } from '@townhall/x402';
export { PaymentRefusedError, USDC_ASSETS, type PaymentCheck, type PaymentField } from './payment-checks.js';

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
  /**
   * The SPL mints it pays in (default: USDC, Circle's mint of each cluster: `USDC_MINTS`). An
   * offer in any other asset is never signed, whatever the server names.
   */
  assets?: readonly string[];
}

/**
 * Pays `exact` on Solana with the agent's own key, through the official x402 client: `client` is
 * @x402/core's `x402Client` with @x402/svm's ExactSvmScheme registered, for
 * `wrapFetchWithPayment(agent.fetch, payer.client)` from @x402/fetch, and `agent.tickets.rsvp(id,
 * { maxPrice, network })` uses the same. It pays the first of `networks` a 402 offers, in one of
 * its `assets`, and never more than `maxPrice` (a policy of the client, the one place the limits
 * live, so the official fetch wrapper keeps them too).
 */
export class SolanaPayer {
  private constructor(
    readonly client: x402Client,
    private readonly networks: readonly string[],
    private readonly maxPrice: bigint | undefined,
    private readonly assets: readonly string[] | undefined,
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
    // The official controls always allow their default assets and cap them in dollars; the policy
    // below decides instead: only this payer's assets, each capped in its own atomic units.
    client.setSpendControls({ maxAmountPerPayment: false, allowedAssets: true });
    const payer = new SolanaPayer(client, networks, maxPrice, options.assets);
    const policy: PaymentPolicy = (_version, offers) => {
      const payable = offers.filter((offer) => payer.pays(offer));
      // Say why, rather than the client's "all payment requirements were filtered out".
      if (payable.length === 0) {
        const refusal = payer.refusalOf(offers);
        if (refusal) throw refusal;
      }
      return payable.sort((a, b) => networks.indexOf(a.network) - networks.indexOf(b.network));
    };
    client.registerPolicy(policy);
    return payer;
  }

  /** Whether this payer pays an offer: one of its networks, in one of its assets, at most its maxPrice. */
  pays(offer: Pick<PaymentRequirements, 'network' | 'amount' | 'asset'>): boolean {
    return this.fits(offer) && acceptsAsset(offer.network, offer.asset, this.assets);
  }

  /** One of its networks, at most its maxPrice: all but the asset. */
  private fits(offer: Pick<PaymentRequirements, 'network' | 'amount'>): boolean {
    return (
      this.networks.includes(offer.network) &&
      /^[0-9]{1,40}$/.test(offer.amount) &&
      (this.maxPrice === undefined || BigInt(offer.amount) <= this.maxPrice)
    );
  }

  /** The refusal of an offer this payer would pay but for its asset, if there is one. */
  private refusalOf(
    offers: ReadonlyArray<Pick<PaymentRequirements, 'network' | 'amount' | 'asset'>>,
  ): PaymentRefusedError | undefined {
    const refused = offers.find((offer) => this.fits(offer));
    return refused && assetRefusal('the payment', refused.network, refused.asset, this.assets);
  }

  /**
   * The PAYMENT-SIGNATURE paying the first offer of `required` that this payer pays (an x402 v2
   * PaymentRequired: a 402's, or a refund's `{ resource, accepts: [refund.payment] }`). Throws
   * PaymentRefusedError, signing nothing, when the offers it would pay are all in other assets.
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
   * undefined when it offers nothing this payer pays. Throws PaymentRefusedError, signing nothing,
   * when what it would pay is offered only in assets this payer does not pay in.
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
    if (required.x402Version !== 2) return undefined;
    if (!required.accepts.some((offer) => this.pays(offer))) {
      const refusal = this.refusalOf(required.accepts);
      if (refusal) throw refusal;
      return undefined;
    }
    const payload: PaymentPayload = await this.client.createPaymentPayload(required);
    const encoded = http.encodePaymentSignatureHeader(payload);
    const header = encoded['PAYMENT-SIGNATURE'];
    if (header === undefined) throw new Error('the x402 client made no PAYMENT-SIGNATURE for a v2 payment');
    return { header, accepted: payload.accepted };
  }
}

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
