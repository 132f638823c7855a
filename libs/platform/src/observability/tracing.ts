import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import {
  context,
  createContextKey,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanContext,
  type TextMapGetter,
} from '@opentelemetry/api';

/**
 * W3C Trace Context of a write, as the CloudEvents Distributed Tracing extension carries it on a
 * domain event (and a webhook delivery as its headers): `traceparent`, and `tracestate` if any.
 */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

export { SpanKind };

export interface TracingOptions {
  env?: NodeJS.ProcessEnv;
  /** Print each span on standard output (standalone's `--traces`), whatever OTEL_* says. */
  console?: boolean;
}

let provider: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | undefined;
/** Whether the sampler follows a parent's decision (the `parentbased_` samplers, the default). */
let followsParent = true;
/**
 * An unsampled trace's context, kept under this key instead of as the active span. Under a sampler
 * that follows its parent, nothing below an unsampled span can be recorded, so no span is made
 * for it: the trace context is only carried on (a request's and a domain event's `traceparent`,
 * flags 00, so that the services decide as the gateway did) and written in log lines. With no span
 * active, the Postgres instrumentation (requireParentSpan) does nothing for its statements either.
 */
const UNSAMPLED = createContextKey('townhall.unsampled-trace');

/** Whether this process records spans: every instrumented path asks first, so off costs nothing. */
export function isTracing(): boolean {
  return provider !== undefined;
}

/**
 * OpenTelemetry for this process, when the standard variables ask for it: an OTLP/HTTP exporter
 * at OTEL_EXPORTER_OTLP_ENDPOINT (or _TRACES_ENDPOINT; the exporter reads the rest of OTEL_*),
 * unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none. Without them nothing is loaded
 * and nothing is recorded. Returns whether tracing is on.
 *
 * Must run before anything loads `pg` (the first import of an app's main.ts): the Postgres
 * instrumentation hooks the driver's modules as they load. The SDK is loaded with require, so
 * that it is all in place when this returns.
 */
