import { createSchemaDataSource, type PoolSettings } from '@townhall/platform/service';
import type { DataSource } from 'typeorm';
import { CreateCards1763700000000 } from './migrations/1763700000000-create-cards.js';
import { CardEvents1766200000000 } from './migrations/1766200000000-card-events.js';
import { OutboxClaims1767000000000 } from './migrations/1767000000000-outbox-claims.js';
import { OutboxPublishedDeleted1767500000000 } from './migrations/1767500000000-outbox-published-deleted.js';

export const DIRECTORY_SCHEMA = 'directory';

export function createDirectoryDataSource(url: string, pool: PoolSettings = {}): DataSource {
  return createSchemaDataSource({
    url,
    schema: DIRECTORY_SCHEMA,
    entities: [],
    migrations: [
      CreateCards1763700000000,
      CardEvents1766200000000,
      OutboxClaims1767000000000,
      OutboxPublishedDeleted1767500000000,
    ],
    pool,
  });
}
