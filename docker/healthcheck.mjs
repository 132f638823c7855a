// The image's HEALTHCHECK: GET /readyz (or the path given as the first argument) on the app's
// operators' port PROBE_PORT (9464 in the image; every app serves /healthz, /readyz and /metrics
// there), else on the gateway's PORT. Exit 0 on a 200, 1 otherwise.
const port = process.env.PROBE_PORT || process.env.PORT || '3000';
const path = process.argv[2] ?? '/readyz';

try {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(4_000) });
  if (response.status !== 200) console.error(`${path}: ${response.status} ${await response.text()}`);
  process.exit(response.status === 200 ? 0 : 1);
} catch (error) {
  console.error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
