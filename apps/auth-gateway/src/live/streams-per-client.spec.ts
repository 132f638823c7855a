import { StreamsPerClient } from './streams-per-client.js';

describe('StreamsPerClient', () => {
  it('refuses a client its streams beyond the limit with 429 live.too_many_streams, others not', () => {
    const streams = new StreamsPerClient(2);
    streams.take('ip:192.0.2.1');
    streams.take('ip:192.0.2.1');
    expect(() => streams.take('ip:192.0.2.1')).toThrow(
      expect.objectContaining({ code: 'live.too_many_streams', status: 429 }),
    );
    streams.take('ip:192.0.2.2');
    expect([streams.of('ip:192.0.2.1'), streams.of('ip:192.0.2.2'), streams.total]).toEqual([2, 1, 3]);
  });

  it('gives a place back once per release, however often it is called', () => {
    const streams = new StreamsPerClient(2);
    const first = streams.take('ip:192.0.2.1');
    const second = streams.take('ip:192.0.2.1');
    first();
    first();
    expect(streams.of('ip:192.0.2.1')).toBe(1);
    const third = streams.take('ip:192.0.2.1');
    expect(() => streams.take('ip:192.0.2.1')).toThrow();
    second();
    third();
    expect([streams.of('ip:192.0.2.1'), streams.total]).toEqual([0, 0]);
  });

  it('counts without refusing when the limit is 0', () => {
    const streams = new StreamsPerClient(0);
    for (let i = 0; i < 100; i++) streams.take('ip:192.0.2.1');
    expect(streams.total).toBe(100);
  });
});
