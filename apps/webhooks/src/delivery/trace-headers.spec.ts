import { traceHeadersOf } from './trace-headers.js';

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const event = (extra: Record<string, unknown>, data: unknown = { id: 'q1' }) =>
  JSON.stringify({ specversion: '1.0', id: 'e1', type: 'townhall.question.submitted', ...extra, data });

describe('traceHeadersOf: a delivery continues the trace of the write it reports', () => {
  it("sends the event's traceparent and tracestate as headers", () => {
    expect(traceHeadersOf(event({ traceparent, tracestate: 'vendor=abc' }))).toEqual({
      traceparent,
      tracestate: 'vendor=abc',
    });
    expect(traceHeadersOf(event({ traceparent }))).toEqual({ traceparent });
  });

  it('sends none for an event without one, or with one that is not W3C Trace Context', () => {
    expect(traceHeadersOf(event({}))).toEqual({});
    for (const bad of ['01-zz', `${traceparent}\r\nx-injected: 1`, 'ff-' + traceparent.slice(3), 42, null])
      expect(traceHeadersOf(event({ traceparent: bad }))).toEqual({});
    // A tracestate that could not be a header value is left out, the traceparent kept.
    expect(traceHeadersOf(event({ traceparent, tracestate: 'a=b\nx: y' }))).toEqual({ traceparent });
  });

  it("never takes one from the event's data, nor from a body that is not JSON", () => {
    expect(traceHeadersOf(event({}, { traceparent, body: `"traceparent":"${traceparent}"` }))).toEqual({});
    expect(traceHeadersOf(`{"traceparent":"${traceparent}"`)).toEqual({});
  });
});
