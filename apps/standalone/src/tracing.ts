// The first import of main.ts: OpenTelemetry in place before anything loads the Postgres driver,
// which its instrumentation hooks as it loads. `--traces` prints every span on standard output;
// otherwise OTEL_EXPORTER_OTLP_ENDPOINT (and the rest of OTEL_*) sends them to a collector.
import { startTracing } from '@townhall/platform/tracing';

startTracing('townhall', { console: process.argv.slice(2).includes('--traces') });
