import {
  createSchemaDataSource,
  outboxAnnounceFunction,
  sqlFunctionFiles,
  type PoolSettings,
} from '@townhall/platform/service';
import type { DataSource } from 'typeorm';
import { CreateEngagement1764000000000 } from './migrations/1764000000000-create-engagement.js';
import { EventStanding1764200000000 } from './migrations/1764200000000-event-standing.js';
import { Moderation1764500000000 } from './migrations/1764500000000-moderation.js';
import { OutboxClaims1767000000000 } from './migrations/1767000000000-outbox-claims.js';
import { OutboxPublishedDeleted1767500000000 } from './migrations/1767500000000-outbox-published-deleted.js';
import { Attendance1768000000000 } from './migrations/1768000000000-attendance.js';

export const ENGAGEMENT_SCHEMA = 'engagement';

export function createEngagementDataSource(url: string, pool: PoolSettings = {}): DataSource {
  return createSchemaDataSource({
    url,
    schema: ENGAGEMENT_SCHEMA,
    entities: [],
    migrations: [
      CreateEngagement1764000000000,
      EventStanding1764200000000,
      Moderation1764500000000,
      OutboxClaims1767000000000,
      OutboxPublishedDeleted1767500000000,
      Attendance1768000000000,
    ],
    // The functions, one file each (db/functions/<name>.sql), applied after the migrations.
    functions: [
      outboxAnnounceFunction(ENGAGEMENT_SCHEMA),
      ...sqlFunctionFiles(new URL('./db/functions/', import.meta.url)),
    ],
    pool,
  });
}
