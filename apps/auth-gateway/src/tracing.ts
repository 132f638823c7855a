// The first import of main.ts: OpenTelemetry in place (when OTEL_* asks for it) before the rest
// of the gateway loads.
import { startTracing } from '@townhall/platform/tracing';

startTracing('auth-gateway');
