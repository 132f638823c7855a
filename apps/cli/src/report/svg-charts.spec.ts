import { barChart, escapeHtml, lineChart, MAX_CHART_POINTS, thin, type TimePoint } from './svg-charts.js';

const points = (count: number): TimePoint[] =>
  Array.from({ length: count }, (_, n) => ({
    at: new Date(Date.parse('2027-03-04T18:00:00.000Z') + n * 60_000).toISOString(),
    value: n % 5,
  }));

/** The x,y pairs of the chart's line. */
function linePoints(svg: string): Array<[number, number]> {
  const attribute = /<polyline class="line" points="([^"]*)"/.exec(svg)?.[1] ?? '';
  return attribute
    .split(' ')
    .filter(Boolean)
    .map((pair) => pair.split(',').map(Number) as [number, number]);
}

const count = (svg: string, pattern: RegExp) => svg.match(new RegExp(pattern, 'g'))?.length ?? 0;

describe('escapeHtml', () => {
  it('escapes what could open a tag, an entity or an attribute', () => {
    expect(escapeHtml(`<script>alert("x" & 'y')</script>`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;',
    );
  });
});

describe('lineChart', () => {
  it('says there is no data for no points, and draws nothing', () => {
    const html = lineChart({ points: [], label: 'Viewers', name: 'viewers' });
    expect(html).toBe('<p class="empty">Viewers: no data yet.</p>');
  });

  it('draws one point in the middle, as a dot (a line needs two)', () => {
    const svg = lineChart({ points: points(1), label: 'One', name: 'one', area: true });
    expect(svg).toMatch(/^<svg class="chart one" /);
    expect(count(svg, /<circle class="point"/)).toBe(1);
    expect(linePoints(svg)).toEqual([[336, 172]]);
    expect(svg).not.toContain('class="area"');
  });

  it('draws many points left to right, from 0 up to the largest value', () => {
    const svg = lineChart({ points: points(40), label: 'Many', name: 'many', area: true });
    const line = linePoints(svg);
    expect(line).toHaveLength(40);
    expect(count(svg, /<circle class="point"/)).toBe(40);
    const xs = line.map(([x]) => x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(xs[0]).toBe(44);
    expect(xs.at(-1)).toBe(628);
    // Value 0 on the axis, value 4 (the largest) at the top.
    expect(line[0]![1]).toBe(172);
    expect(line[4]![1]).toBe(12);
    expect(svg).toContain('class="area"');
    expect(svg).toContain('>2027-03-04 18:00 UTC<');
    expect(svg).toContain('>2027-03-04 18:39 UTC<');
  });

  it('draws at most MAX_CHART_POINTS, keeping the peaks', () => {
    const many = points(5000);
    many[2345] = { ...many[2345]!, value: 99 };
    const svg = lineChart({ points: many, label: 'Long', name: 'long' });
    expect(linePoints(svg)).toHaveLength(MAX_CHART_POINTS);
    expect(svg).toContain(': 99</title>');
    expect(thin(many).map((point) => point.value)).toContain(99);
  });

  it('escapes its label', () => {
    const svg = lineChart({ points: points(2), label: '<b>"x"</b>', name: 'x' });
    expect(svg).toContain('aria-label="&lt;b&gt;&quot;x&quot;&lt;/b&gt;"');
    expect(svg).not.toContain('<b>');
  });
});

describe('barChart', () => {
  it('says there is none for no bars', () => {
    expect(barChart({ bars: [], label: 'Tiers', name: 'tiers' })).toBe('<p class="empty">Tiers: none.</p>');
  });

  it('draws one bar per item, the largest the widest, a zero as no width', () => {
    const svg = barChart({
      name: 'tiers',
      label: 'Tiers',
      bars: [
        { label: 'general', value: 4 },
        { label: 'vip', value: 2, note: '33%' },
        { label: 'crew', value: 0 },
      ],
    });
    const widths = [...svg.matchAll(/<rect class="bar" [^>]*width="([\d.]+)"/g)].map((match) =>
      Number(match[1]),
    );
    expect(widths).toHaveLength(3);
    expect(widths[0]).toBeGreaterThan(widths[1]!);
    expect(widths[1]).toBeCloseTo(widths[0]! / 2, 0);
    expect(widths[2]).toBe(0);
    expect(svg).toContain('>2 · 33%<');
  });

  it('draws one bar alone at full width', () => {
    const svg = barChart({ name: 'one', label: 'One', bars: [{ label: 'only', value: 1 }] });
    expect(count(svg, /<rect class="bar"/)).toBe(1);
  });

  it('cuts a long label, keeps it whole in the title, and escapes both', () => {
    const label = `<script>alert(1)</script>${'x'.repeat(100)}`;
    const svg = barChart({ name: 'q', label: 'Questions', bars: [{ label, value: 3 }], labelLength: 20 });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain(`<title>&lt;script&gt;alert(1)&lt;/script&gt;${'x'.repeat(100)}: 3</title>`);
    expect(svg).toContain('<text class="label" x="0" y="19">&lt;script&gt;alert(1)&lt;/s…</text>');
  });
});
