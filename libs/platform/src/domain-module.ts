import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from './logger.js';
import { OutboxWriter, type OutboxRelay } from './outbox/index.js';
import { SERVICE_CLIENT, type ServiceClient } from './service-client.js';

/** The service's logger. */
export const LOGGER = Symbol('Logger');
/** The service's settings: one typed object per service, read from its configuration once. */
export const SETTINGS = Symbol('Settings');
/** "Now" for what the service stamps itself; the machine's clock unless a test gives another. */
export const CLOCK = Symbol('Clock');

/** The current time; injected so that tests can fix it. */
export type Clock = () => Date;

/** What every domain service's module is registered with (plus what the service alone needs). */
export interface DomainModuleOptions<Settings> {
  dataSource: DataSource;
  relay: OutboxRelay;
  services: ServiceClient;
  logger: Logger;
  settings: Settings;
  clock?: Clock;
}

/** The same for a service that publishes no domain events: it has no outbox, so no relay. */
export type DomainModuleWithoutOutboxOptions<Settings> = Omit<DomainModuleOptions<Settings>, 'relay'>;

/** What a domain service's module is made of (see domainModule). */
export interface DomainModuleLayout {
  handlers: Type[];
  useCases: Type[];
  parts: Type[];
  provide?: Provider[];
}

/**
 * A domain service's module, laid out the same way in every service:
 * - `handlers`: its NATS controllers, one per feature, each only delegating to a use case;
 * - `useCases`: one class per operation (a file of its own), which holds the operation's rules;
 * - `parts`: what use cases share (books of rows, projections, consumers, periodic jobs);
 * - `provide`: values only this service has (its payment rails, its signer).
 * The database and the outbox writer are provided as their classes; the service client
 * (`SERVICE_CLIENT`), the logger, the settings and the clock under their tokens.
 */
export function domainModule<Settings>(
  module: Type,
  options: DomainModuleOptions<Settings>,
  layout: DomainModuleLayout & {
    /** The service's schema, where its outbox lives. */
    schema: string;
    /** The `source` of every CloudEvent the service publishes, e.g. `townhall/events`. */
    source: string;
  },
): DynamicModule {
  const outbox = new OutboxWriter(options.dataSource, options.relay, {
    schema: layout.schema,
    source: layout.source,
  });
  return laidOut(module, options, layout, [{ provide: OutboxWriter, useValue: outbox }]);
}

/**
 * The module of a domain service that publishes no domain events, laid out as domainModule's
 * with everything but the outbox writer. The webhooks service is one: it consumes every domain
 * event (`townhall.>`), so events of its own would come back to it. Its definition declares no
 * outbox, and nothing here asks for the relay it would then not have.
 */
export function domainModuleWithoutOutbox<Settings>(
  module: Type,
  options: DomainModuleWithoutOutboxOptions<Settings>,
  layout: DomainModuleLayout,
): DynamicModule {
  return laidOut(module, options, layout, []);
}

function laidOut<Settings>(
  module: Type,
  options: DomainModuleWithoutOutboxOptions<Settings>,
  layout: DomainModuleLayout,
  outbox: Provider[],
): DynamicModule {
  return {
    module,
    controllers: layout.handlers,
    providers: [
      { provide: DataSource, useValue: options.dataSource },
      ...outbox,
      { provide: SERVICE_CLIENT, useValue: options.services },
      { provide: LOGGER, useValue: options.logger },
      { provide: SETTINGS, useValue: options.settings },
      { provide: CLOCK, useValue: options.clock ?? (() => new Date()) },
      ...(layout.provide ?? []),
      ...layout.useCases,
      ...layout.parts,
    ],
  };
}
