import { Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CardsHandler } from './cards/cards.handler.js';
import { CardsService } from './cards/cards.service.js';

@Module({})
export class DirectoryModule {
  /** The DataSource is made by the caller: the NATS app, the standalone host, or a test. */
  static register(dataSource: DataSource): DynamicModule {
    return {
      module: DirectoryModule,
      controllers: [CardsHandler],
      providers: [{ provide: DataSource, useValue: dataSource }, CardsService],
    };
  }
}
