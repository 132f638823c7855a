import {
  bazaarResourceServerExtension,
  declareDiscoveryExtension,
  type DiscoveryExtension,
} from '@x402/extensions/bazaar';

export const BAZAAR_KEY = 'bazaar';

/** A paid route with a JSON body, as a facilitator's discovery (the Bazaar) lists it. */
export interface JsonRouteDiscovery {
  method: 'POST' | 'PUT' | 'PATCH';
  /** The route as it is mounted, `/events/:id/rsvp`: its path parameters become `pathParams`. */
  routePattern: string;
  /** The path this 402 answered, `/events/<id>/rsvp`. */
  path: string;
  /** An example body, and the JSON Schema of the body. */
  body: Record<string, unknown>;
  bodySchema: Record<string, unknown>;
  /** An example of the answer, and the JSON Schema of it. */
  output: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

/**
 * The `bazaar` extension of a 402 for a JSON route (docs/protocol/payments.md "bazaar"): the
 * package's `declareDiscoveryExtension` (input, output), enriched as its resource server does for
 * the request (`bazaarResourceServerExtension.enrichDeclaration`: the method, the route template
 * and its path parameters). The package's own validation, which a facilitator runs before it
 * lists a resource, is the tests' (extensions.spec.ts, the e2e): it compiles its JSON Schemas with
 * Ajv on every call, 5 ms of a 402's CPU, and a burst of 402s was shed as `service.overloaded`.
 */
export function bazaarExtension(route: JsonRouteDiscovery): DiscoveryExtension {
  const declared = declareDiscoveryExtension({
    bodyType: 'json',
    input: route.body,
    inputSchema: route.bodySchema,
    output: { example: route.output, schema: route.outputSchema },
  })[BAZAAR_KEY]!;
  return bazaarResourceServerExtension.enrichDeclaration!(declared, {
    method: route.method,
    routePattern: route.routePattern,
    adapter: { getPath: () => route.path },
  }) as DiscoveryExtension;
}
