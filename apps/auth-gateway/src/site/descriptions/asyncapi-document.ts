import * as contracts from '@townhall/contracts';
import {
  busSchemas,
  CloudEventSchema,
  domainEventCatalog,
  MessageMetaSchema,
  RemoteErrorSchema,
  replySchemas,
  TOWNHALL_STREAM,
  TOWNHALL_SUBJECTS,
  type Contract,
  type DomainEventSpec,
} from '@townhall/contracts';
import { z } from 'zod';
import { natsServers } from './asyncapi-servers.js';
import { componentsOf, openObjects, tidy } from './json-schema-shape.js';

type Json = Record<string, unknown>;
type AnyContract = Contract<z.ZodType, unknown>;

export interface AsyncApiDocument {
  asyncapi: string;
  id: string;
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; url: string };
    tags: Array<{ name: string; description?: string }>;
  };
  servers: Record<string, Json>;
  defaultContentType: string;
  channels: Record<string, Json>;
  operations: Record<string, Json>;
  components: { schemas: Record<string, Json>; messages: Record<string, Json> };
}

export interface AsyncApiOptions {
  /** The gateway's version, as the OpenAPI document says it. */
  version: string;
  /** NATS_URL as configured: shown by host and port only, never with credentials. */
  natsUrl?: string | undefined;
}

/** A contract of @townhall/contracts and, when one of its HTTP routes states it, its reply schema. */
export interface BusContract {
  contract: AnyContract;
  reply: z.ZodType | undefined;
}

/**
 * The services that own the subjects, as tags (a domain event's `source`, a pattern's first
 * word); a service missing here gets its tag without a description.
 */
const SERVICE_TAGS: Readonly<Record<string, string>> = {
  directory: "Agents' directory cards",
  events: 'Events and recurring series',
  ticketing: 'Tickets, payments and the ledger',
  engagement: 'The stage, questions, polls, moderation and recordings',
  webhooks: 'Webhook subscriptions and their deliveries',
};

const SCHEMA_REF = '#/components/schemas/';

/**
 * Builds the AsyncAPI 3.0 document of every NATS subject from @townhall/contracts, the same zod
 * schemas the services use: one channel per domain event type of `domainEventCatalog` (a
 * CloudEvent whose `data` is the type's schema; operation `receive`), and one per request/reply
 * contract (operation `send` with its `reply`, which NATS delivers to the requester's inbox).
 */
export function buildAsyncApiDocument(options: AsyncApiOptions): AsyncApiDocument {
  const components = new ComponentSchemas();
  const channels: Record<string, Json> = {};
  const operations: Record<string, Json> = {};
  const messages: Record<string, Json> = {};
  const services = new Set<string>();
  const serviceOf = (name: string) => {
    services.add(name);
    return name;
  };

  for (const [type, spec] of Object.entries(domainEventCatalog) as Array<[string, DomainEventSpec]>) {
    messages[type] = domainEventMessage(type, spec, components);
    channels[type] = {
      address: type,
      title: type,
      summary: spec.summary,
      messages: { [type]: { $ref: `#/components/messages/${type}` } },
    };
    operations[`receive.${type}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${type}` },
      title: `Receive ${type}`,
      summary: spec.summary,
      description: `Published by \`${spec.source}\` through its outbox, at least once; dedupe on the envelope's \`id\`.`,
      tags: [{ name: serviceOf(spec.source.replace('townhall/', '')) }],
      messages: [{ $ref: `#/channels/${type}/messages/${type}` }],
    };
  }

  for (const { contract, reply } of busContracts()) {
    const { pattern } = contract;
    const replyChannel = `${pattern}.reply`;
    messages[`${pattern}.request`] = requestMessage(contract);
    messages[`${pattern}.reply`] = replyMessage(pattern, reply, components);
    channels[pattern] = {
      address: pattern,
      title: pattern,
      description: `Requests to the \`${serviceOf(pattern.split('.')[0]!)}\` service, served by one replica of its queue group.`,
      messages: { request: { $ref: `#/components/messages/${pattern}.request` } },
    };
    channels[replyChannel] = {
      // Dynamic: NATS sends the reply to the request's reply subject (the requester's inbox).
      address: null,
      title: `${pattern} (reply)`,
      description: "The requester's inbox: the reply subject NATS gave the request (`_INBOX.>`).",
      messages: { reply: { $ref: `#/components/messages/${pattern}.reply` } },
    };
    operations[`send.${pattern}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${pattern}` },
      title: `Request ${pattern}`,
      ...(reply ? {} : { description: 'The reply type has no schema yet: `response` is shown without one.' }),
      tags: [{ name: serviceOf(pattern.split('.')[0]!) }],
      messages: [{ $ref: `#/channels/${pattern}/messages/request` }],
      reply: {
        channel: { $ref: `#/channels/${replyChannel}` },
        messages: [{ $ref: `#/channels/${replyChannel}/messages/reply` }],
      },
    };
  }

  return {
    asyncapi: '3.0.0',
    id: 'urn:townhall:nats',
    info: {
      title: 'Townhall NATS messages',
      version: options.version,
      description: DESCRIPTION,
      license: { name: 'Apache 2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      tags: [...services].map((name) => ({
        name,
        ...(SERVICE_TAGS[name] ? { description: SERVICE_TAGS[name] } : {}),
      })),
    },
    servers: natsServers(options.natsUrl),
    defaultContentType: 'application/json',
    channels,
    operations,
    components: { schemas: components.toJson(), messages },
  };
}

