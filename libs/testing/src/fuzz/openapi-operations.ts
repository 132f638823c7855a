/**
 * The routes the fuzzer attacks, read from the OpenAPI 3.1 document the running gateway publishes
 * (GET /openapi.json, built from the controllers' metadata): nothing here lists a route by hand, so
 * a route added to the gateway is fuzzed without touching this folder.
 */

/** A JSON Schema object of the document (OpenAPI 3.1 uses JSON Schema 2020-12). */
export type JsonSchema = { [keyword: string]: unknown };

export interface OpenApiParameterDoc {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
  $ref?: string;
}

export interface OpenApiOperationDoc {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: OpenApiParameterDoc[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }>; $ref?: string };
}

export interface OpenApiDoc {
  openapi: string;
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, OpenApiOperationDoc>>;
  components?: Record<string, Record<string, unknown>>;
}

export interface FuzzParameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface FuzzOperation {
  operationId: string;
  /** Upper case. */
  method: string;
  /** The OpenAPI path template, e.g. `/events/{id}/questions/{qid}/upvote`. */
  path: string;
  pathParams: FuzzParameter[];
  queryParams: FuzzParameter[];
  headerParams: FuzzParameter[];
  body: { schema: JsonSchema; required: boolean; contentType: string } | undefined;
  /** The operation names a security requirement: the gateway checks the signature (docs/api.md "Calling it"). */
  signed: boolean;
  /** POST, PUT, PATCH or DELETE: a refusal of it must change nothing. */
  write: boolean;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Follows a local `#/components/...` reference; anything else is returned as it is. */
export function dereference<T>(doc: OpenApiDoc, value: T): T {
  let current: unknown = value;
  for (let hops = 0; hops < 20; hops++) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return current as T;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, part) =>
          (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
        doc,
      );
  }
  throw new Error(`reference loop at ${String((value as { $ref?: unknown }).$ref)}`);
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDoc): FuzzOperation[] {
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.')) {
    throw new Error(`not an OpenAPI 3 document (openapi: ${String(doc.openapi)})`);
  }
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const operation = dereference(doc, raw);
      const parameters = (operation.parameters ?? []).map((parameter) => dereference(doc, parameter));
      const of = (place: string): FuzzParameter[] =>
        parameters
          .filter((parameter) => parameter.in === place)
          .map((parameter) => ({
            name: parameter.name,
            required: parameter.required === true,
            schema: dereference(doc, parameter.schema ?? {}),
          }));
      const requestBody = operation.requestBody ? dereference(doc, operation.requestBody) : undefined;
      const [contentType, media] = Object.entries(requestBody?.content ?? {})[0] ?? [];
      operations.push({
        operationId: operation.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: of('path'),
        queryParams: of('query'),
        headerParams: of('header'),
        body:
          contentType === undefined
            ? undefined
            : {
                schema: dereference(doc, media?.schema ?? {}),
                required: requestBody?.required === true,
                contentType,
              },
        signed: (operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0),
        write: WRITES.has(method.toUpperCase()),
      });
    }
  }
  return operations;
}
