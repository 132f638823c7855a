import type { EngagementAnswer, HolderSales } from '@townhall/contracts';
import {
  csvCell,
  csvLine,
  minutesCell,
  REPORT_CSV_COLUMNS,
  REPORT_CSV_EXAMPLE,
  reportCsv,
  reportCsvFilename,
} from './report-csv.js';

const ADA = '7zY1zThH8MiGHiiutWjXrY4m9vReseAfUhFsV7CpVyof';
const BOB = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const CYD = 'GjwcWFQYzemBtpUoN5fMAP2FZviTtMRWCmrppGuTthJS';
const AT = '2027-03-04T19:00:00.000Z';

function holder(agentId: string, overrides: Partial<HolderSales> = {}): HolderSales {
  return { agentId, tierId: 'general', code: null, paid: '1000', asset: 'USDC', refunded: '0', ...overrides };
}

function engagement(
  byAgent: Array<{ agentId: string; minutes: number }>,
  agents: EngagementAnswer['agents'],
): EngagementAnswer {
  return {
    report: {
      attendance: {
        present: byAgent.length,
        peakConcurrent: byAgent.length,
        viewersOverTime: [],
        byAgent: byAgent.map((agent) => ({ ...agent, firstSeenAt: AT, lastSeenAt: AT })),
      },
      questions: { asked: 0, promoted: 0, upvotes: 0, top: [] },
      polls: [],
      stage: { messages: 0 },
    },
    agents,
  };
}

/** A CSV's records, each as its cells (a reader that knows RFC 4180 quoting). */
function parse(csv: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let at = 0; at < csv.length; at++) {
    const char = csv[at]!;
    if (quoted) {
      if (char === '"' && csv[at + 1] === '"') {
        cell += '"';
        at++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(cell);
      cell = '';
    } else if (char === '\r' && csv[at + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      at++;
    } else cell += char;
  }
  expect(record).toEqual([]);
  return records;
}

describe('csvCell (RFC 4180 quoting)', () => {
  it('leaves a plain cell as it is', () => {
    expect(csvCell('general')).toBe('general');
    expect(csvCell('')).toBe('');
    expect(csvCell('42.5')).toBe('42.5');
    expect(csvCell("it's")).toBe("it's");
  });

  it('quotes a cell with a comma, a quote, CR or LF, doubling its quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvCell('"')).toBe('""""');
  });
});

describe('csvCell (formulas)', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1:A2)', '\tx', '\rx'])(
    'makes %j inert with a leading quote',
    (value) => {
      expect(csvCell(value).replace(/^"/, '')).toMatch(/^'/);
    },
  );

  it('keeps a formula inert even where the cell is quoted', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","click")')).toBe(
      `"'=HYPERLINK(""http://evil.example"",""click"")"`,
    );
    expect(csvCell('=1,2')).toBe(`"'=1,2"`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
  });

  it('leaves the characters alone anywhere but at the start', () => {
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell('a-b+c@d')).toBe('a-b+c@d');
  });
});

describe('csvLine', () => {
  it('joins cells with commas and ends the record in CRLF', () => {
    expect(csvLine(['a', 'b,c', ''])).toBe('a,"b,c",\r\n');
  });
});

describe('minutesCell', () => {
  it('rounds to a hundredth and drops trailing zeros', () => {
    expect(minutesCell(0)).toBe('0');
    expect(minutesCell(42.5)).toBe('42.5');
    expect(minutesCell(91 / 60)).toBe('1.52');
    expect(minutesCell(60)).toBe('60');
  });
});

describe('reportCsvFilename', () => {
  it('names the event, and nothing that could break the header out of its quotes', () => {
    expect(reportCsvFilename('0f6c2a9e-4b1d-4c7e-9a3f-2b8d6e1f0a5c')).toBe(
      'event-0f6c2a9e-4b1d-4c7e-9a3f-2b8d6e1f0a5c-report.csv',
    );
    expect(reportCsvFilename('a"b\r\n;c/..')).toBe('event-a_b___c___-report.csv');
  });
});

describe('reportCsv', () => {
  it('writes the header, then one line per holder, in the order ticketing gave them', () => {
    const csv = reportCsv(
      [
        holder(ADA, { tierId: 'vip', paid: '4000' }),
        holder(BOB, { code: 'HALF', paid: '500', refunded: '500' }),
        holder(CYD),
      ],
      engagement(
        [
          { agentId: ADA, minutes: 42.5 },
          { agentId: BOB, minutes: 91 / 60 },
        ],
        [
          { agentId: CYD, questionsAsked: 2, votesCast: 1 },
          { agentId: ADA, questionsAsked: 0, votesCast: 3 },
        ],
      ),
      new Map([
        [ADA, 'ada'],
        [BOB, null],
      ]),
    );
    expect(csv.endsWith('\r\n')).toBe(true);
    expect(csv.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    expect(parse(csv)).toEqual([
      [...REPORT_CSV_COLUMNS],
      [ADA, 'ada', 'vip', '', '4000', '0', '42.5', '0', '3'],
      [BOB, '', 'general', 'HALF', '500', '500', '1.52', '0', '0'],
      [CYD, '', 'general', '', '1000', '0', '0', '2', '1'],
    ]);
  });

  it('lists only ticket holders: an agent engagement saw without a ticket is left out', () => {
    const csv = reportCsv(
      [holder(ADA)],
      engagement([{ agentId: BOB, minutes: 5 }], [{ agentId: BOB, questionsAsked: 1, votesCast: 0 }]),
      new Map(),
    );
    expect(parse(csv)).toEqual([
      [...REPORT_CSV_COLUMNS],
      [ADA, '', 'general', '', '1000', '0', '0', '0', '0'],
    ]);
  });

  it('is the header alone for an event without holders', () => {
    expect(reportCsv([], engagement([], []), new Map())).toBe(`${REPORT_CSV_COLUMNS.join(',')}\r\n`);
  });

  it('quotes and defuses whatever a service sends in a text column', () => {
    const csv = reportCsv(
      [holder(ADA, { tierId: '=cmd|"/c calc"!A0', code: '@x,y' })],
      engagement([], []),
      new Map([[ADA, '+evil']]),
    );
    const line = csv.split('\r\n')[1]!;
    expect(line).toBe(`${ADA},'+evil,"'=cmd|""/c calc""!A0","'@x,y",1000,0,0,0,0`);
    expect(parse(csv)[1]).toEqual([ADA, "'+evil", `'=cmd|"/c calc"!A0`, "'@x,y", '1000', '0', '0', '0', '0']);
  });

  it('documents an example that is itself such a CSV', () => {
    const records = parse(REPORT_CSV_EXAMPLE);
    expect(records[0]).toEqual([...REPORT_CSV_COLUMNS]);
    for (const record of records) expect(record).toHaveLength(REPORT_CSV_COLUMNS.length);
  });
});
