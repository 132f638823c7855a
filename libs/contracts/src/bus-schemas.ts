import { z } from 'zod';

/**
 * What only NATS carries, as zod schemas: domain-event payloads and parts of the request/reply
 * packets that no HTTP reply shows. As `replySchemas` are the OpenAPI document's components,
 * these are the AsyncAPI document's (GET /asyncapi.json): each becomes
 * `#/components/schemas/<id>` there, and stays out of the OpenAPI document (where it would be an
 * unused component).
 */
export const busSchemas = z.registry<{ id: string; description?: string }>();

/** Registers `schema` as the AsyncAPI component `id`. */
export function busSchema<S extends z.ZodType>(schema: S, id: string, description?: string): S {
  busSchemas.add(schema, description === undefined ? { id } : { id, description });
  return schema;
}
