import { emptyReport, fullReport, SCRIPT_QUESTION } from '../../test/report-fixtures.js';
import { REPORT_PAGE_CSP, reportHtml } from './report-html.js';
import { escapeHtml } from './svg-charts.js';

/** The markup of the chart of class `name` (the first one). */
function chart(html: string, name: string): string {
  return new RegExp(`<svg class="chart ${name}"[\\s\\S]*?</svg>`).exec(html)?.[0] ?? '';
}
const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;

describe('reportHtml', () => {
  it('is one page that fetches nothing: no script, no link, no URL, a CSP that forbids them', () => {
    // Without the question that is a script (escaped, its text would match).
    const report = fullReport();
    report.questions.top.splice(1, 1);
    const html = reportHtml(report, { title: 'Numbers' });
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(REPORT_PAGE_CSP)}">`,
    );
    expect(REPORT_PAGE_CSP).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|https?:|src=/i);
    expect(html).toContain('prefers-color-scheme: dark');
    expect(html).toContain('<meta name="color-scheme" content="light dark">');
  });

  it('escapes every string a person wrote: question bodies, poll options, tiers, the title', () => {
    const html = reportHtml(fullReport(), { title: '<i>AMA</i> & "friends"' });
    expect(html).not.toContain('<script>window');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>Maybe</b>');
    expect(html).not.toContain('<i>AMA</i>');
    expect(html).toContain('&lt;script&gt;window.__reportPwned = true&lt;/script&gt;');
    expect(html).toContain('<h1>&lt;i&gt;AMA&lt;/i&gt; &amp; &quot;friends&quot;</h1>');
    expect(html).toContain('<title>Report: &lt;i&gt;AMA&lt;/i&gt; &amp; &quot;friends&quot;</title>');
    expect(html).toContain('crew &amp; &quot;friends&quot;');
    expect(html).toContain('&lt;b&gt;Maybe&lt;/b&gt;');
    expect(SCRIPT_QUESTION).toContain('<script>');
  });

  it('draws each chart with its points and bars', () => {
    const html = reportHtml(fullReport({ registrationPoints: 12, viewerPoints: 30 }));
    expect(count(chart(html, 'registrations'), /<circle class="point"/)).toBe(12);
    expect(chart(html, 'registrations')).toContain('class="area"');
    expect(count(chart(html, 'viewers'), /<circle class="point"/)).toBe(30);
    expect(count(chart(html, 'tiers'), /<rect class="bar"/)).toBe(3);
    expect(count(chart(html, 'questions'), /<rect class="bar"/)).toBe(3);
    const polls = html.match(/<svg class="chart poll"[\s\S]*?<\/svg>/g) ?? [];
    expect(polls.map((poll) => count(poll, /<rect class="bar"/))).toEqual([3, 2]);
    expect(html).toContain('>2 · 67%<');
  });

  it('draws a series of one point as one dot', () => {
    const html = reportHtml(fullReport({ registrationPoints: 1, viewerPoints: 1 }));
    expect(count(chart(html, 'registrations'), /<circle class="point"/)).toBe(1);
    expect(count(chart(html, 'viewers'), /<circle class="point"/)).toBe(1);
  });

  it('shows the figures, the sales, the attendance with handles or agentIds', () => {
    const html = reportHtml(fullReport());
    expect(html).toContain('<h1>Event e1</h1>');
    expect(html).toContain('<div><dt>Registrations</dt><dd>7</dd></div>');
    expect(html).toContain('<div><dt>Peak viewers</dt><dd>5</dd></div>');
    expect(html).toContain('0.0065 USDC (ledger), 2.5 USDC (solana:');
    expect(html).toContain('<td>1: 0.0005 USDC (ledger)</td>');
    expect(html).toContain('<tr><td>@ada</td><td class="number">58.3</td>');
    expect(html).toContain(
      '<tr><td>4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T</td><td class="number">12.5</td>',
    );
  });

  it('reads well for an event nobody came to: no charts, a line for each', () => {
    const html = reportHtml(emptyReport());
    expect(html).not.toContain('<svg');
    expect(html).toContain('Tickets issued over time: no data yet.');
    expect(html).toContain('Live streams open over time: no data yet.');
    expect(html).toContain('Tickets by tier: none.');
    expect(html).toContain('No polls.');
    expect(html).toContain('Nobody seen yet.');
    expect(html).toContain('No codes.');
  });
});
