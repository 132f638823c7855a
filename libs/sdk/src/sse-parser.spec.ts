import { SseParser } from './sse-parser.js';

describe('SseParser', () => {
  it('parses messages with id, event and data, skipping comments and keeping retry', () => {
    const parser = new SseParser();
    const messages = parser.push(
      'retry: 2000\n\n: keep-alive\n\nid: 7\nevent: townhall.event.started\ndata: {"a":1}\n\n',
    );
    expect(messages).toEqual([{ id: '7', event: 'townhall.event.started', data: '{"a":1}' }]);
    expect(parser.retryMs).toBe(2000);
    expect(parser.lastEventId).toBe('7');
  });

  it('gives the same messages however the text is cut into chunks, CRLF split included', () => {
    const text = '\uFEFFid: 1\r\nevent: a\r\ndata: x\r\ndata: y\r\n\r\nid: 2\rdata: z\r\r: c\n\n';
    const whole = new SseParser().push(text);
    expect(whole).toEqual([
      { id: '1', event: 'a', data: 'x\ny' },
      { id: '2', event: 'message', data: 'z' },
    ]);
    for (let size = 1; size < 8; size++) {
      const parser = new SseParser();
      const messages = [];
      for (let at = 0; at < text.length; at += size) messages.push(...parser.push(text.slice(at, at + size)));
      expect(messages).toEqual(whole);
    }
  });

  it('keeps the last id for later messages and waits for the blank line before dispatching', () => {
    const parser = new SseParser();
    expect(parser.push('id: 5\ndata: a\n\ndata: b\n')).toEqual([{ id: '5', event: 'message', data: 'a' }]);
    expect(parser.push('\n')).toEqual([{ id: '5', event: 'message', data: 'b' }]);
  });

  it('ignores unknown fields and a retry that is not a number; a field without colon is empty', () => {
    const parser = new SseParser();
    expect(parser.push('foo: bar\nretry: soon\ndata\n\n')).toEqual([{ id: '', event: 'message', data: '' }]);
    expect(parser.retryMs).toBeUndefined();
  });
});
