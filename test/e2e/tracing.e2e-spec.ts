import { AgentClient, type RsvpTicketResult } from '@townhall/sdk';
import { OtlpReceiver, StandaloneProcess, Topology, waitFor, type ReceivedSpan } from '@townhall/testing';

const HOUR = 3_600_000;
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/**
 * OpenTelemetry across the distributed topology, exported to a collector of the test's own
 * (OTLP/HTTP): one trace per request, from the gateway's span through the NATS request and the
 * service's handler and its statements, the outbox relay's publish, to the consumers of its
 * domain events in other processes, which continue the trace of the write through the
 * CloudEvents `traceparent` the event carries.
 */
describe('tracing: one trace per request, across the bus', () => {
  let receiver: OtlpReceiver;
  let topology: Topology | undefined;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    topology = await Topology.start({
      env: {
        LEDGER_FAUCET: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
  });
  afterAll(async () => {
    await topology?.stop();
    await receiver?.stop();
  });

  it('follows a paid RSVP and a question from the gateway to the consumers of their events', async () => {
    const host = topology!.client();
    const buyer = topology!.client();
    const startsAt = new Date(Date.now() + 24 * HOUR);
    const event = await host.events.create({
      title: 'Traced',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
      timezone: 'UTC',
      capacity: 10,
      ticketing: { mode: 'single', price: '100', asset: 'USDC' },
    });
    await buyer.ledger.faucet('1000');
    const { ticket } = (await buyer.tickets.rsvp(event.id, { maxPrice: '100' })) as RsvpTicketResult;
    const question = await buyer.questions.submit(event.id, 'Where does the time go?');

    // The paid RSVP: the gateway's span of the request that paid, and everything under it.
    const rsvp = await traceOf('POST /events/:id/rsvp', (span) =>
      [200, 201].includes(Number(span.attributes['http.response.status_code'])),
    );
    const rsvpSpans = await settled(rsvp.traceId, 'ticketing', 'townhall.ticket.issued', [
      'events',
      'engagement',
    ]);
    expectChain(rsvpSpans, rsvp, 'ticketing', 'townhall.ticket.issued');
    const processes = new Set(rsvpSpans.map((span) => span.service));
    expect(processes.size).toBeGreaterThanOrEqual(4);
    expect([...processes]).toEqual(
      expect.arrayContaining(['auth-gateway', 'ticketing', 'events', 'engagement']),
    );
    // The purchase's statements, by the maintained Postgres instrumentation, in the same trace.
    expect(
      rsvpSpans.some(
        (span) => span.service === 'ticketing' && span.attributes['db.system.name'] === 'postgresql',
      ),
    ).toBe(true);
    // What the spans record: routes and statements' text, never a header (the signature, the
    // nonce, the payment) nor a statement's values.
    const keys = rsvpSpans.flatMap((span) => Object.keys(span.attributes));
    expect(keys.filter((key) => /header|values|parameter|body/i.test(key))).toEqual([]);
    expect(JSON.stringify(rsvpSpans.map((span) => span.attributes))).not.toMatch(
      /authorization|x-nonce|x-payment/i,
    );
    // The relay's own statements (a pass serves many writes) are no part of the request's trace.
    expect(
      rsvpSpans.filter((span) => String(span.attributes['db.query.text'] ?? '').includes('outbox')),
    ).toEqual([]);

    // The question: the gateway, engagement's handler and publish, and the events service's consumer.
    const asked = await traceOf('POST /events/:id/questions', (span) =>
      [200, 201].includes(Number(span.attributes['http.response.status_code'])),
    );
    const askedSpans = await settled(asked.traceId, 'engagement', 'townhall.question.submitted', ['events']);
    expectChain(askedSpans, asked, 'engagement', 'townhall.question.submitted');

    // The logs of a request name its trace.
    const gatewayLines = topology!.gateway.logs.filter((line) => line.includes(rsvp.traceId));
    expect(gatewayLines.length).toBeGreaterThan(0);
    expect(ticket.id).toBeDefined();
    expect(question.id).toBeDefined();
  });

  it('carries a trace the gateway does not sample to the services, which record none of it', async () => {
    // A gateway replica that samples no request of its own (ratio 0), beside services that would
    // record any trace they began themselves (the default parentbased_always_on): a service that
    // did not get the gateway's decision, flags 00, would record its handling as a trace of its own.
    // Traces of the test before (sampled through the first gateway), whatever part of them is still to come.
    const earlier = new Set(receiver.spans.map((span) => span.traceId));
    const replica = await topology!.startGateway({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const host = topology!.client();
    const startsAt = new Date(Date.now() + HOUR);
    const event = await host.events.create({
      title: 'Sampled by nobody',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
      timezone: 'UTC',
      capacity: 10,
    });
    await host.events.start(event.id);

    // Through the replica: an attendee's RSVP and three questions, none sampled.
    const attendee = new AgentClient({ baseUrl: replica.url, audience: topology!.baseUrl });
    await attendee.tickets.rsvp(event.id);
    for (let i = 0; i < 3; i += 1) await attendee.questions.submit(event.id, `Unsampled ${i}?`);
    // Then one that its caller sampled (traceparent flags 01): the replica follows the caller, so
    // this trace is recorded whole, and once it is, every process has exported what it had before.
    const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const sampledFetch: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('traceparent', `00-${traceId}-0102030405060708-01`);
      return fetch(input, { ...init, headers });
    };
    await new AgentClient({
      baseUrl: replica.url,
      audience: topology!.baseUrl,
      key: attendee.key,
      fetch: sampledFetch,
    }).questions.submit(event.id, 'Sampled by its caller?');
    const marked = await settled(traceId, 'engagement', 'townhall.question.submitted', ['events']);
    expect(marked.find((span) => span.service === 'auth-gateway' && span.kind === SERVER)?.name).toBe(
      'POST /events/:id/questions',
    );

    // Nothing else of those requests was recorded anywhere: no request span, no service's handling
    // of them, no statement, no publish or consumption of their events. (The consumers' batch spans
    // are roots of their own, linked to the events they took.)
    // The host's requests through the first gateway (sampled) are traced, their consumers' work too.
    const hosts = ['POST /events', 'POST /events/:id/start'];
    const allowed = new Set(
      receiver.spans
        .filter(
          (span) =>
            span.name.endsWith(' batch') ||
            (span.service === 'auth-gateway' && span.kind === SERVER && hosts.includes(span.name)),
        )
        .map((span) => span.traceId),
    );
    const recorded = receiver.spans.filter(
      (span) => span.traceId !== traceId && !allowed.has(span.traceId) && !earlier.has(span.traceId),
    );
    expect(recorded.map((span) => `${span.service}: ${span.name}`)).toEqual([]);
  });

  /** The gateway's SERVER span of a route, the first that `matches`. */
  async function traceOf(name: string, matches: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
    try {
      return await waitFor(`a span ${name}`, async () =>
        receiver.spans.find(
          (span) =>
            span.service === 'auth-gateway' && span.kind === SERVER && span.name === name && matches(span),
        ),
      );
    } catch (error) {
      const seen = new Set(receiver.spans.map((span) => `${span.service}: ${span.name}`));
      throw new Error(`${String(error)}; spans seen: ${[...seen].join(', ')}`, { cause: error });
    }
  }

  /**
   * The spans of a trace once every process has exported its part (each exports on its own
   * schedule): the gateway's NATS request, the service's handler and its publish of `type`, and
   * the handling of it by each of `consumers`.
   */
  async function settled(
    traceId: string,
    service: string,
    type: string,
    consumers: string[],
  ): Promise<ReceivedSpan[]> {
    return waitFor(`the whole trace ${traceId}`, async () => {
      const spans = receiver.trace(traceId);
      const has = (where: string, kind: number, name?: string) =>
        spans.some((span) => span.service === where && span.kind === kind && (!name || span.name === name));
      const complete =
        has('auth-gateway', CLIENT) &&
        has(service, SERVER) &&
        has(service, PRODUCER, `${type} publish`) &&
        consumers.every((consumer) => has(consumer, CONSUMER, `${type} process`));
      return complete ? spans : undefined;
    });
  }
});

const AUDIENCE = 'http://townhall.tracing.test';

describe('tracing: standalone prints its spans with --traces', () => {
  let standalone: StandaloneProcess | undefined;

  afterAll(async () => {
    await standalone?.stop();
  });

  it("prints each request's span, and the statements it ran under it, on standard output", async () => {
    standalone = await StandaloneProcess.start({ PUBLIC_BASE_URL: AUDIENCE }, 0, { args: ['--traces'] });
    const agent = new AgentClient({ baseUrl: standalone.baseUrl, audience: AUDIENCE });
    await agent.directory.putMe({ handle: 'traced_one', displayName: 'Traced' });
    // ConsoleSpanExporter prints each span as an object: its trace, its parent, its name.
    const printed = () =>
      standalone!.log
        .split(/\n(?=\{\n)/)
        .map((block) => ({
          traceId: /^ {2}traceId: '([0-9a-f]{32})'/m.exec(block)?.[1],
          root: /^ {2}parentSpanContext: undefined/m.test(block),
          name: /^ {2}name: '([^']*)'/m.exec(block)?.[1],
        }))
        .filter((span) => span.traceId !== undefined);
    const request = await waitFor('the request printed as a span', async () =>
      printed().find((span) => span.root && span.name === 'PUT /directory/me'),
    );
    // The statements it ran, printed as spans of the same trace.
    await waitFor('a statement of that request', async () =>
      printed().some(
        (span) => span.traceId === request.traceId && !span.root && span.name?.startsWith('pg.query'),
      )
        ? true
        : undefined,
    );
  });
});

/**
 * The chain of one write: the gateway's request span, under it the NATS request (CLIENT), under
 * that the service's handler (SERVER, another process); under the handler, the relay's publish of
 * `type` (PRODUCER) and, in other processes, the consumers' handling of it (CONSUMER).
 */
function expectChain(spans: ReceivedSpan[], request: ReceivedSpan, service: string, type: string): void {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const parentOf = (span: ReceivedSpan) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined);
  const handler = spans.find((span) => span.service === service && span.kind === SERVER);
  expect(handler).toBeDefined();
  const client = parentOf(handler!);
  expect({ kind: client?.kind, service: client?.service }).toEqual({ kind: CLIENT, service: 'auth-gateway' });
  expect(parentOf(client!)?.spanId).toBe(request.spanId);
  const publish = spans.find((span) => span.kind === PRODUCER && span.name === `${type} publish`);
  expect(publish?.service).toBe(service);
  const consumers = spans.filter((span) => span.kind === CONSUMER && span.name === `${type} process`);
  expect(consumers.length).toBeGreaterThan(0);
  // The publish and each consumer descend from the handler that wrote the event.
  const descends = (span: ReceivedSpan) => {
    for (let at = parentOf(span); at; at = parentOf(at)) if (at.spanId === handler!.spanId) return true;
    return false;
  };
  expect(descends(publish!)).toBe(true);
  for (const consumer of consumers) {
    expect(consumer.service).not.toBe(service);
    expect(descends(consumer)).toBe(true);
  }
}
