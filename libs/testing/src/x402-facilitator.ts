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
 * How the facilitator answers: `ok`; `refuse` at /verify; `refuse-settle`; `error500`;
 * `settle-error500` (a valid /verify, then 500 at /settle); `hang` (never answers); `stall-body`
 * (headers and half a body); `settle-late` (settles at once but answers /settle only after
 * `lateMs`, when the client has stopped waiting).
 */
export type FacilitatorMode =
  'ok' | 'refuse' | 'refuse-settle' | 'error500' | 'settle-error500' | 'hang' | 'stall-body' | 'settle-late';

export class TestFacilitator {
  mode: FacilitatorMode = 'ok';
  /** How long `settle-late` waits before it answers. */
  lateMs = 3_000;
  readonly received: Array<{ path: string; body: FacilitatorRequest }> = [];
  /**
   * The payments it settled (by their canonical JSON), each once, with its transaction. Like a
   * chain, settling the same payment again settles nothing more: /settle answers it with the
   * same success, whatever the mode (the idempotent settle docs/protocol/payments.md asks for).
   */
  readonly settled = new Map<string, string>();

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
    this.settled.clear();
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
    const { payer } = this.answers;
    const payment = canonicalJson(parsed.data.paymentPayload);
    const already = this.settled.get(payment);
    if (path === '/settle' && already !== undefined)
      return sendJson(response, 200, { success: true, transaction: already, network, payer });
    const transaction = `${this.answers.transaction}${this.settled.size === 0 ? '' : `-${this.settled.size}`}`;
    switch (this.mode) {
      case 'hang':
        return; // never answers; the client's timeout must end it
      case 'stall-body':
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"success":tr');
        return; // headers and half a body, then silence
      case 'settle-error500':
        if (path === '/verify') return sendJson(response, 200, { isValid: true, payer });
        response.writeHead(500, { 'content-type': 'text/plain' }).end('facilitator exploded');
        return;
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
      case 'refuse-settle':
        if (path === '/verify') return sendJson(response, 200, { isValid: true, payer });
        return sendJson(response, 200, {
          success: false,
          errorReason: 'transaction_failed',
          transaction: '',
          network,
          payer,
        });
      case 'settle-late':
        if (path === '/verify') return sendJson(response, 200, { isValid: true, payer });
        this.settled.set(payment, transaction);
        await new Promise((resolve) => setTimeout(resolve, this.lateMs));
        return sendJson(response, 200, { success: true, transaction, network, payer });
      case 'ok':
        if (path === '/verify') return sendJson(response, 200, { isValid: true, payer });
        this.settled.set(payment, transaction);
        return sendJson(response, 200, { success: true, transaction, network, payer });
    }
  }
}

/** JSON with every object's keys sorted: one spelling per value, whoever serialised it. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
