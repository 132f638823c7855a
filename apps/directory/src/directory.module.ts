import { Module, type DynamicModule } from '@nestjs/common';
import { OutboxWriter, type OutboxRelay } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { CardsHandler } from './cards/cards.handler.js';
import { CardsService } from './cards/cards.service.js';
import { DIRECTORY_SCHEMA } from './data-source.js';

/** The `source` of every CloudEvent this service publishes. */
export const SOURCE = 'townhall/directory';

@Module({})
export class DirectoryModule {
  /** The DataSource is made by the caller: the NATS app, the standalone host, or a test. */
  static register(dataSource: DataSource, relay: OutboxRelay): DynamicModule {
    return {
      module: DirectoryModule,
      controllers: [CardsHandler],
      providers: [
        { provide: DataSource, useValue: dataSource },
        {
          provide: OutboxWriter,
          useValue: new OutboxWriter(dataSource, relay, { schema: DIRECTORY_SCHEMA, source: SOURCE }),
        },
        CardsService,
      ],
    };
  }
}
