import {
  claimFormerKeyFunction,
  createSchemaDataSource,
  type PoolSettings,
} from '@townhall/platform/service';
import type { DataSource } from 'typeorm';
import { CreateEvents1763800000000 } from './migrations/1763800000000-create-events.js';
import { Moderation1764500000000 } from './migrations/1764500000000-moderation.js';
import { OfferMinutes1764610000000 } from './migrations/1764610000000-offer-minutes.js';
import { SeriesSearch1764650000000 } from './migrations/1764650000000-series-search.js';
import { RecordingPublished1766000000000 } from './migrations/1766000000000-recording-published.js';
import { EventReminders1766100000000 } from './migrations/1766100000000-event-reminders.js';
import { OutboxClaims1767000000000 } from './migrations/1767000000000-outbox-claims.js';
import { ListingRank1767300000000 } from './migrations/1767300000000-listing-rank.js';
import { SeriesEnd1767230000000 } from './migrations/1767230000000-series-end.js';
import { OutboxPublishedDeleted1767500000000 } from './migrations/1767500000000-outbox-published-deleted.js';
import { EventAccess1767600000000 } from './migrations/1767600000000-event-access.js';
import { EventApproval1767700000000 } from './migrations/1767700000000-event-approval.js';
import {
  CLAIM_KEY_DURABLES,
  ClaimKeys1768050000000,
  FORMER_CLAIM_KEY,
} from './migrations/1768050000000-claim-keys.js';

export const EVENTS_SCHEMA = 'events';

export function createEventsDataSource(url: string, pool: PoolSettings = {}): DataSource {
  return createSchemaDataSource({
    url,
    schema: EVENTS_SCHEMA,
    entities: [],
    migrations: [
      CreateEvents1763800000000,
      Moderation1764500000000,
      OfferMinutes1764610000000,
      SeriesSearch1764650000000,
      RecordingPublished1766000000000,
      EventReminders1766100000000,
      OutboxClaims1767000000000,
      SeriesEnd1767230000000,
      ListingRank1767300000000,
      OutboxPublishedDeleted1767500000000,
      EventAccess1767600000000,
      EventApproval1767700000000,
      ClaimKeys1768050000000,
    ],
    // Until no process of the release before the claim keys' move runs.
    functions: [claimFormerKeyFunction('"events"', FORMER_CLAIM_KEY, CLAIM_KEY_DURABLES)],
    pool,
  });
}
