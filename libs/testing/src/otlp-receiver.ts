import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as an OTLP/HTTP JSON export carried it, with the `service.name` of its resource. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: Array<{ traceId: string; spanId: string }>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
        links?: Array<{ traceId: string; spanId: string }>;
      }>;
    }>;
  }>;
}

/**
 * An OpenTelemetry collector for tests: an HTTP server on 127.0.0.1 taking OTLP/HTTP JSON
 * exports (POST /v1/traces, what `@opentelemetry/exporter-trace-otlp-http` sends to
 * OTEL_EXPORTER_OTLP_ENDPOINT) and keeping every span.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private port = 0;

  private readonly server: Server;

  private constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          let body = Buffer.concat(chunks);
          if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
          if (request.url === '/v1/traces') this.take(JSON.parse(body.toString('utf8')) as OtlpExport);
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        } catch {
          response.writeHead(400).end();
        }
      });
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(0, '127.0.0.1', () => resolve());
    });
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  /** OTEL_EXPORTER_OTLP_ENDPOINT for the apps. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private take(exported: OtlpExport): void {
    for (const resourceSpans of exported.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentSpanId: span.parentSpanId ? hex(span.parentSpanId) : undefined,
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            links: (span.links ?? []).map((link) => ({
              traceId: hex(link.traceId),
              spanId: hex(link.spanId),
            })),
          });
        }
      }
    }
  }
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const values: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    const scalar = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue;
    if (scalar !== undefined)
      values[key] = typeof scalar === 'string' && value.intValue !== undefined ? Number(scalar) : scalar;
  }
  return values;
}

// OTLP JSON carries ids in hex; an exporter that sends base64 is read the same.
function hex(id: string): string {
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}
