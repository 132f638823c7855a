import { generateAgentKey, signMessage, signRequest, type AgentKey } from '@townhall/auth';
import {
  ledgerAuthorizationMessage,
  newLedgerNonce,
  signLedgerPayment,
  toPaymentRequirementsV2,
  type LedgerPayload,
  type PaymentRequirements,
} from '@townhall/x402';
import fc from 'fast-check';
import {
  createFixtures,
  solanaPaymentKey,
  type FixtureOptions,
  type FuzzFixtures,
  type SignerRole,
  type SolanaPayment,
} from './fixtures.js';
import { messageSignatureHeaders, type HeaderList } from './message-signing.js';
import { operationsOf, type FuzzOperation, type OpenApiDoc } from './openapi-operations.js';
import { serializeJson } from './raw-json.js';
import { fixtureHint, planRequest, type PaymentHeader, type RequestPlan } from './request-plan.js';
import { Wire, WireError, type WireRequest, type WireResponse } from './wire.js';

export interface FuzzOptions {
  /** Where the gateway listens, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  seed: number;
  /** At most this many fuzzed requests (read-backs and replays not counted). */
  requests: number;
  /** And at most this long (fixtures not counted). */
  timeMs: number;
  /** Whether the process(es) under test still run; checked after every request. */
  isAlive: () => boolean;
  /** Only the requests with these indices are sent (the others are still generated, to keep the sequence). */
  only?: ReadonlySet<number>;
  /** Only operations whose `METHOD /path/template` matches. */
  operationFilter?: RegExp;
  log?: (line: string) => void;
  /** How the server takes money, when not on its ledger (fixtures are paid and signed that way). */
  fixtures?: FixtureOptions;
}

export type FailureKind =
  | 'server-error'
  | 'not-problem-json'
  | 'problem-status-mismatch'
  | 'success-not-json'
  | 'state-changed'
  | 'replay-not-refused'
  /** A hostile RFC 9421 signature (`refused` in hostile-values.ts) was accepted on a signed route. */
  | 'forged-signature-accepted'
  /** A valid-ish request signed by signMessageRequest was refused as not authentic (auth.*). */
  | 'signature-not-verified'
  /** 401 auth.components_missing without the Accept-Signature header that says what to cover. */
  | 'accept-signature-missing'
  | 'timeout'
  | 'connection-lost'
  | 'process-died'
  | 'read-back-failed';

export interface SentRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: string;
}

export interface FuzzFailure {
  index: number;
  kind: FailureKind;
  /** `METHOD /path/{template}` */
  operation: string;
  status: number;
  code: string | undefined;
  labels: string[];
  signer: SignerRole;
  request: SentRequest;
  response: { status: number; contentType: string; body: string } | undefined;
  detail: string;
}

export interface FailureClass {
  key: string;
  count: number;
  /** The smallest request of the class. */
  example: FuzzFailure;
}

export interface FuzzReport {
  seed: number;
  audience: string;
  sent: number;
  durationMs: number;
  operations: number;
  /** Requests per operation. */
  coverage: Map<string, number>;
  /** Responses per status. */
  statuses: Map<number, number>;
  failures: FuzzFailure[];
  classes: FailureClass[];
  /** Refused writes whose resources were read back before and after. */
  stateChecks: number;
  /** Where the time went, in ms. */
  timing: { requests: number; readBacks: number; settling: number; signing: number };
}

interface Snapshot {
  at: number;
  text: string;
}

const CHUNK = 100;
const TRUNCATE = 400;
const SETTLE_MS = 50;
/** Fields of a read-back that other services fill in asynchronously (see README). */
const ASYNC_FIELDS = new Set(['counts']);
/** The refusals that say a signature is not authentic (not a rate limit, not a replay). */
const NOT_AUTHENTIC = new Set([
  'auth.malformed',
  'auth.timestamp_out_of_window',
  'auth.agent_invalid',
  'auth.signature_invalid',
  'auth.components_missing',
  'auth.key_unknown',
]);
/**
 * A page's items in id order: a list's order may follow an asynchronous field too (the event list
 * puts events someone holds a ticket in first, from `counts`), so a read-back compares what is
 * listed, not where.
 */
