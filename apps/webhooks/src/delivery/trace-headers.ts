/**
 * The W3C Trace Context of the write a delivery reports (its CloudEvent's Distributed Tracing
 * extension), as the `traceparent` and `tracestate` headers: a receiver that traces continues
 * the trace of the change. None when the event carries none (the deployment does not trace).
 */
export function traceHeadersOf(body: string): Record<string, string> {
  if (!body.includes('"traceparent"')) return {};
  let event: { traceparent?: unknown; tracestate?: unknown };
  try {
    event = JSON.parse(body) as typeof event;
  } catch {
    return {};
  }
  const headers: Record<string, string> = {};
  if (typeof event.traceparent === 'string' && TRACEPARENT.test(event.traceparent)) {
    headers['traceparent'] = event.traceparent;
    if (typeof event.tracestate === 'string' && TRACESTATE.test(event.tracestate))
      headers['tracestate'] = event.tracestate;
  }
  return headers;
}

// W3C Trace Context: version 00's traceparent; a tracestate is printable ASCII, at most 512 bytes.
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;
