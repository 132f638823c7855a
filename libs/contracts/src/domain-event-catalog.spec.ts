import { readdirSync, readFileSync } from 'node:fs';
import * as contracts from './index.js';
import { busSchemas } from './bus-schemas.js';
import { domainEventCatalog, isDomainEventType, type DomainEventSpec } from './domain-event-catalog.js';
import { replySchemas } from './replies.js';

const SOURCE_DIR = new URL('./', import.meta.url);
const DOMAIN_EVENTS_DOC = new URL('../../../docs/protocol/domain-events.md', import.meta.url);
/** A whole subject, as services announce it: `townhall.<aggregate>.<verb>` (no wildcards). */
const SUBJECT = /['"`](townhall\.[a-z_]+\.[a-z_]+)['"`]/g;

const catalogTypes = Object.keys(domainEventCatalog).sort();
const HOW_TO_ADD =
  'add each to domainEventCatalog (libs/contracts/src/domain-event-catalog.ts) with the zod schema of its data';

describe('the domain event catalog', () => {
  it('has an entry for every topic of every *Topics constant the library exports, and no other', () => {
    const topics = Object.entries(contracts)
      .filter(([name]) => name.endsWith('Topics'))
      .flatMap(([, topics]) => Object.values(topics as Record<string, string>));
    expect(topics.length).toBeGreaterThan(25);
    const missing = topics.filter((topic) => !isDomainEventType(topic));
    expect({ missing, fix: HOW_TO_ADD }).toEqual({ missing: [], fix: HOW_TO_ADD });
    expect(catalogTypes).toEqual([...new Set(topics)].sort());
  });

  it('has an entry for every subject written anywhere in the library (a topic outside a *Topics constant too)', () => {
    const files = readdirSync(SOURCE_DIR).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'),
    );
    const written = new Set(
      files.flatMap((file) =>
        [...readFileSync(new URL(file, SOURCE_DIR), 'utf8').matchAll(SUBJECT)].map((match) => match[1]!),
      ),
    );
    const missing = [...written].filter((subject) => !isDomainEventType(subject)).sort();
    expect({ missing, fix: HOW_TO_ADD }).toEqual({ missing: [], fix: HOW_TO_ADD });
  });

  it('names each data schema as a component of the API documents (replySchemas or busSchemas)', () => {
    for (const [type, spec] of Object.entries(domainEventCatalog) as Array<[string, DomainEventSpec]>) {
      const id = (replySchemas.get(spec.data) ?? busSchemas.get(spec.data))?.id;
      expect([type, typeof id]).toEqual([type, 'string']);
      expect(spec.source).toMatch(/^townhall\/[a-z]+$/);
      expect(spec.summary.length).toBeGreaterThan(10);
    }
  });

  it('is the table of docs/protocol/domain-events.md, staff-only types said so there too', () => {
    const doc = readFileSync(DOMAIN_EVENTS_DOC, 'utf8');
    const rows = new Map(
      [...doc.matchAll(/^\| `(townhall\.[a-z_]+\.[a-z_]+)` \|(.*)$/gm)].map((match) => [
        match[1]!,
        match[2]!,
      ]),
    );
    expect([...rows.keys()].sort()).toEqual(catalogTypes);
    for (const [type, spec] of Object.entries(domainEventCatalog) as Array<[string, DomainEventSpec]>) {
      const row = rows.get(type) ?? '';
      expect([type, row.includes(`\`${spec.source}\``)]).toEqual([type, true]);
      if (spec.visibility) expect([type, row.includes('staff')]).toEqual([type, true]);
    }
  });

  it('parses what the services announce', () => {
    const question = {
      id: 'q1',
      eventId: 'e1',
      authorId: '11111111111111111111111111111111',
      body: 'Why?',
      upvotes: 0,
      state: 'open',
      reports: 3,
      createdAt: '2030-01-01T00:00:00.000Z',
    };
    const report = { question, reporterId: '22222222222222222222222222222222', reason: null };
    expect(domainEventCatalog['townhall.question.reported'].data.parse(report)).toEqual(report);
    const follow = { seriesId: 's1', agentId: '22222222222222222222222222222222' };
    expect(domainEventCatalog['townhall.series.followed'].data.parse(follow)).toEqual(follow);
  });
});
