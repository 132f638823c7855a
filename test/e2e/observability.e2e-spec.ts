import { randomUUID } from 'node:crypto';
import { Events, Questions, Tickets, type EventFieldsInput } from '@townhall/contracts';
import type { AgentClient } from '@townhall/sdk';
import { REPO_ROOT, Topology, waitFor, type AppProcess } from '@townhall/testing';
import { alertRules, parsePromql } from '../deploy/promql.js';

const HOUR = 3_600_000;

function anEvent(overrides: Partial<EventFieldsInput> = {}): EventFieldsInput {
  const startsAt = new Date(Date.now() + 24 * HOUR);
  return {
    title: 'Observed event',
    startsAt: startsAt.toISOString(),
    endsAt: new Date(startsAt.getTime() + HOUR).toISOString(),
    timezone: 'UTC',
    capacity: 10,
    ...overrides,
  };
}

async function metricsOf(app: AppProcess): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${app.env['PROBE_PORT']}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
}

/** The value of one series (name and exact label set as Prometheus prints it), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

function linesWith(app: AppProcess, text: string): Array<Record<string, unknown>> {
  return app.logs
    .filter((line) => line.includes(text))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('observability: request ids through NATS, Prometheus metrics on every app', () => {
  let topology: Topology;
  let host: AgentClient;

  beforeAll(async () => {
    topology = await Topology.start({ env: { LEDGER_FAUCET: 'true' } });
    host = topology.client();
  });
  afterAll(async () => {
    await topology?.stop();
  });

  it('finds a request id sent in on the gateway line and on the line of the service that handled it', async () => {
    const requestId = `trace-${randomUUID()}`;
    const created = await host.request<{ id: string }>('POST', '/events', {
      body: anEvent(),
      headers: { 'x-request-id': requestId },
    });
    expect(created.headers.get('x-request-id')).toBe(requestId);
    // A public read, through the events service as well, with another id.
    const readId = `trace-${randomUUID()}`;
    await fetch(`${topology.baseUrl}/events/${created.data.id}`, { headers: { 'x-request-id': readId } });

    // Log lines are written in buffered blocks: wait until each process has written its line.
    await waitFor('the log lines', async () =>
      linesWith(topology.service('events'), readId).length > 0 &&
      linesWith(topology.gateway, requestId).length > 0
        ? true
        : undefined,
    );
    const [gatewayLine] = linesWith(topology.gateway, requestId);
    expect(gatewayLine).toMatchObject({ app: 'auth-gateway', requestId, route: '/events', status: 201 });
    const serviceLines = linesWith(topology.service('events'), requestId);
    expect(serviceLines).toContainEqual(
      expect.objectContaining({ app: 'events', requestId, pattern: Events.create.pattern, outcome: 'ok' }),
    );
    expect(linesWith(topology.service('events'), readId)).toContainEqual(
      expect.objectContaining({ requestId: readId, pattern: Events.get.pattern }),
    );
    // Other services never saw these requests.
    expect(linesWith(topology.service('directory'), requestId)).toEqual([]);
  });

  it('exposes request rates and latencies, auth failures, NATS latency, pools, outbox lag, tickets and payments', async () => {
    // Some traffic: a refused signature, a paid ticket, a free one.
    const forged = await fetch(`${topology.baseUrl}/events`, {
      method: 'POST',
      headers: { authorization: 'service nonsense', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    const buyer = topology.client();
    await buyer.ledger.faucet('10000');
    const paid = await host.events.create(
      anEvent({ ticketing: { mode: 'single', price: '2500', asset: 'USDC' } }),
    );
    await buyer.tickets.rsvp(paid.id, { maxPrice: '2500' });
    const free = await host.events.create(anEvent());
    await buyer.tickets.rsvp(free.id);

    const gateway = await metricsOf(topology.gateway);
    expect(
      sample(
        gateway,
        'townhall_http_request_duration_seconds_count{method="POST",route="/events",status="201"}',
      ),
    ).toBeGreaterThanOrEqual(2);
    expect(gateway).toMatch(
      /townhall_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/events\/:id",status="200"\} \d+/,
    );
    expect(sample(gateway, 'townhall_auth_failures_total{code="auth.malformed"}')).toBeGreaterThanOrEqual(1);
    expect(
      sample(
        gateway,
        `townhall_service_request_duration_seconds_count{pattern="${Tickets.rsvp.pattern}",outcome="ok"}`,
      ),
    ).toBeGreaterThanOrEqual(2);
    expect(gateway).toMatch(/^townhall_live_subscribers \d+/m);
    expect(gateway).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(gateway).toMatch(/^townhall_heap_live_bytes \d+/m);

    const ticketing = await metricsOf(topology.service('ticketing'));
    expect(sample(ticketing, 'townhall_tickets_sold_total{mode="paid"}')).toBe(1);
    expect(sample(ticketing, 'townhall_tickets_sold_total{mode="free"}')).toBe(1);
    expect(sample(ticketing, 'townhall_payments_settled_total{facilitator="ledger",asset="USDC"}')).toBe(1);
    expect(
      sample(ticketing, 'townhall_db_pool_connections{service="ticketing",state="total"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(
        ticketing,
        `townhall_message_handling_duration_seconds_count{service="ticketing",pattern="${Tickets.rsvp.pattern}",outcome="ok"}`,
      ),
    ).toBe(2);
    // A question: engagement authorizes it from its own projections (a NATS request to the owners
    // only while they have not yet seen the event or the ticket: engagement.service-spec.ts).
    await buyer.questions.submit(free.id, 'Is this observable?');
    const engagement = await metricsOf(topology.service('engagement'));
    expect(
      sample(
        engagement,
        `townhall_message_handling_duration_seconds_count{service="engagement",pattern="${Questions.submit.pattern}",outcome="ok"}`,
      ),
    ).toBe(1);

    await waitFor('the outbox drained', async () => {
      const events = await metricsOf(topology.service('events'));
      return sample(events, 'townhall_outbox_pending_events{service="events"}') === 0 ? events : undefined;
    });
    const events = await metricsOf(topology.service('events'));
    expect(sample(events, 'townhall_outbox_lag_seconds{service="events"}')).toBe(0);
    expect(sample(events, 'townhall_domain_events_published_total{service="events"}')).toBeGreaterThanOrEqual(
      3,
    );
    // The events service's consumers take what the stream holds in batches of their own, after the
    // outbox drained: their count appears once the first batch is handled.
    const handled =
      /townhall_domain_events_handled_total\{service="events",durable="[^"]+",outcome="ok"\} \d+/;
    await waitFor('the events service handled domain events', async () => {
      const scraped = await metricsOf(topology.service('events'));
      return handled.test(scraped) ? scraped : undefined;
    });
  });

  it('serves every metric and label the Kubernetes alerts use (k8s/components/prometheus-operator)', async () => {
    // A live stream's series (the gateway-slow alert leaves its route out by name).
    const live = await fetch(`${topology.baseUrl}/events/${randomUUID()}/live`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(live.status).toBe(404);
    await live.body?.cancel();
    const scraped = await Promise.all([topology.gateway, ...topology.services].map((app) => metricsOf(app)));
    const exposition = scraped.join('\n');
    const types = new Set([...exposition.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((match) => match[1]!));
    /** The labels and values of every sample of a family (a histogram's _bucket, _count and _sum too). */
    const samples = (metric: string) =>
      [...exposition.matchAll(/^(\w+)(?:\{([^}]*)\})? /gm)]
        .filter((match) => match[1] === metric)
        .map((match) =>
          Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!])),
        );
    // Labels Prometheus adds to every series of a target (the ServiceMonitor's targetLabels too).
    const targetLabels = new Set(['namespace', 'job', 'pod', 'instance', 'app_kubernetes_io_part_of']);

    const checked: string[] = [];
    for (const rule of alertRules(REPO_ROOT)) {
      const parsed = parsePromql(rule.expr);
      const served = new Set<string>();
      for (const { metric, matchers } of parsed.selectors) {
        if (metric === 'up') continue; // Prometheus' own, per target
        const family = metric.replace(/_(bucket|count|sum)$/, '');
        expect([rule.alert, metric, types.has(metric) || types.has(family)]).toEqual([
          rule.alert,
          metric,
          true,
        ]);
        const rows = samples(metric);
        expect([rule.alert, metric, rows.length > 0]).toEqual([rule.alert, metric, true]);
        for (const { label, op, value } of matchers) {
          if (targetLabels.has(label)) continue;
          expect([rule.alert, metric, label, rows.some((row) => label in row)]).toEqual([
            rule.alert,
            metric,
            label,
            true,
          ]);
          // A route is a pattern the gateway really serves (a renamed route must not silence an alert).
          if (label === 'route' && (op === '=' || op === '!='))
            expect([rule.alert, value, rows.some((row) => row[label] === value)]).toEqual([
              rule.alert,
              value,
              true,
            ]);
        }
        for (const row of rows) for (const label of Object.keys(row)) served.add(label);
        checked.push(metric);
      }
      for (const label of parsed.groupingLabels) {
        if (targetLabels.has(label)) continue;
        expect([rule.alert, label, served.has(label)]).toEqual([rule.alert, label, true]);
      }
    }
    expect(new Set(checked).size).toBeGreaterThanOrEqual(7);
  });
});