function byId(items: unknown[]): unknown[] {
  const idOf = (item: unknown) =>
    typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string'
      ? (item as { id: string }).id
      : '';
  return [...items].sort((a, b) => idOf(a).localeCompare(idOf(b)));
}

/** Fields that differ between two answers to the same read. */
const PER_RESPONSE_FIELDS = new Set(['requestId']);

function truncate(text: string, max = TRUNCATE): string {
  return text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text;
}

/** The text as sent, with control characters, lone surrogates and invalid UTF-8 made visible. */
function printable(text: string): string {
  return truncate(text).replace(
    // Control characters are exactly what this makes visible.
    // eslint-disable-next-line no-control-regex
    /[\u0000-\u001f\u007f-\u009f\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function problemOf(response: WireResponse): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(response.body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function normalised(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), (key, value: unknown) =>
      ASYNC_FIELDS.has(key) || PER_RESPONSE_FIELDS.has(key)
        ? undefined
        : key === 'items' && Array.isArray(value)
          ? byId(value)
          : value,
    );
  } catch {
    return body;
  }
}

/** The class a failure is counted in: route + status + cause (what was hostile, without values). */
export function classKey(failure: FuzzFailure): string {
  const cause =
    failure.labels.map((label) => label.replace(/\.\d+(?=[.=])/g, '.*')).join(' + ') || 'valid-ish request';
  return `${failure.operation} -> ${failure.status || failure.kind} ${failure.code ?? ''} [${failure.kind}] ${cause}`;
}

function sizeOf(failure: FuzzFailure): number {
  return failure.request.target.length + failure.request.body.length + failure.request.headers.join().length;
}

export class Fuzzer {
  private readonly wire: Wire;
  private readonly cursors: string[] = [];
  private readonly snapshots = new Map<string, Snapshot>();
  private lastWriteAt = 0;
  private readonly timing = { requests: 0, readBacks: 0, settling: 0, signing: 0 };
  private stateChecks = 0;

  private constructor(
    private readonly options: FuzzOptions,
    private readonly audience: string,
    private readonly fixtures: FuzzFixtures,
    private readonly operations: FuzzOperation[],
  ) {
    this.wire = new Wire(options.baseUrl);
  }

  /** Reads the OpenAPI document and creates the fixtures. */
  static async prepare(options: FuzzOptions): Promise<Fuzzer> {
    const response = await fetch(`${options.baseUrl}/openapi.json`);
    if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
    const doc = (await response.json()) as OpenApiDoc;
    // The audience of every signature is the server's PUBLIC_BASE_URL, which the document names.
    const audience = doc.servers?.[0]?.url ?? new URL(options.baseUrl).origin;
    const operations = operationsOf(doc).filter(
      (op) => !options.operationFilter || options.operationFilter.test(`${op.method} ${op.path}`),
    );
    if (operations.length === 0) throw new Error('no operation to fuzz');
    const fixtures = await createFixtures(options.baseUrl, audience, options.fixtures);
    return new Fuzzer(options, audience, fixtures, operations);
  }

  async run(): Promise<FuzzReport> {
    const { options } = this;
    const started = Date.now();
    const deadline = started + options.timeMs;
    const coverage = new Map<string, number>();
    const statuses = new Map<number, number>();
    const failures: FuzzFailure[] = [];
    const context = { fixtures: this.fixtures, hint: fixtureHint(this.fixtures) };
    const planArbitrary = fc
      .integer({ min: 0, max: this.operations.length - 1 })
      .chain((index) => fc.gen().map((g) => planRequest(g, this.operations[index]!, context)));
    let sent = 0;
    try {
      outer: for (let chunk = 0; chunk * CHUNK < options.requests; chunk++) {
        const plans = fc.sample(planArbitrary, { seed: (options.seed + chunk * 7919) | 0, numRuns: CHUNK });
        for (const [offset, plan] of plans.entries()) {
          const index = chunk * CHUNK + offset;
          if (index >= options.requests || Date.now() > deadline) break outer;
          if (options.only && !options.only.has(index)) continue;
          const operation = `${plan.operation.method} ${plan.operation.path}`;
          coverage.set(operation, (coverage.get(operation) ?? 0) + 1);
          const found = await this.exercise(index, plan, statuses);
          sent++;
          failures.push(...found);
          if (!options.isAlive()) {
            failures.push({
              ...(found[0] ?? this.blank(index, plan)),
              kind: 'process-died',
              detail: 'a process under test exited',
            });
            break outer;
          }
        }
      }
    } finally {
      this.wire.close();
    }
    const classes = new Map<string, FailureClass>();
    for (const failure of failures) {
      const key = classKey(failure);
      const known = classes.get(key);
      if (!known) classes.set(key, { key, count: 1, example: failure });
      else {
        known.count++;
        if (sizeOf(failure) < sizeOf(known.example)) known.example = failure;
      }
    }
    return {
      seed: options.seed,
      audience: this.audience,
      sent,
      durationMs: Date.now() - started,
      operations: this.operations.length,
      coverage,
      statuses,
      failures,
      classes: [...classes.values()].sort((a, b) => a.key.localeCompare(b.key)),
      timing: { ...this.timing },
      stateChecks: this.stateChecks,
    };
  }

  private blank(index: number, plan: RequestPlan): FuzzFailure {
    return {
      index,
      kind: 'process-died',
      operation: `${plan.operation.method} ${plan.operation.path}`,
      status: 0,
      code: undefined,
      labels: plan.labels,
      signer: plan.signer,
      request: { method: plan.method, target: plan.path, headers: [], body: '' },
      response: undefined,
      detail: '',
    };
  }

  private keyOf(role: SignerRole): AgentKey {
    return role === 'fresh' ? generateAgentKey() : this.fixtures.keys[role];
  }

  /** Sends one plan (twice for a replay), checks every answer; returns what failed. */
  private async exercise(
    index: number,
    plan: RequestPlan,
    statuses: Map<number, number>,
  ): Promise<FuzzFailure[]> {
    const signing = performance.now();
    const key = this.keyOf(plan.signer);
    const wire = this.materialise(plan, key);
    this.timing.signing += performance.now() - signing;
    const failures: FuzzFailure[] = [];
    const failure = (kind: FailureKind, response: WireResponse | undefined, detail: string): FuzzFailure => {
      const problem = response ? problemOf(response) : undefined;
      return {
        index,
        kind,
        operation: `${plan.operation.method} ${plan.operation.path}`,
        status: response?.status ?? 0,
        code: typeof problem?.['code'] === 'string' ? problem['code'] : undefined,
        labels: plan.labels,
        signer: plan.signer,
        request: {
          method: wire.method,
          target: printable(wire.target),
          headers: wire.headers.map(([name, value]) => [name, printable(truncate(value, 200))]),
          body: wire.body ? printable(Buffer.from(wire.body).toString('utf8')) : '',
        },
        response: response && {
          status: response.status,
          contentType: response.contentType,
          body: truncate(response.body),
        },
        detail,
      };
    };

    const checked = plan.readBacks.length > 0;
    const before = checked ? await this.readBack(plan, failures, failure) : undefined;
    const response = await this.send(wire, failures, failure);
    if (!response) return failures;
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    failures.push(...this.checkResponse(wire.method, response, failure));
    failures.push(...this.checkSignatureExpectation(plan, response, failure));
    if (plan.method !== 'GET' && response.status < 400) this.wrote();
    if (response.status < 300) this.harvest(response);
    if (before && response.status >= 400) {
      failures.push(...(await this.compare(plan, before, failures, failure, response, 'refused')));
    }

    const replay =
      plan.auth.kind === 'replay' ||
      (plan.auth.kind === 'message' && plan.auth.message.tamper?.replay === true);
    if (replay && plan.operation.signed) {
      const first = problemOf(response);
      const code = typeof first?.['code'] === 'string' ? first['code'] : '';
      const claimed =
        response.status < 400 ||
        (response.status !== 413 &&
          !/^(auth|route)\./.test(code) &&
          response.contentType.includes('problem+json'));
      if (claimed) {
        const again = before ? await this.readBack(plan, failures, failure) : undefined;
        const second = await this.send(wire, failures, failure);
        if (second) {
          failures.push(...this.checkResponse(wire.method, second, failure));
          const secondCode = problemOf(second)?.['code'];
          if (second.status !== 401 || secondCode !== 'auth.nonce_replayed') {
            failures.push(
              failure(
                'replay-not-refused',
                second,
                `the same signed request again answered ${second.status} ${String(secondCode)}, not 401 auth.nonce_replayed`,
              ),
            );
            if (second.status < 400) this.wrote();
          } else if (again) {
            failures.push(...(await this.compare(plan, again, failures, failure, second, 'replayed')));
          }
        }
      }
    }
    return failures;
  }

  private wrote(): void {
    this.lastWriteAt = Date.now();
    this.snapshots.clear();
  }

  private checkResponse(
    method: string,
    response: WireResponse,
    failure: (kind: FailureKind, response: WireResponse | undefined, detail: string) => FuzzFailure,
  ): FuzzFailure[] {
    if (response.status >= 500) return [failure('server-error', response, `answered ${response.status}`)];
    if (response.status >= 400) {
      if (!response.contentType.startsWith('application/problem+json')) {
        return [
          failure('not-problem-json', response, `an error as ${response.contentType || 'no content type'}`),
        ];
      }
      // A HEAD answer has the headers of the GET and no body (RFC 9110 section 9.3.2).
      if (method === 'HEAD') return [];
      const problem = problemOf(response);
      if (typeof problem?.['code'] !== 'string' || problem['status'] !== response.status) {
        return [
          failure(
            'problem-status-mismatch',
            response,
            `problem code ${String(problem?.['code'])}, status ${String(problem?.['status'])}`,
          ),
        ];
      }
      return [];
    }
    if (
      method !== 'HEAD' &&
      /json/.test(response.contentType) &&
      response.body.length > 0 &&
      problemOf(response) === undefined
    ) {
      try {
        JSON.parse(response.body);
      } catch {
        return [failure('success-not-json', response, 'a JSON success whose body does not parse')];
      }
    }
    return [];
  }

  /** What an RFC 9421-signed plan expects of its signature (MessagePlan `expect`). */
  private checkSignatureExpectation(
    plan: RequestPlan,
    response: WireResponse,
    failure: (kind: FailureKind, response: WireResponse | undefined, detail: string) => FuzzFailure,
  ): FuzzFailure[] {
    const code = problemOf(response)?.['code'];
    const found: FuzzFailure[] = [];
    if (
      response.status === 401 &&
      code === 'auth.components_missing' &&
      plan.method !== 'HEAD' &&
      response.headers['accept-signature'] === undefined
    ) {
      found.push(
        failure(
          'accept-signature-missing',
          response,
          'a 401 auth.components_missing without Accept-Signature',
        ),
      );
    }
    if (plan.auth.kind !== 'message') return found;
    const { expect } = plan.auth.message;
    if (expect === 'refused' && plan.operation.signed && response.status < 400) {
      found.push(
        failure(
          'forged-signature-accepted',
          response,
          `a hostile RFC 9421 signature was accepted (${response.status})`,
        ),
      );
    }
    if (
      expect === 'verified' &&
      response.status === 401 &&
      typeof code === 'string' &&
      NOT_AUTHENTIC.has(code)
    ) {
      found.push(
        failure(
          'signature-not-verified',
          response,
          `a request signed by signMessageRequest was refused: ${code}`,
        ),
      );
    }
    return found;
  }

  private harvest(response: WireResponse): void {
    const next = problemOf(response)?.['nextCursor'];
    if (typeof next === 'string' && !this.cursors.includes(next)) this.cursors.push(next);
  }

  private async send(
    wire: WireRequest,
    failures: FuzzFailure[],
    failure: (kind: FailureKind, response: WireResponse | undefined, detail: string) => FuzzFailure,
  ): Promise<WireResponse | undefined> {
    const started = performance.now();
    try {
      return await this.wire.send(wire);
    } catch (error) {
      if (error instanceof WireError && error.kind === 'refused-by-client') return undefined;
      const kind: FailureKind =
        error instanceof WireError && error.kind === 'timeout' ? 'timeout' : 'connection-lost';
      failures.push(failure(kind, undefined, error instanceof Error ? error.message : String(error)));
      return undefined;
    } finally {
      this.timing.requests += performance.now() - started;
    }
  }

  /** The read-backs of a plan, as one text; cached until the next successful write. */
  private async readBack(
    plan: RequestPlan,
    failures: FuzzFailure[],
    failure: (kind: FailureKind, response: WireResponse | undefined, detail: string) => FuzzFailure,
  ): Promise<string | undefined> {
    const wait = this.lastWriteAt + SETTLE_MS - Date.now();
    if (wait > 0) {
      this.timing.settling += wait;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    const started = performance.now();
    const parts: string[] = [];
    for (const read of plan.readBacks) {
      const cacheKey = `${read.signer ?? '-'} ${read.target}`;
      const cached = this.snapshots.get(cacheKey);
      if (cached && Date.now() - cached.at < 3_000) {
        parts.push(`${read.what}: ${cached.text}`);
        continue;
      }
      const headers: Array<[string, string]> = [['accept', 'application/json']];
      if (read.signer) {
        const signed = signRequest({
          key: this.keyOf(read.signer),
          audience: this.audience,
          method: 'GET',
          target: read.target,
        });
        headers.push(['authorization', signed.authorization], ['x-nonce', signed.nonce]);
      }
      let response: WireResponse;
      try {
        response = await this.wire.send({ method: 'GET', target: read.target, headers });
      } catch (error) {
        failures.push(failure('read-back-failed', undefined, `GET ${read.target}: ${String(error)}`));
        return undefined;
      }
      if (response.status >= 500) {
        failures.push(
          failure('read-back-failed', response, `GET ${read.target} answered ${response.status}`),
        );
        return undefined;
      }
      const text = `${response.status} ${normalised(response.body)}`;
      this.snapshots.set(cacheKey, { at: Date.now(), text });
      parts.push(`${read.what}: ${text}`);
    }
    this.timing.readBacks += performance.now() - started;
    return parts.join('\n');
  }

  private async compare(
    plan: RequestPlan,
    before: string,
    failures: FuzzFailure[],
    failure: (kind: FailureKind, response: WireResponse | undefined, detail: string) => FuzzFailure,
    response: WireResponse,
    how: string,
  ): Promise<FuzzFailure[]> {
    this.snapshots.clear();
    const after = await this.readBack(plan, failures, failure);
    if (after === undefined) return [];
    this.stateChecks++;
    if (after === before) return [];
    const beforeLines = before.split('\n');
    const changed = after
      .split('\n')
      .filter((line, i) => line !== beforeLines[i])
      .map((line) => {
        const was = beforeLines.find((candidate) => candidate.split(':')[0] === line.split(':')[0]) ?? '';
        return `before ${truncate(was, 600)}\n      after  ${truncate(line, 600)}`;
      });
    this.snapshots.clear();
    return [
      failure(
        'state-changed',
        response,
        `a ${how} write (${response.status}) changed what it names:\n      ${changed.join('\n      ')}`,
      ),
    ];
  }

  /** The plan as bytes on the wire: signatures and payments are made now, for now. */
  private materialise(plan: RequestPlan, key: AgentKey): WireRequest {
    let query = plan.query.replace(/(^|&)cursor=\{\{cursor:(\d+)\}\}/g, (_, lead: string, n: string) =>
      this.cursors.length === 0 ? '' : `${lead}cursor=${this.cursors[Number(n) % this.cursors.length]}`,
    );
    query = query.replace(/^&/, '');
    const target = `${plan.path}${query ? `?${query}` : ''}`;
    let body: Uint8Array | undefined;
    switch (plan.body.kind) {
      case 'json':
        body = Buffer.from(serializeJson(plan.body.value), 'utf8');
        break;
      case 'text':
        body = Buffer.from(plan.body.text, 'utf8');
        break;
      case 'bytes':
        body = plan.body.bytes;
        break;
      case 'none':
        body = undefined;
    }
    const headers: Array<[string, string]> = [...plan.headers];
    if (body !== undefined && plan.contentType !== null) headers.push(['content-type', plan.contentType]);
    headers.push(...this.authHeaders(plan, key, target, body));
    headers.push(...this.paymentHeaders(plan, key));
    return { method: plan.method, target, headers, ...(body === undefined ? {} : { body }) };
  }

  private authHeaders(
    plan: RequestPlan,
    key: AgentKey,
    target: string,
    body: Uint8Array | undefined,
  ): Array<[string, string]> {
    const { auth } = plan;
    if (auth.kind === 'none') return [];
    const sign = (
      overrides: {
        audience?: string;
        target?: string;
        body?: Uint8Array;
        timestamp?: string;
        nonce?: string;
      } = {},
    ) =>
      signRequest({
        key,
        audience: overrides.audience ?? this.audience,
        method: plan.method,
        target: overrides.target ?? target,
        ...((overrides.body ?? body) === undefined ? {} : { body: overrides.body ?? body }),
        ...(overrides.timestamp === undefined ? {} : { timestamp: overrides.timestamp }),
        ...(overrides.nonce === undefined ? {} : { nonce: overrides.nonce }),
      });
    const headersOf = (signed: { authorization: string; nonce: string }): Array<[string, string]> => [
      ['authorization', signed.authorization],
      ['x-nonce', signed.nonce],
    ];
    switch (auth.kind) {
      case 'valid':
      case 'replay':
        return headersOf(sign());
      case 'bad-signature': {
        const signed = sign();
        const at = signed.authorization.indexOf(':') + 10;
        const c = signed.authorization[at];
        return headersOf({
          ...signed,
          authorization: `${signed.authorization.slice(0, at)}${c === '2' ? '3' : '2'}${signed.authorization.slice(at + 1)}`,
        });
      }
      case 'wrong-audience':
        return headersOf(sign({ audience: 'https://api.example.com' }));
      case 'stale':
        return headersOf(sign({ timestamp: new Date(Date.now() - 600_000).toISOString() }));
      case 'future':
        return headersOf(sign({ timestamp: new Date(Date.now() + 600_000).toISOString() }));
      case 'body-mismatch':
        return headersOf(sign({ body: Buffer.from(`${body ? Buffer.from(body).toString('utf8') : ''} `) }));
      case 'query-mismatch':
        return headersOf(sign({ target: `${target}${target.includes('?') ? '&' : '?'}signed=1` }));
      case 'duplicate-authorization': {
        const first = sign();
        return [...headersOf(first), ['authorization', sign({ nonce: first.nonce }).authorization]];
      }
      case 'duplicate-nonce': {
        const signed = sign();
        return [...headersOf(signed), ['x-nonce', signed.nonce]];
      }
      case 'authorization':
        return [
          ['authorization', auth.value],
          ['x-nonce', sign().nonce],
        ];
      case 'nonce':
        return headersOf(sign({ nonce: auth.value }));
      case 'timestamp':
        return headersOf(sign({ timestamp: auth.value }));
      case 'message':
        return messageSignatureHeaders(
          auth.message,
          { method: plan.method, origin: this.audience, target },
          {
            key,
            nowSeconds: Math.floor(Date.now() / 1000),
            body,
            otherAgentId: Object.values(this.fixtures.keys).find((other) => other.agentId !== key.agentId)!
              .agentId,
            serviceAuth: (): HeaderList => headersOf(sign()),
          },
        );
    }
  }

  private paymentHeaders(plan: RequestPlan, key: AgentKey): Array<[string, string]> {
    const { payment } = plan;
    if (payment.kind === 'none') return [];
    if (payment.kind === 'raw') return [[payment.header, payment.value]];
    const offers = this.fixtures.payments.get(payment.eventId) ?? [];
    const requirements = offers.find((offer) => offer.extra.tierId === payment.tierId) ?? offers[0];
    if (!requirements) return [];
    if (requirements.network.startsWith('solana:')) return this.solanaPaymentHeaders(plan, key, requirements);
    const encode = (value: unknown) => Buffer.from(serializeJson(value), 'utf8').toString('base64');
    const wireOf = (signed: ReturnType<typeof signLedgerPayment>, version: 1 | 2) =>
      version === 1
        ? { x402Version: 1, scheme: signed.scheme, network: signed.network, payload: signed.payload }
        : { x402Version: 2, accepted: toPaymentRequirementsV2(requirements), payload: signed.payload };
    const signed = signLedgerPayment(key, requirements, { nonce: newLedgerNonce() });
    if (payment.tamper) {
      const ledger = signed.payload as LedgerPayload;
      const authorization: Record<string, unknown> = { ...ledger.authorization };
      const value = this.tamperValue(payment.tamper.value, key, requirements, offers);
      if (value === undefined) delete authorization[payment.tamper.field];
      else authorization[payment.tamper.field] = value;
      let signature = ledger.signature;
      if (payment.tamper.resign) {
        try {
          signature = signMessage(
            key,
            ledgerAuthorizationMessage(
              requirements.network,
              authorization as unknown as LedgerPayload['authorization'],
            ),
          );
        } catch {
          // A field with a line break cannot be signed: it goes with the old signature.
        }
      }
      signed.payload = { signature, authorization } as unknown as LedgerPayload;
    }
    const headers: Array<[PaymentHeader, string]> = [];
    if (payment.header === 'both') {
      const other = offers.find((offer) => offer !== requirements) ?? requirements;
      headers.push(['x-payment', encode(wireOf(signed, 1))]);
      headers.push(['payment-signature', encode(wireOf(signLedgerPayment(key, other), 2))]);
    } else {
      headers.push([payment.header, encode(wireOf(signed, payment.version))]);
    }
    return headers;
  }

  /**
   * A Solana payment of the fixtures: the signer's own for the tier (a real payment), or, tampered,
   * the same with one byte of its transaction changed (where it lands depends on the hostile
   * value's label), or another agent's for a signer that has none (`payer_mismatch`); `both`
   * sends two different ones.
   */
  private solanaPaymentHeaders(
    plan: RequestPlan,
    key: AgentKey,
    requirements: PaymentRequirements,
  ): Array<[PaymentHeader, string]> {
    const { payment } = plan;
    if (payment.kind !== 'signed') return [];
    const signed = this.fixtures.solanaPayments ?? new Map<string, SolanaPayment>();
    const of = (agentId: string) =>
      signed.get(solanaPaymentKey(agentId, payment.eventId, requirements.extra.tierId));
    const own = of(key.agentId) ?? of(this.fixtures.keys.attendee.agentId);
    if (!own) return [];
    const encode = (value: unknown) => Buffer.from(serializeJson(value), 'utf8').toString('base64');
    let wire: SolanaPayment = own;
    if (payment.tamper) {
      const bytes = Buffer.from(own.payload.transaction, 'base64');
      const at =
        [...`${payment.tamper.field}${String(payment.tamper.value)}`].reduce(
          (h, c) => (h * 31 + c.charCodeAt(0)) >>> 0,
          7,
        ) % bytes.length;
      bytes[at] = bytes[at]! ^ 0x5a;
      wire = { ...own, payload: { transaction: bytes.toString('base64') } };
    }
    if (payment.header === 'both') {
      const other = of(this.fixtures.keys.stranger.agentId) ?? own;
      return [
        ['x-payment', encode(wire)],
        ['payment-signature', encode(other === own ? { ...own, resource: 'other' } : other)],
      ];
    }
    const v1 = { x402Version: 1, scheme: 'exact', network: requirements.network, payload: wire.payload };
    return [[payment.header, encode(payment.version === 1 ? v1 : wire)]];
  }

  private tamperValue(
    value: unknown,
    key: AgentKey,
    requirements: PaymentRequirements,
    offers: PaymentRequirements[],
  ): unknown {
    if (value === '$caller') return key.agentId;
    if (value === '$host') return this.fixtures.keys.host.agentId;
    if (value === '$resource-other-tier')
      return (offers.find((offer) => offer !== requirements) ?? requirements).resource + '&x=1';
    return value;
  }
}

/** The report as text: the seed first, then every failure class with its smallest reproduction. */
export function formatFuzzReport(report: FuzzReport, options: { everyFailure?: boolean } = {}): string {
  const lines = [
    `fuzz: seed ${report.seed}, ${report.sent} requests to ${report.operations} operations in ${(report.durationMs / 1000).toFixed(1)} s`,
    `  statuses: ${[...report.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}x${count}`)
      .join(' ')}`,
    `  time: ${Object.entries(report.timing)
      .map(([what, ms]) => `${what} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')}`,
    `  refused writes read back before and after: ${report.stateChecks}`,
    `  failures: ${report.failures.length} in ${report.classes.length} classes (route + status + cause)`,
  ];
  const byCode = new Map<string, number>();
  for (const failure of report.failures) {
    const key = `${failure.operation} -> ${failure.status || failure.kind} ${failure.code ?? `[${failure.kind}]`}`;
    byCode.set(key, (byCode.get(key) ?? 0) + 1);
  }
  if (byCode.size > 0) {
    lines.push('  by route + status + code:');
    for (const [key, count] of [...byCode.entries()].sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`    ${key}  (${count}x)`);
  }
  for (const failureClass of report.classes) {
    const { example } = failureClass;
    lines.push(
      '',
      `- ${failureClass.key}  (${failureClass.count}x)`,
      `  reproduce: FUZZ_SEED=${report.seed} FUZZ_ONLY=${example.index} (request #${example.index}, signed by ${example.signer})`,
      `  > ${example.request.method} ${example.request.target}`,
      ...example.request.headers.map(([name, value]) => `  > ${name}: ${value}`),
      ...(example.request.body ? [`  > body: ${example.request.body}`] : []),
      example.response
        ? `  < ${example.response.status} ${example.response.contentType} ${example.response.body}`
        : '  < (no answer)',
      `  ${example.detail}`,
    );
  }
  if (options.everyFailure && report.failures.length > 0) {
    lines.push('', 'every failing request:');
    for (const failure of report.failures) {
      lines.push(
        `  #${failure.index} ${failure.request.method} ${truncate(failure.request.target, 160)} body=${truncate(failure.request.body, 160)} -> ${failure.status} ${failure.code ?? failure.response?.contentType ?? ''} [${failure.kind}] ${failure.labels.join(' + ')}`,
      );
    }
  }
  return lines.join('\n');
}
