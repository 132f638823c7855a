// The first import of main.ts: OpenTelemetry in place (when OTEL_* asks for it) before anything
// loads the Postgres driver, which its instrumentation hooks as it loads.
import { startTracing } from '@townhall/platform/tracing';

startTracing('engagement');