/**
 * Every request/reply contract exported by @townhall/contracts (the `Events`, `Series`, ...
 * groups), by pattern; the reply schema is the one an HTTP route of the contract states.
 */
export function busContracts(): BusContract[] {
  const exported = Object.values(contracts as Record<string, unknown>).filter(isRecord);
  const replies = new Map<AnyContract, z.ZodType>();
  for (const group of exported)
    for (const route of Object.values(group))
      if (
        isRecord(route) &&
        isContract(route['contract']) &&
        isZod(route['reply']) &&
        !replies.has(route['contract'])
      )
        replies.set(route['contract'], route['reply']);
  const byPattern = new Map<string, AnyContract>();
  for (const group of exported)
    for (const member of Object.values(group)) {
      if (!isContract(member)) continue;
      const known = byPattern.get(member.pattern);
      if (known && known !== member) throw new Error(`two contracts have the pattern ${member.pattern}`);
      byPattern.set(member.pattern, member);
    }
  return [...byPattern.values()]
    .sort((a, b) => a.pattern.localeCompare(b.pattern))
    .map((contract) => ({ contract, reply: replies.get(contract) }));
}

function domainEventMessage(type: string, spec: DomainEventSpec, components: ComponentSchemas): Json {
  const visibility =
    spec.visibility === 'staff'
      ? { const: 'staff', description: 'Always: only the host and moderators may see this event' }
      : spec.visibility
        ? {
            const: 'staff',
            description: `Present when ${spec.visibility.staffWhen}; absent otherwise (public)`,
          }
        : undefined;
  return {
    name: type,
    title: type,
    summary: spec.summary,
    contentType: 'application/json',
    payload: {
      allOf: [
        components.ref(CloudEventSchema),
        {
          type: 'object',
          required: [
            'type',
            'source',
            'subject',
            'data',
            ...(spec.visibility === 'staff' ? ['visibility'] : []),
          ],
          properties: {
            type: { const: type },
            source: { const: spec.source },
            subject: { type: 'string', description: spec.subject },
            data: components.ref(spec.data),
            ...(visibility ? { visibility } : {}),
          },
        },
      ],
    },
  };
}

function requestMessage(contract: AnyContract): Json {
  return {
    name: `${contract.pattern}.request`,
    title: `${contract.pattern} request`,
    contentType: 'application/json',
    headers: {
      type: 'object',
      properties: {
        'x-request-id': { type: 'string', description: 'The request id, also `data.meta.requestId`' },
      },
    },
    payload: {
      type: 'object',
      description: "The packet of Nest's NATS transport: the contract's request is `data.data`",
      required: ['pattern', 'data', 'id'],
      properties: {
        pattern: { const: contract.pattern },
        id: { type: 'string', description: 'Unique per request; the reply carries it back' },
        data: {
          type: 'object',
          required: ['meta', 'data'],
          properties: {
            meta: { $ref: `${SCHEMA_REF}${idOf(MessageMetaSchema)}` },
            data: jsonSchema(contract.request, 'input'),
          },
        },
      },
    },
  };
}