export function startTracing(service: string, options: TracingOptions = {}): boolean {
  if (provider) return true;
  const env = options.env ?? process.env;
  const endpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_ENDPOINT'];
  const wanted =
    options.console === true ||
    (endpoint !== undefined &&
      endpoint !== '' &&
      env['OTEL_SDK_DISABLED'] !== 'true' &&
      env['OTEL_TRACES_EXPORTER'] !== 'none');
  if (!wanted) return false;

  const require = createRequire(import.meta.url);
  const sdk = require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const resources = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');

  let processor: import('@opentelemetry/sdk-trace').SpanProcessor;
  if (options.console === true) {
    processor = new sdk.SimpleSpanProcessor({ exporter: new sdk.ConsoleSpanExporter() });
  } else {
    const { OTLPTraceExporter } =
      require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    processor = new sdk.BatchSpanProcessor({
      exporter: new OTLPTraceExporter(),
      scheduledDelayMillis: positive(env['OTEL_BSP_SCHEDULE_DELAY'], 5_000),
      maxQueueSize: positive(env['OTEL_BSP_MAX_QUEUE_SIZE'], 2_048),
      maxExportBatchSize: positive(env['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'], 512),
    });
  }
  const resource = resources
    .resourceFromAttributes({
      'service.name': service,
      'service.namespace': 'townhall',
      'service.instance.id': `${hostname()}:${process.pid}`,
    })
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracerProvider = new sdk.TracerProvider({
    resource,
    spanProcessors: [processor],
    sampler: samplerOf(sdk, env),
  });
  followsParent = (env['OTEL_TRACES_SAMPLER'] ?? 'parentbased_')
    .trim()
    .toLowerCase()
    .startsWith('parentbased_');
  trace.setGlobalTracerProvider(tracerProvider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  // Statements only within a span of ours (a request, a consumer's handling), never the pollers'
  // background statements as traces of their own; and never the values bound to them.
  const postgres = new PgInstrumentation({
    requireParentSpan: true,
    enhancedDatabaseReporting: false,
    // A pool handing out a connection is not a statement: one span less per statement.
    ignoreConnectSpans: true,
  });
  postgres.setTracerProvider(tracerProvider);
  provider = tracerProvider;
  return true;
}

/** Exports what is still buffered and stops: the last step of a process's graceful stop. */
export async function stopTracing(): Promise<void> {
  const current = provider;
  if (!current) return;
  await current.shutdown().catch(() => undefined);
}

const tracer = () => trace.getTracer('townhall');

const headerGetter: TextMapGetter<{ get(name: string): string; keys(): string[] }> = {
  get: (headers, key) => headers.get(key) || undefined,
  keys: (headers) => headers.keys(),
};

/** The context a carrier names (a CloudEvent's extension attributes, NATS headers), or none. */
export function contextOf(
  carrier: TraceCarrier | { get(name: string): string; keys(): string[] } | undefined,
): Context {
  if (!carrier) return ROOT_CONTEXT;
  if (typeof (carrier as { get?: unknown }).get === 'function') {
    return propagation.extract(
      ROOT_CONTEXT,
      carrier as { get(name: string): string; keys(): string[] },
      headerGetter,
    );
  }
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** The active span's trace context, to carry along (a domain event, a NATS request); none when off. */
export function activeTraceCarrier(): TraceCarrier | undefined {
  if (!provider) return undefined;
  const active = context.active();
  const kept = active.getValue(UNSAMPLED) as SpanContext | undefined;
  if (kept) return carrierOf(kept);
  if (!trace.getSpan(active)) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(active, carrier);
  return carrier.traceparent ? carrier : undefined;
}

export interface SpanOptions {
  kind: SpanKind;
  attributes?: Attributes;
  /** The parent, if not the active context (a domain event's, a request's headers). */
  parent?: Context;
  links?: Link[];
}

/**
 * Runs `work` in a span of its own, active for everything it calls (its statements, its requests),
 * ended when it settles; an error marks the span. Without tracing, just runs `work`.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: () => Promise<T>): Promise<T> {
  const opened = openSpan(name, options);
  if (!opened) return work();
  return context.with(opened.context, async () => {
    let failure: unknown;
    try {
      return await work();
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      opened.end(failure);
    }
  });
}

/**
 * A span started now and ended by the caller (an HTTP request, whose end is another hook), with
 * the context to run its work in. Undefined without tracing.
 */
export function openSpan(
  name: string,
  options: SpanOptions,
): { span: Span; context: Context; end(error?: unknown): void } | undefined {
  if (!provider) return undefined;
  const parent = options.parent ?? context.active();
  // Within an unsampled trace already (a request's service call): its context as it is.
  const kept = parent.getValue(UNSAMPLED) as SpanContext | undefined;
  if (kept) return { span: trace.wrapSpanContext(kept), context: parent, end: () => undefined };
  const unsampledParent = unsampledTraceOf(parent);
  if (unsampledParent) return unsampled(parent, unsampledParent);
  const span = tracer().startSpan(
    name,
    { kind: options.kind, ...(options.links ? { links: options.links } : {}) },
    parent,
  );
  // The sampler decided against it (a root, or a parent of another process): carried, not made.
  if (!span.isRecording() && followsParent) return unsampled(parent, span.spanContext());
  // Set only on a recorded span: an unsampled one would sanitize them for nothing.
  if (options.attributes) span.setAttributes(options.attributes);
  return {
    span,
    context: trace.setSpan(parent, span),
    end: (error?: unknown) => {
      if (error !== undefined) failed(span, error);
      span.end();
    },
  };
}

/** The unsampled span `parent` has, if its sampler follows parents and the parent is one. */
function unsampledTraceOf(parent: Context): SpanContext | undefined {
  if (!followsParent) return undefined;
  const spanContext = trace.getSpanContext(parent);
  return spanContext && isSpanContextValid(spanContext) && (spanContext.traceFlags & TraceFlags.SAMPLED) === 0
    ? spanContext
    : undefined;
}

/** No span: `parent` without its span, carrying the unsampled trace (UNSAMPLED). */
function unsampled(
  parent: Context,
  spanContext: SpanContext,
): { span: Span; context: Context; end(error?: unknown): void } {
  // Each change of a context copies it: none where there is no span to take out (a root).
  const withoutSpan = trace.getSpan(parent) ? trace.deleteSpan(parent) : parent;
  return {
    span: trace.wrapSpanContext(spanContext),
    context: withoutSpan.setValue(UNSAMPLED, spanContext),
    end: () => undefined,
  };
}

/**
 * Runs `work` outside any trace: background work that a request only woke (the outbox relay's
 * pass serves the events of many writes) must not be counted as that request's.
 */
export function outsideAnyTrace<T>(work: () => T): T {
  return provider ? context.with(ROOT_CONTEXT, work) : work();
}

/** Runs `work` with `ctx` active (a span opened by openSpan): what it calls becomes its children. */
export function withContext<T>(ctx: Context | undefined, work: () => T): T {
  return ctx ? context.with(ctx, work) : work();
}

/** Sets the active context's headers on an outgoing message (`set(name, value)`). */
export function injectTraceHeaders(set: (name: string, value: string) => void): void {
  if (!provider) return;
  const active = context.active();
  const kept = active.getValue(UNSAMPLED) as SpanContext | undefined;
  if (kept) {
    const carrier = carrierOf(kept);
    set('traceparent', carrier.traceparent);
    if (carrier.tracestate) set('tracestate', carrier.tracestate);
    return;
  }
  propagation.inject(active, undefined, { set: (_carrier, key, value) => set(key, value) });
}

/**
 * An unsampled trace's carrier, written as W3C Trace Context writes it (version 00) without a
 * context made for the propagator to read it from: the trace goes on as it came.
 */
function carrierOf(kept: SpanContext): TraceCarrier & { traceparent: string } {
  const flags = (kept.traceFlags & 0xff).toString(16).padStart(2, '0');
  const tracestate = kept.traceState?.serialize();
  return {
    traceparent: `00-${kept.traceId}-${kept.spanId}-${flags}`,
    ...(tracestate ? { tracestate } : {}),
  };
}

/** `trace_id` and `span_id` of the active span, for a log line (pino's mixin); empty when none. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const active = context.active();
  const spanContext = trace.getSpanContext(active) ?? (active.getValue(UNSAMPLED) as SpanContext | undefined);
  if (!spanContext) return {};
  const { traceId, spanId } = spanContext;
  return { trace_id: traceId, span_id: spanId };
}

function failed(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/**
 * OTEL_TRACES_SAMPLER (and OTEL_TRACES_SAMPLER_ARG, a ratio) as the specification names them:
 * `always_on`, `always_off`, `traceidratio`, and their `parentbased_` forms; by default
 * `parentbased_always_on`. A service follows its caller's decision (the gateway's, sampled once
 * per request), so a trace is whole or absent.
 */
function samplerOf(
  sdk: typeof import('@opentelemetry/sdk-trace'),
  env: NodeJS.ProcessEnv,
): import('@opentelemetry/sdk-trace').Sampler {
  const name = (env['OTEL_TRACES_SAMPLER'] ?? 'parentbased_always_on').trim().toLowerCase();
  const ratio = Number(env['OTEL_TRACES_SAMPLER_ARG'] ?? 1);
  const root = (kind: string) =>
    kind === 'always_off'
      ? new sdk.AlwaysOffSampler()
      : kind === 'traceidratio'
        ? new sdk.TraceIdRatioBasedSampler(Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1)
        : new sdk.AlwaysOnSampler();
  return name.startsWith('parentbased_')
    ? new sdk.ParentBasedSampler({ root: root(name.slice('parentbased_'.length)) })
    : root(name);
}

function positive(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
}
