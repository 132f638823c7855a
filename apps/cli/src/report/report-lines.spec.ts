import { emptyReport, fullReport } from '../../test/report-fixtures.js';
import { percentOf, reportLines, reportSummary } from './report-lines.js';

describe('reportLines', () => {
  it('prints the numbers, then a sparkline for each series and bars for tiers, questions and polls', () => {
    const lines = reportLines(fullReport({ registrationPoints: 8, viewerPoints: 6 }), 'Numbers');
    expect(lines[0]).toBe('"Numbers" e1: past, report of 2027-03-04 20:00 UTC');
    expect(lines).toContain('  registrations  7');
    expect(lines).toContain('  refunds        1: 0.0005 USDC (ledger)');
    expect(lines).toContain('  codes          HALF ×1');
    expect(lines).toContain('  attendance     3 present, peak 5 viewers at once');
    const registrations = lines.indexOf(
      'registrations over time (8 points, 2027-03-04 08:00 UTC to 2027-03-04 09:10 UTC)',
    );
    expect(registrations).toBeGreaterThan(0);
    expect(lines[registrations + 1]).toMatch(/^ {2}[▁▂▃▄▅▆▇█]{8} {2}7$/);
    const viewers = lines.findIndex((line) => line.startsWith('viewers over time (6 points'));
    expect(lines[viewers + 1]).toMatch(/^ {2}[▁▂▃▄▅▆▇█]{6} {2}peak 5$/);
    expect(lines).toContain('  general           ████████████████████████  4');
    expect(lines).toContain('  crew & "friends"  ██████                    1');
    expect(lines).toContain('    Yes           ████████████████████████  2  67%');
    expect(lines).toContain('    <b>Maybe</b>                            0  0%');
    expect(lines.find((line) => line.includes('How were the numbers made?'))).toMatch(/█+ {2}4 {2}answered$/);
    expect(lines).toContain(
      '  AGENT                                         MINUTES  FIRST SEEN            LAST SEEN',
    );
    expect(lines).toContain(
      '  @ada                                          58.3     2027-03-04 18:00 UTC  2027-03-04 19:00 UTC',
    );
  });

  it('prints nothing a terminal would run: control characters in what people wrote become spaces', () => {
    const report = fullReport();
    report.questions.top[0]!.body = 'Hi\u001b[2J\u001b]0;owned\u0007 there\nnext line';
    report.polls[0]!.question = 'Poll\rOverwritten';
    const text = reportLines(report, 'Title\u001b[31m').join('\n');
    expect(text).not.toMatch(/\p{Cc}(?<!\n)/u);
    expect(text).toContain('Hi [2J ]0;owned  there next line');
    expect(text).toContain('Poll Overwritten');
    expect(text).toContain('"Title [31m"');
  });

  it('reads well for an event nobody came to', () => {
    const lines = reportLines(emptyReport());
    expect(lines[0]).toBe('e1: scheduled, report of 2027-03-04 17:00 UTC');
    expect(lines).toContain('  revenue        none');
    expect(lines.join('\n')).toContain('registrations over time\n  no data yet');
    expect(lines.join('\n')).toContain('viewers over time\n  no data yet');
    expect(lines.join('\n')).toContain('tickets by tier\n  none');
    expect(lines.join('\n')).toContain('attendance\n  nobody seen yet');
  });

  it('prints a series of one point with its one time', () => {
    const lines = reportLines(fullReport({ registrationPoints: 1 }));
    expect(lines).toContain('registrations over time (1 point, 2027-03-04 08:00 UTC)');
    expect(lines).toContain('  █  7');
  });
});

describe('reportSummary', () => {
  it('says the report in one line', () => {
    expect(reportSummary(fullReport())).toBe(
      'Report of e1 (past): 7 registrations, revenue 0.0065 USDC (ledger), 2.5 USDC (solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp), 1 refund; 3 present, peak 5 viewers at once; 4 questions, 2 polls, 12 stage messages.',
    );
    expect(reportSummary(emptyReport())).toBe(
      'Report of e1 (scheduled): 0 registrations, revenue none, 0 refunds; 0 present, peak 0 viewers at once; 0 questions, 0 polls, 0 stage messages.',
    );
  });
});

describe('percentOf', () => {
  it('is a whole percent of the ballots, 0 without any', () => {
    expect(percentOf(2, 3)).toBe('67%');
    expect(percentOf(0, 0)).toBe('0%');
  });
});