function replyMessage(pattern: string, reply: z.ZodType | undefined, components: ComponentSchemas): Json {
  return {
    name: `${pattern}.reply`,
    title: `${pattern} reply`,
    contentType: 'application/json',
    payload: {
      type: 'object',
      description: 'Either `response` (the reply) or `err` (the refusal)',
      required: ['id'],
      properties: {
        id: { type: 'string', description: "The request's `id`" },
        response: reply ? components.ref(reply) : { description: 'The reply (no schema yet)' },
        err: {
          anyOf: [
            components.ref(RemoteErrorSchema),
            { type: 'string', description: "Nest's own, when no handler serves the pattern" },
          ],
        },
        isDisposed: { type: 'boolean', description: 'true: the last packet of this reply' },
      },
    },
  };
}

/**
 * The schemas messages refer to, each `#/components/schemas/<id>` under the id it has in the
 * OpenAPI document (`replySchemas`) or among the bus' own (`busSchemas`), converted together so
 * that references between them stay references. A schema with neither id is inlined.
 */
class ComponentSchemas {
  private readonly registry = z.registry<{ id: string; description?: string }>();

  constructor() {
    this.add(MessageMetaSchema);
  }

  ref(schema: z.ZodType): Json {
    return this.add(schema) ? { $ref: `${SCHEMA_REF}${idOf(schema)}` } : jsonSchema(schema, 'output');
  }

  private add(schema: z.ZodType): boolean {
    if (this.registry.has(schema)) return true;
    const meta = replySchemas.get(schema) ?? busSchemas.get(schema);
    if (!meta) return false;
    this.registry.add(schema, meta);
    return true;
  }

  toJson(): Record<string, Json> {
    return Object.fromEntries(
      componentsOf(this.registry, 'draft-7', SCHEMA_REF).sort(([a], [b]) => a.localeCompare(b)),
    );
  }
}

function idOf(schema: z.ZodType): string {
  const id = (replySchemas.get(schema) ?? busSchemas.get(schema))?.id;
  if (!id) throw new Error('a component schema without an id');
  return id;
}

/** JSON Schema draft-07, the dialect of AsyncAPI's default schema format. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Json;
  delete json['$schema'];
  return tidy(io === 'output' ? openObjects(json) : json) as Json;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isZod(value: unknown): value is z.ZodType {
  return value instanceof z.ZodType;
}

function isContract(value: unknown): value is AnyContract {
  return isRecord(value) && typeof value['pattern'] === 'string' && isZod(value['request']);
}

const DESCRIPTION = `Every subject Townhall's services use on NATS, generated from \`@townhall/contracts\`: the same
zod schemas the services validate with.

## Domain events (\`receive\`)

Every committed state change is published as a CloudEvents 1.0 JSON envelope on JetStream, on the
subject \`townhall.<aggregate>.<verb>\`, which is also its \`type\` (stream ${TOWNHALL_STREAM}, subjects
\`${TOWNHALL_SUBJECTS}\`, kept 30 days, duplicate window 2 minutes). Delivery is at least once: **dedupe
on \`id\`** (also the JetStream \`Nats-Msg-Id\`). Order across services is not guaranteed; use the
data (an event's \`version\` grows with every change).

\`visibility: "staff"\` (a CloudEvents extension attribute) marks what only the event's host and
moderators may see; the gateway never puts such an event on a live stream, and a consumer that shows
events to agents must apply the same rule. Absent: public. A ticket, waitlist entry, refund, invite or
request to come (\`townhall.ticket.*\`, \`townhall.waitlist.*\`, \`townhall.refund.*\`,
\`townhall.invite.*\`, \`townhall.request.*\`) belongs to its agent: an anonymous live stream carries
it as \`{ eventId, tierId, counts }\` only, and whole only to that agent and the event's host and
moderators (on their signed stream; by webhook, to the agent and the host).

## Requests between services (\`send\`, with a reply)

The gateway and the services ask each other on subjects named by pattern (\`events.event.get\`), in
the packet format of Nest's NATS transport: \`{ pattern, data: { meta, data }, id }\`, where
\`data.data\` is the contract's request. The reply, on the request's reply subject, is
\`{ id, response }\` or \`{ id, err }\` (a \`RemoteError\`, answered over HTTP as problem+json). These
subjects are internal: agents use the HTTP API (\`/openapi.json\`).`;
