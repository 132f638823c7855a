import type { ConsumerGate } from '../outbox/consumer-gate.js';
/** A method run every `every` milliseconds on each replica (@Periodic). */
export interface PeriodicDeclaration {
  kind: 'periodic';
  method: string;
  /** The service setting that holds the interval in milliseconds. */
  every: string;
  runAtStart: boolean;
  when: ((config: never) => boolean) | undefined;
}

/** A method that consumes the domain events of `topic` as the durable consumer `durable` (@OnDomainEvent). */
export interface ConsumerDeclaration {
  kind: 'consumer';
  method: string;
  topic: string;
  durable: string;
  batch: boolean;
  /** How long a batch waits for more events after its first (OnDomainEventOptions.gatherMs). */
  gatherMs: number;
  /** The provider whose gate pauses the consumer (OnDomainEventOptions.gate). */
  gate?: GateProvider | undefined;
}

/** A provider class whose instance is a ConsumerGate (resolved from the service's app). */
export type GateProvider = abstract new (...args: never[]) => ConsumerGate;

export type HandlerDeclaration = PeriodicDeclaration | ConsumerDeclaration;

/** A declaration as its decorator states it; the method is the one it marks. */
export type UnplacedDeclaration = Omit<PeriodicDeclaration, 'method'> | Omit<ConsumerDeclaration, 'method'>;

/** What a decorator is given as its target: the prototype of the class whose method it marks. */
type Prototype = { constructor: object };
/** A class, as far as messages need it. */
type Named = { name: string };

/**
 * A @Periodic or @OnDomainEvent that cannot run as declared: an unknown topic, a setting that is
 * not one, a durable named twice, a class that no module provides. Thrown at start, naming it.
 */
export class HandlerDeclarationError extends Error {
  override readonly name = 'HandlerDeclarationError';
}

// Every class this process has loaded with a marked method. Nest's discovery sees only what a
// module provides; this also sees a class that no module does, so that it fails the start.
const declared = new Map<object, HandlerDeclaration[]>();
// The classes of `declared` that a started service provides.
const provided = new Set<object>();

/** Records a decorator's declaration on the class of `target`. */
export function recordDeclaration(
  target: object,
  method: string | symbol,
  declaration: UnplacedDeclaration,
): void {
  if (typeof target === 'function' || typeof method === 'symbol')
    throw new HandlerDeclarationError(`@${kindOf(declaration)} marks an instance method named by a string`);
  const type = (target as Prototype).constructor;
  declared.set(type, [...(declared.get(type) ?? []), { ...declaration, method }]);
}

/** The declarations of `instance`'s class and of the classes it extends, each with its class. */
export function declarationsOf(instance: object): Array<{ type: Named; declaration: HandlerDeclaration }> {
  const found: Array<{ type: Named; declaration: HandlerDeclaration }> = [];
  for (let prototype = Object.getPrototypeOf(instance) as Prototype | null; prototype;) {
    const type = prototype.constructor;
    for (const declaration of declared.get(type) ?? []) found.push({ type: type as Named, declaration });
    prototype = Object.getPrototypeOf(prototype) as Prototype | null;
  }
  return found;
}

/** Marks `instance`'s class (and those it extends) as provided by a started service. */
export function markProvided(instance: object): void {
  for (let prototype = Object.getPrototypeOf(instance) as Prototype | null; prototype;) {
    if (declared.has(prototype.constructor)) provided.add(prototype.constructor);
    prototype = Object.getPrototypeOf(prototype) as Prototype | null;
  }
}

/**
 * Every loaded class with a marked method is provided by a service started in this process;
 * otherwise its handlers would silently never run. Checked once all of the process's services
 * have started (standalone mode runs five), so a class of a service still to come is not missing.
 */
export function assertEveryHandlerProvided(): void {
  const missing = [...declared]
    .filter(([type]) => !provided.has(type))
    .flatMap(([type, declarations]) =>
      declarations.map((declaration) => labelOf((type as Named).name, declaration)),
    );
  if (missing.length > 0)
    throw new HandlerDeclarationError(
      `No started service provides these handlers' classes (add each class to its module's providers):\n  ${missing.join('\n  ')}`,
    );
}

/** `OfferExpiry.expireDue (@Periodic every WAITLIST_SWEEP_INTERVAL_MS)`: how errors name a handler. */
export function labelOf(className: string, declaration: HandlerDeclaration): string {
  const decorator =
    declaration.kind === 'periodic'
      ? `@Periodic every ${declaration.every}`
      : `@OnDomainEvent ${declaration.topic} as ${declaration.durable}`;
  return `${className}.${declaration.method} (${decorator})`;
}

function kindOf(declaration: UnplacedDeclaration): string {
  return declaration.kind === 'periodic' ? 'Periodic' : 'OnDomainEvent';
}
