import { readFileSync } from 'node:fs';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { domainEventCatalog, Events, Series, Tickets } from '@townhall/contracts';
import { buildAsyncApiDocument, busContracts, type AsyncApiDocument } from './asyncapi-document.js';
import { natsServers } from './asyncapi-servers.js';

type Json = Record<string, unknown>;

const VERSION = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'))
  .version as string;

describe('the AsyncAPI document of the NATS subjects', () => {
  const document = buildAsyncApiDocument({
    version: VERSION,
    natsUrl: 'nats://user:secret@nats.internal:4222',
  });

  it('is valid AsyncAPI 3.0 under the parser: no errors, no warnings', async () => {
    const diagnostics = await new Parser().validate(asInput(structuredClone(document)));
    const lines = diagnostics.map(
      (diagnostic) =>
        `${DiagnosticSeverity[diagnostic.severity]} ${String(diagnostic.code)}: ${diagnostic.message} at ${diagnostic.path.join('.')}`,
    );
    // The one information left: 3.1.0 exists. 3.0.0 is what the issue asks for and what most tools read.
    expect(lines.filter((line) => !line.startsWith('Information asyncapi-latest-version'))).toEqual([]);
    expect(document.asyncapi).toBe('3.0.0');

    // The same parser does fail a broken copy: a reference to nowhere, an unknown action.
    const broken = structuredClone(document);
    (broken.operations['send.events.event.get'] as Json)['action'] = 'publish';
    (payloadOf(broken, 'townhall.event.started').allOf[1]!.properties['data'] as Json)['$ref'] =
      '#/components/schemas/Nope';
    const errors = (await new Parser().validate(asInput(broken))).filter(
      (diagnostic) => diagnostic.severity === DiagnosticSeverity.Error,
    );
    expect(errors.map((diagnostic) => diagnostic.path.join('.'))).toEqual(
      expect.arrayContaining([
        'operations.send.events.event.get.action',
        'components.messages.townhall.event.started.payload.allOf.1.properties.data.$ref',
      ]),
    );
  });

  it('has a channel and a receive operation for every domain event type, its data the catalog schema', () => {
    const types = Object.keys(domainEventCatalog);
    expect(types.length).toBeGreaterThan(25);
    for (const type of types) {
      expect(document.channels[type]).toMatchObject({ address: type });
      expect(document.operations[`receive.${type}`]).toMatchObject({
        action: 'receive',
        channel: { $ref: `#/channels/${type}` },
      });
    }
    const started = payloadOf(document, 'townhall.event.started');
    expect(started.allOf[0]).toEqual({ $ref: '#/components/schemas/CloudEvent' });
    expect(started.allOf[1]!.properties).toMatchObject({
      type: { const: 'townhall.event.started' },
      source: { const: 'townhall/events' },
      data: { $ref: '#/components/schemas/Event' },
    });
    expect(payloadOf(document, 'townhall.question.submitted').allOf[1]!.properties['data']).toEqual({
      $ref: '#/components/schemas/Question',
    });
    expect(payloadOf(document, 'townhall.ticket.issued').allOf[1]!.properties['data']).toEqual({
      $ref: '#/components/schemas/Ticket',
    });
    expect(payloadOf(document, 'townhall.series.followed').allOf[1]!.properties['data']).toEqual({
      $ref: '#/components/schemas/SeriesFollowChange',
    });
  });

  it('marks the staff-only events with the visibility attribute', () => {
    const reported = payloadOf(document, 'townhall.question.reported').allOf[1]!;
    expect(reported.required).toContain('visibility');
    expect(reported.properties['visibility']).toMatchObject({ const: 'staff' });
    expect(reported.properties['data']).toEqual({ $ref: '#/components/schemas/QuestionReported' });
    const submitted = payloadOf(document, 'townhall.question.submitted').allOf[1]!;
    expect(submitted.required).not.toContain('visibility');
    expect(String((submitted.properties['visibility'] as Json)['description'])).toContain('pending');
    expect(payloadOf(document, 'townhall.stage.posted').allOf[1]!.properties).not.toHaveProperty(
      'visibility',
    );
    const envelope = document.components.schemas['CloudEvent'] as { properties: Json };
    expect(envelope.properties['visibility']).toMatchObject({ const: 'staff' });
  });

  it('has every request/reply contract as a send operation with its reply, by pattern', () => {
    const patterns = busContracts().map(({ contract }) => contract.pattern);
    expect(patterns).toEqual(
      expect.arrayContaining([Events.get.pattern, Series.list.pattern, Tickets.rsvp.pattern]),
    );
    for (const pattern of patterns) {
      expect(document.channels[pattern]).toMatchObject({ address: pattern });
      expect(document.channels[`${pattern}.reply`]).toMatchObject({ address: null });
      expect(document.operations[`send.${pattern}`]).toMatchObject({
        action: 'send',
        channel: { $ref: `#/channels/${pattern}` },
        reply: { channel: { $ref: `#/channels/${pattern}.reply` } },
      });
    }
    const request = document.components.messages['events.event.get.request'] as {
      payload: { properties: { pattern: Json; data: { properties: { meta: Json; data: Json } } } };
    };
    expect(request.payload.properties.pattern).toEqual({ const: 'events.event.get' });
    expect(request.payload.properties.data.properties.meta).toEqual({
      $ref: '#/components/schemas/MessageMeta',
    });
    expect(request.payload.properties.data.properties.data).toMatchObject({
      type: 'object',
      required: ['eventId'],
    });
    const reply = document.components.messages['events.event.get.reply'] as {
      payload: { properties: { response: Json; err: { anyOf: Json[] } } };
    };
    expect(reply.payload.properties.response).toEqual({ $ref: '#/components/schemas/Event' });
    expect(reply.payload.properties.err.anyOf[0]).toEqual({ $ref: '#/components/schemas/RemoteError' });
    const list = document.components.messages['events.series.list.reply'] as {
      payload: { properties: Json };
    };
    expect(list.payload.properties['response']).toEqual({ $ref: '#/components/schemas/SeriesPage' });
  });

  it('keeps references between components and defines each one it refers to', () => {
    const recording = document.components.schemas['Recording'] as {
      properties: { transcript: { properties: { stage: Json } } };
    };
    expect(recording.properties.transcript.properties.stage).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/StageMessage' },
    });
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map(
      (match) => match[1]!,
    );
    for (const id of new Set(refs)) expect(document.components.schemas).toHaveProperty([id]);
    // Every component is referred to (no unused ones).
    expect(Object.keys(document.components.schemas).sort()).toEqual([...new Set(refs)].sort());
  });

  it("names the gateway's version and the configured NATS server by host only", () => {
    expect(document.info.version).toBe(VERSION);
    expect(document.servers).toEqual({
      nats: expect.objectContaining({ host: 'nats.internal:4222', protocol: 'nats' }),
    });
    expect(JSON.stringify(document)).not.toContain('secret');
    expect(natsServers('nats://a:4222, tls://token@b:4223,nats://a:4222')).toEqual({
      nats: expect.objectContaining({ host: 'a:4222' }),
      'nats-2': expect.objectContaining({ host: 'b:4223' }),
    });
    expect(natsServers(undefined)['nats']).toMatchObject({
      host: '{host}',
      variables: { host: { default: 'localhost:4222' } },
    });
  });
});

interface EventPayload {
  allOf: Array<{ required: string[]; properties: Json } & Json>;
}

function payloadOf(document: AsyncApiDocument, type: string): EventPayload {
  return (document.components.messages[type] as { payload: EventPayload }).payload;
}

/** The parser reads a plain object (it resolves the $refs in place: give it a copy). */
function asInput(document: AsyncApiDocument): Parameters<Parser['validate']>[0] {
  return document as unknown as Parameters<Parser['validate']>[0];
}
