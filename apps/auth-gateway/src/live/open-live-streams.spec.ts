import { OpenLiveStreams } from './open-live-streams.js';

const OFF = { perClient: 0, perEvent: 0, total: 0 };

describe('OpenLiveStreams', () => {
  it('refuses a client its streams beyond the limit with 429 live.too_many_streams, others not', () => {
    const streams = new OpenLiveStreams({ ...OFF, perClient: 2 });
    streams.take('ip:192.0.2.1', 'e1');
    streams.take('ip:192.0.2.1', 'e1');
    expect(() => streams.take('ip:192.0.2.1', 'e2')).toThrow(
      expect.objectContaining({ code: 'live.too_many_streams', status: 429 }),
    );
    streams.take('ip:192.0.2.2', 'e1');
    expect([streams.of('ip:192.0.2.1'), streams.of('ip:192.0.2.2'), streams.total]).toEqual([2, 1, 3]);
  });

  it('refuses the streams of one event beyond its cap with 503 live.event_at_capacity, other events not', () => {
    const streams = new OpenLiveStreams({ ...OFF, perEvent: 2 });
    const first = streams.take('ip:192.0.2.1', 'e1');
    streams.take('ip:192.0.2.2', 'e1');
    expect(() => streams.take('ip:192.0.2.3', 'e1')).toThrow(
      expect.objectContaining({ code: 'live.event_at_capacity', status: 503 }),
    );
    streams.take('ip:192.0.2.3', 'e2');
    expect([streams.onEvent('e1'), streams.onEvent('e2'), streams.of('ip:192.0.2.3')]).toEqual([2, 1, 1]);
    first();
    streams.take('ip:192.0.2.3', 'e1');
    expect(streams.onEvent('e1')).toBe(2);
  });

  it("refuses every stream beyond the process's cap with 503 live.at_capacity, whatever the event", () => {
    const streams = new OpenLiveStreams({ perClient: 20, perEvent: 2, total: 3 });
    streams.take('ip:192.0.2.1', 'e1');
    streams.take('ip:192.0.2.2', 'e2');
    const third = streams.take('ip:192.0.2.3', 'e3');
    expect(() => streams.take('ip:192.0.2.4', 'e4')).toThrow(
      expect.objectContaining({ code: 'live.at_capacity', status: 503 }),
    );
    // The client's own cap answers first: it is the client's to fix, not the gateway's.
    const busy = new OpenLiveStreams({ perClient: 1, perEvent: 1, total: 1 });
    busy.take('ip:192.0.2.1', 'e1');
    expect(() => busy.take('ip:192.0.2.1', 'e1')).toThrow(
      expect.objectContaining({ code: 'live.too_many_streams' }),
    );
    expect(() => busy.take('ip:192.0.2.2', 'e1')).toThrow(
      expect.objectContaining({ code: 'live.at_capacity' }),
    );
    third();
    streams.take('ip:192.0.2.4', 'e4');
    expect(streams.total).toBe(3);
  });

  it('gives a place back once per release, however often it is called', () => {
    const streams = new OpenLiveStreams({ perClient: 2, perEvent: 2, total: 2 });
    const first = streams.take('ip:192.0.2.1', 'e1');
    const second = streams.take('ip:192.0.2.1', 'e1');
    first();
    first();
    expect([streams.of('ip:192.0.2.1'), streams.onEvent('e1'), streams.total]).toEqual([1, 1, 1]);
    const third = streams.take('ip:192.0.2.1', 'e1');
    expect(() => streams.take('ip:192.0.2.1', 'e1')).toThrow();
    second();
    third();
    expect([streams.of('ip:192.0.2.1'), streams.onEvent('e1'), streams.total]).toEqual([0, 0, 0]);
  });

  it('counts without refusing when every cap is 0', () => {
    const streams = new OpenLiveStreams(OFF);
    for (let i = 0; i < 100; i++) streams.take('ip:192.0.2.1', 'e1');
    expect([streams.total, streams.onEvent('e1')]).toEqual([100, 100]);
  });
});
