// `@townhall/testing/solana`: a separate entry, so that tests which do not pay on Solana do not load
// LiteSVM (a native module) with the rest of @townhall/testing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readText, sendJson } from './json-http.js';
import type { AddressInfo } from 'node:net';
import type { AgentKey } from '@townhall/auth';
import { SolanaPayer } from '@townhall/sdk/solana';
import {
  createLocalFacilitator,
  LocalChain,
  startLocalRpc,
  type LocalChainOptions,
} from '@townhall/solana-local';
import { decodePaymentHeader, type PaymentPayload } from '@townhall/x402';

/**
 * How the facilitator answers /settle (it always verifies and answers /supported as x402 does):
 * - `ok`: @x402/svm's own settle, answered.
 * - `hang-after-send`: settles (the transfer lands on the chain) and never answers, as a
 *   facilitator that died or stalled after sending.
 * - `hang`: never sends and never answers: the payment can only expire with its blockhash.
 * - `pending`: settles (the transfer lands) and answers `settlement_pending` with its transaction,
 *   as @x402/svm does when it could not confirm in time.
 * - `unknown-after-send`: settles (the transfer lands) and answers a failure whose reason no
 *   x402 facilitator gives (UNKNOWN_REASON), without a transaction: a facilitator of another
 *   make, or a newer one, that failed after it sent.
 * - `unknown-unsent`: sends nothing and answers the same unknown failure.
 */
export type SvmFacilitatorMode =
  'ok' | 'hang-after-send' | 'hang' | 'pending' | 'unknown-after-send' | 'unknown-unsent';

/** The failure reason of the `unknown-*` modes: in no list of x402's. */
export const UNKNOWN_REASON = 'facilitator_backend_exploded';

/**
 * An x402 facilitator over HTTP on a free loopback port, built from the official pieces: @x402/core's
 * `x402Facilitator` with @x402/svm's exact scheme, over a LocalChain (createLocalFacilitator). This
 * is the production path of X402_FACILITATOR=http, with the chain on this machine; `mode` adds the
 * faults a real facilitator has. It counts every call, so a test can tell that nothing was settled.
 */
