// `@townhall/testing/solana`: a separate entry, so that tests which do not pay on Solana do not load
// LiteSVM (a native module) with the rest of @townhall/testing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readText, sendJson } from './json-http.js';
import type { AddressInfo } from 'node:net';
import { createLocalFacilitator, type LocalChain } from '@townhall/solana-local';

/**
 * How the facilitator answers /settle (it always verifies and answers /supported as x402 does):
 * - `ok`: @x402/svm's own settle, answered.
 * - `hang-after-send`: settles (the transfer lands on the chain) and never answers, as a
 *   facilitator that died or stalled after sending.
 * - `hang`: never sends and never answers: the payment can only expire with its blockhash.
 * - `pending`: settles (the transfer lands) and answers `settlement_pending` with its transaction,
 *   as @x402/svm does when it could not confirm in time.
 */
export type SvmFacilitatorMode = 'ok' | 'hang-after-send' | 'hang' | 'pending';

/**
 * An x402 facilitator over HTTP on a free loopback port, built from the official pieces: @x402/core's
 * `x402Facilitator` with @x402/svm's exact scheme, over a LocalChain (createLocalFacilitator). This
 * is the production path of X402_FACILITATOR=http, with the chain on this machine; `mode` adds the
 * faults a real facilitator has. It counts every call, so a test can tell that nothing was settled.
 */
export class SvmFacilitatorServer {
  mode: SvmFacilitatorMode = 'ok';
  readonly calls: string[] = [];
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

  reset(): void {
    this.mode = 'ok';
    this.calls.length = 0;
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
    switch (this.mode) {
      case 'hang':
        return; // the socket stays open until stop()
      case 'hang-after-send':
        await this.facilitator.settle(body.paymentPayload, body.paymentRequirements);
        return;
      case 'pending': {
        const settled = await this.facilitator.settle(body.paymentPayload, body.paymentRequirements);
        return sendJson(response, 200, {
          ...settled,
          success: false,
          errorReason: 'settlement_pending',
          errorMessage: 'not confirmed in time',
        });
      }
      case 'ok':
        return sendJson(
          response,
          200,
          await this.facilitator.settle(body.paymentPayload, body.paymentRequirements),
        );
    }
  }
}
