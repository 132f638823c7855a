import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readText, sendJson } from './json-http.js';
import type { AddressInfo } from 'node:net';
import {
  PaymentPayloadV1Schema,
  PaymentPayloadV2Schema,
  PaymentRequirementsV1Schema,
  PaymentRequirementsV2Schema,
  z,
} from '@x402/core/schemas';

/**
 * An x402 facilitator on a free loopback port for tests (POST /verify, POST /settle, GET
 * /supported). Every request body is checked with @x402/core's own schemas: anything an x402
 * facilitator would not parse gets a 400. `mode` says how it answers.
 */
export const FacilitatorRequestSchema = z.discriminatedUnion('x402Version', [
  z
    .object({
      x402Version: z.literal(1),
      paymentPayload: PaymentPayloadV1Schema.strict(),
      paymentRequirements: PaymentRequirementsV1Schema.strict(),
    })
    .strict(),
  z
    .object({
      x402Version: z.literal(2),
      paymentPayload: PaymentPayloadV2Schema.strict(),
      paymentRequirements: PaymentRequirementsV2Schema.strict(),
    })
    .strict(),
]);
export type FacilitatorRequest = z.infer<typeof FacilitatorRequestSchema>;

/**
 * How the facilitator answers: `ok`; `refuse` (a refusal at /verify and at /settle); `error500`;
 * `hang` (never answers); `stall-body` (headers and half a body).
 */
export type FacilitatorMode = 'ok' | 'refuse' | 'error500' | 'hang' | 'stall-body';

/**
 * The x402 facilitator protocol as any facilitator speaks it, whatever its network: for the HTTP
 * facilitator client's own tests (libs/x402). Its payments are opaque and it settles nothing;
 * ticketing's tests pay on Solana through SvmFacilitatorServer (`@townhall/testing/solana`).
 */
export class TestFacilitator {
  mode: FacilitatorMode = 'ok';
  readonly received: Array<{ path: string; body: FacilitatorRequest }> = [];

  private readonly server: Server = createServer((request, response) => {
    this.handle(request, response).catch(() => response.destroy());
  });
  url = '';

  private constructor(private readonly answers: { payer: string; transaction: string; supported: unknown }) {}

  static async start(answers: {
    payer: string;
    transaction: string;
    supported?: unknown;
  }): Promise<TestFacilitator> {
    const facilitator = new TestFacilitator({ supported: { kinds: [] }, ...answers });
    await new Promise<void>((resolve) => facilitator.server.listen(0, '127.0.0.1', resolve));
    facilitator.url = `http://127.0.0.1:${(facilitator.server.address() as AddressInfo).port}`;
    return facilitator;
  }

  reset(): void {
    this.mode = 'ok';
    this.received.length = 0;
  }

  async stop(): Promise<void> {
    // Hanging requests hold their sockets open; close() alone would wait for them forever.
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) =>
      this.server.close((error) => (error ? reject(error) : resolve())),
    );
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '';
    if (request.method === 'GET' && path === '/supported')
      return sendJson(response, 200, this.answers.supported);
    if (request.method !== 'POST' || (path !== '/verify' && path !== '/settle'))
      return sendJson(response, 404, { error: 'not found' });
    let json: unknown;
    try {
      json = JSON.parse(await readText(request));
    } catch {
      return sendJson(response, 400, { error: 'not JSON' });
    }
    const parsed = FacilitatorRequestSchema.safeParse(json);
    if (!parsed.success)
      return sendJson(response, 400, { error: 'invalid request', issues: parsed.error.issues });
    this.received.push({ path, body: parsed.data });
    const network = parsed.data.paymentRequirements.network;
    const { payer, transaction } = this.answers;
    switch (this.mode) {
      case 'hang':
        return; // never answers; the client's timeout must end it
      case 'stall-body':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"success":tr');
        return; // headers and half a body, then silence
      case 'error500':
        response.writeHead(500, { 'content-type': 'text/plain' }).end('facilitator exploded');
        return;
      case 'refuse':
        if (path === '/verify')
          return sendJson(response, 200, { isValid: false, invalidReason: 'insufficient_funds', payer });
        return sendJson(response, 200, {
          success: false,
          errorReason: 'insufficient_funds',
          transaction: '',
          network,
          payer,
        });
      case 'ok':
        if (path === '/verify') return sendJson(response, 200, { isValid: true, payer });
        return sendJson(response, 200, { success: true, transaction, network, payer });
    }
  }
}