export class SvmFacilitatorServer {
  mode: SvmFacilitatorMode = 'ok';
  /**
   * Run once, after the next send of a mode that sends and before it answers (or hangs): what the
   * world does meanwhile, e.g. transfers that bury the payment in an account's history.
   */
  afterSend: (() => Promise<void>) | undefined;
  /**
   * Run once, when the next /settle arrives and before the facilitator looks at it (in every
   * mode): what happens between /verify and /settle, e.g. the payer spending its funds elsewhere.
   */
  beforeSettle: (() => Promise<void>) | undefined;
  readonly calls: string[] = [];
  /** The wire transaction of each /settle's payment, as its payer signed it, in the order received. */
  private readonly settleRequests: string[] = [];
  url = '';
  private readonly facilitator: ReturnType<typeof createLocalFacilitator>;
  private readonly server: Server = createServer((request, response) => {
    this.handle(request, response).catch((error: unknown) =>
      sendJson(response, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });

  private constructor(readonly chain: LocalChain) {
    this.facilitator = createLocalFacilitator(chain);
  }

  static async start(chain: LocalChain): Promise<SvmFacilitatorServer> {
    const server = new SvmFacilitatorServer(chain);
    await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
    server.url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    return server;
  }

  /** How many /settle requests it received. */
  get settles(): number {
    return this.calls.filter((path) => path === '/settle').length;
  }

  /** How many /settle requests it received for `payment` (the same payment, however often sent). */
  settlesOf(payment: PaymentPayload): number {
    const transaction = transactionOf(payment);
    return this.settleRequests.filter((sent) => sent === transaction).length;
  }

  reset(): void {
    this.mode = 'ok';
    this.afterSend = undefined;
    this.beforeSettle = undefined;
    this.calls.length = 0;
    this.settleRequests.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '';
    this.calls.push(path);
    if (request.method === 'GET' && path === '/supported')
      return sendJson(response, 200, this.facilitator.getSupported());
    if (request.method !== 'POST' || (path !== '/verify' && path !== '/settle'))
      return sendJson(response, 404, { error: 'not found' });
    const body = JSON.parse(await readText(request)) as { paymentPayload: never; paymentRequirements: never };
    if (path === '/verify') {
      return sendJson(
        response,
        200,
        await this.facilitator.verify(body.paymentPayload, body.paymentRequirements),
      );
    }
    this.settleRequests.push(transactionOf(body.paymentPayload));
    const beforeSettle = this.beforeSettle;
    this.beforeSettle = undefined;
    await beforeSettle?.();
    const send = async () => {
      const settled = await this.facilitator.settle(body.paymentPayload, body.paymentRequirements);
      const afterSend = this.afterSend;
      this.afterSend = undefined;
      await afterSend?.();
      return settled;
    };
    switch (this.mode) {
      case 'hang':
        return; // the socket stays open until stop()
      case 'hang-after-send':
        await send();
        return;
      case 'pending': {
        const settled = await send();
        return sendJson(response, 200, {
          ...settled,
          success: false,
          errorReason: 'settlement_pending',
          errorMessage: 'not confirmed in time',
        });
      }
      case 'unknown-after-send': {
        const settled = await send();
        return sendJson(response, 200, {
          success: false,
          errorReason: UNKNOWN_REASON,
          transaction: '',
          network: settled.network,
          payer: settled.payer ?? '',
        });
      }
      case 'unknown-unsent':
        return sendJson(response, 200, {
          success: false,
          errorReason: UNKNOWN_REASON,
          transaction: '',
          network: this.chain.network,
          payer: '',
        });
      case 'ok':
        return sendJson(
          response,
          200,
          await this.facilitator.settle(body.paymentPayload, body.paymentRequirements),
        );
    }
  }
}

/** A local SVM with its JSON-RPC on a free loopback port: the chain as a service reads it. */
export interface LocalSvm {
  chain: LocalChain;
  rpcUrl: string;
  stop(): Promise<void>;
}

export async function startLocalSvm(options: LocalChainOptions = {}): Promise<LocalSvm> {
  const chain = await LocalChain.open(options);
  const rpc = await startLocalRpc(chain, { port: 0 });
  return {
    chain,
    rpcUrl: rpc.url,
    stop: async () => {
      await rpc.close();
      await chain.close();
    },
  };
}

/**
 * An x402 `exact` payment on `chain` signed by `from` with the official client (the SDK's
 * SolanaPayer): `amount` atomic units of the chain's mint to `payTo`'s token account, with
 * `memo`, its fee payer the chain's. Signed only: nothing is sent.
 */
export async function signTransfer(
  chain: LocalChain,
  rpcUrl: string,
  from: AgentKey,
  payTo: string,
  { amount, memo }: { amount: bigint; memo: string },
): Promise<PaymentPayload> {
  const payer = await SolanaPayer.create(from, { rpcUrl, networks: [chain.network] });
  return decodePaymentHeader(await payer.sign(transferOffer(chain, payTo, amount, memo)));
}

/** The base64 wire transaction an `exact` payment carries (the payer's signature in place). */
function transactionOf(payment: PaymentPayload): string {
  return (payment.payload as { transaction: string }).transaction;
}

/** Sends a signed payment as a facilitator does (its fee payer's signature added): its transaction id. */
export async function land(chain: LocalChain, payment: PaymentPayload): Promise<string> {
  const transaction = transactionOf(payment);
  const [feePayer] = chain.signer.getAddresses();
  if (!feePayer) throw new Error('the local chain has no fee payer');
  const signed = await chain.signer.signTransaction(transaction, feePayer, chain.network);
  return chain.signer.sendTransaction(signed, chain.network);
}

/**
 * `run` again, from the start, when a blockhash it signed with expired before it landed: a test
 * chain's may live only 400 ms (so that tests can see one expire), and a loaded machine can take
 * longer than that between the signature and the landing.
 */
export async function onFreshBlockhash<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= 10 || !(error instanceof Error) || !/Blockhash not found/.test(error.message))
        throw error;
    }
  }
}

/**
 * `count` transfers of `amount` each (one unit by default) from `from`'s token account to
 * `payTo`'s, each signed by `from` and landed at once with the chain paying the fee, as any
 * facilitator would for anyone: history an account gains without its owner's say. The memos are
 * `memo` and a number, so each transaction is another (and each lists `memo` among its memos).
 * One whose blockhash expired before it landed is signed again.
 */
export async function pushTransfers(
  chain: LocalChain,
  rpcUrl: string,
  from: AgentKey,
  payTo: string,
  { count, memo, amount = 1n }: { count: number; memo: string; amount?: bigint },
): Promise<string[]> {
  const payer = await SolanaPayer.create(from, { rpcUrl, networks: [chain.network] });
  const sent: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const offer = transferOffer(chain, payTo, amount, `${memo} #${i}`);
    sent.push(await onFreshBlockhash(async () => land(chain, decodePaymentHeader(await payer.sign(offer)))));
  }
  return sent;
}

function transferOffer(chain: LocalChain, payTo: string, amount: bigint, memo: string) {
  return {
    x402Version: 2 as const,
    resource: { url: 'https://townhall.test/transfers' },
    accepts: [
      {
        scheme: 'exact',
        network: chain.network,
        amount: amount.toString(),
        asset: chain.mint,
        payTo,
        maxTimeoutSeconds: 60,
        extra: { feePayer: chain.feePayer, memo },
      },
    ],
  };
}
