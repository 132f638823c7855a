import { Module, type DynamicModule } from '@nestjs/common';
import { domainModule, type DomainModuleOptions } from '@townhall/platform/service';
import { CardBook } from './cards/card-book.js';
import { CardsHandler } from './cards/cards.handler.js';
import { GetCard } from './cards/get-card.js';
import { GetCards } from './cards/get-cards.js';
import { PutCard } from './cards/put-card.js';
import { ResolveHandle } from './cards/resolve-handle.js';
import { DIRECTORY_SCHEMA } from './data-source.js';
import type { DirectorySettings } from './settings.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/directory';

export type DirectoryModuleOptions = DomainModuleOptions<DirectorySettings>;

/** What the module is made of (libs/platform domainModule). */
const LAYOUT = {
  schema: DIRECTORY_SCHEMA,
  source: SOURCE,
  handlers: [CardsHandler],
  useCases: [PutCard, GetCard, GetCards, ResolveHandle],
  parts: [CardBook],
};

@Module({})
export class DirectoryModule {
  /** The DataSource is made by the caller: the NATS app, the standalone host, or a test. */
  static register(options: DirectoryModuleOptions): DynamicModule {
    return domainModule(DirectoryModule, options, LAYOUT);
  }
}
