import { counter, gauge, histogram, LATENCY_BUCKETS, metricsRegistry } from './metrics.js';

const NAMES = ['townhall_spec_total', 'townhall_spec_seconds', 'townhall_spec_open'];

/** What a scrape shows of `name`: its series as Prometheus text, without the help and type lines. */
async function series(name: string): Promise<string[]> {
  const text = await metricsRegistry.getSingleMetricAsString(name);
  return text.split('\n').filter((line) => line && !line.startsWith('#'));
}

describe('declaring a metric', () => {
  afterEach(() => {
    for (const name of NAMES) metricsRegistry.removeSingleMetric(name);
  });

  it('puts a counter, with its help and labels, in the registry /metrics serves', async () => {
    const attempts = counter('townhall_spec_total', 'Attempts, by outcome', ['outcome']);
    attempts.inc({ outcome: 'ok' });
    attempts.inc({ outcome: 'ok' });
    expect(await metricsRegistry.getSingleMetricAsString('townhall_spec_total')).toContain(
      '# HELP townhall_spec_total Attempts, by outcome',
    );
    expect(await series('townhall_spec_total')).toEqual(['townhall_spec_total{outcome="ok"} 2']);
  });

  it('gives a histogram the latency buckets unless it names its own', async () => {
    histogram('townhall_spec_seconds', 'Latency', { labelNames: ['route'] }).observe({ route: '/a' }, 0.003);
    const buckets = (await series('townhall_spec_seconds'))
      .filter((line) => line.includes('_bucket'))
      .map((line) => /le="([^"]+)"/.exec(line)?.[1]);
    expect(buckets).toEqual([...LATENCY_BUCKETS.map(String), '+Inf']);

    metricsRegistry.removeSingleMetric('townhall_spec_seconds');
    histogram('townhall_spec_seconds', 'Latency', { buckets: [1, 10] }).observe(2);
    expect(await series('townhall_spec_seconds')).toEqual([
      'townhall_spec_seconds_bucket{le="1"} 0',
      'townhall_spec_seconds_bucket{le="10"} 1',
      'townhall_spec_seconds_bucket{le="+Inf"} 1',
      'townhall_spec_seconds_sum 2',
      'townhall_spec_seconds_count 1',
    ]);
  });

  it('reads a gauge on each scrape', async () => {
    let open = 3;
    gauge('townhall_spec_open', 'Open things', {
      collect() {
        this.set(open);
      },
    });
    expect(await series('townhall_spec_open')).toEqual(['townhall_spec_open 3']);
    open = 5;
    expect(await series('townhall_spec_open')).toEqual(['townhall_spec_open 5']);
  });

  it('refuses a second metric of one name: each is declared once', () => {
    counter('townhall_spec_total', 'Attempts');
    expect(() => counter('townhall_spec_total', 'Attempts again')).toThrow(/already been registered/);
  });
});
