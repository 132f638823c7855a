import { SSE_HEARTBEAT, sseMessage, sseRetry } from './sse-frame.js';

describe('SSE framing', () => {
  it('writes id, event and data, ended by a blank line', () => {
    expect(sseMessage({ id: '42', event: 'townhall.event.started', data: '{"a":1}' })).toBe(
      'id: 42\nevent: townhall.event.started\ndata: {"a":1}\n\n',
    );
  });

  it('splits data with line breaks into several data lines', () => {
    expect(sseMessage({ id: '1', event: 'x', data: 'a\nb\r\nc\rd' })).toBe(
      'id: 1\nevent: x\ndata: a\ndata: b\ndata: c\ndata: d\n\n',
    );
  });

  it('refuses an id or event with a line break (it would inject a field)', () => {
    expect(() => sseMessage({ id: '1\ndata: x', event: 'x', data: '' })).toThrow('one line');
    expect(() => sseMessage({ id: '1', event: 'x\r', data: '' })).toThrow('one line');
  });

  it('writes retry and the heartbeat comment', () => {
    expect(sseRetry(2000)).toBe('retry: 2000\n\n');
    expect(SSE_HEARTBEAT).toBe(': keep-alive\n\n');
  });
});
