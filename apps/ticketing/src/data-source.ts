import {
  claimFormerKeyFunction,
  createSchemaDataSource,
  outboxAnnounceFunction,
  sqlFunctionFiles,
  type PoolSettings,
} from '@townhall/platform/service';
import type { DataSource } from 'typeorm';
import { CreateTicketing1763900000000 } from './migrations/1763900000000-create-ticketing.js';
import { EventVersion1764100000000 } from './migrations/1764100000000-event-version.js';
import { Purchase1764300000000 } from './migrations/1764300000000-purchase.js';
import { Settlements1764400000000 } from './migrations/1764400000000-settlements.js';
import { Waitlist1764610000000 } from './migrations/1764610000000-waitlist.js';
import { ChainPayments1765100000000 } from './migrations/1765100000000-chain-payments.js';
import { OutboxClaims1767000000000 } from './migrations/1767000000000-outbox-claims.js';
import { PaymentSearch1767100000000 } from './migrations/1767100000000-payment-search.js';
import { FollowerSeating1767230000000 } from './migrations/1767230000000-follower-seating.js';
import { OutboxPublishedDeleted1767500000000 } from './migrations/1767500000000-outbox-published-deleted.js';
import { Invites1767600000000 } from './migrations/1767600000000-invites.js';
import { Requests1767700000000 } from './migrations/1767700000000-requests.js';
import { Codes1767800000000 } from './migrations/1767800000000-codes.js';
import { ReportIndexes1767900000000 } from './migrations/1767900000000-report-indexes.js';
import { PaymentExtensions1768000000000 } from './migrations/1768000000000-payment-extensions.js';
import {
  CLAIM_KEY_DURABLES,
  ClaimKeys1768150000000,
  FORMER_CLAIM_KEY,
} from './migrations/1768150000000-claim-keys.js';

export const TICKETING_SCHEMA = 'ticketing';

export function createTicketingDataSource(url: string, pool: PoolSettings = {}): DataSource {
  return createSchemaDataSource({
    url,
    schema: TICKETING_SCHEMA,
    entities: [],
    migrations: [
      CreateTicketing1763900000000,
      EventVersion1764100000000,
      Purchase1764300000000,
      Settlements1764400000000,
      Waitlist1764610000000,
      ChainPayments1765100000000,
      OutboxClaims1767000000000,
      PaymentSearch1767100000000,
      FollowerSeating1767230000000,
      OutboxPublishedDeleted1767500000000,
      Invites1767600000000,
      Requests1767700000000,
      Codes1767800000000,
      ReportIndexes1767900000000,
      PaymentExtensions1768000000000,
      ClaimKeys1768150000000,
    ],
    // The functions, one file each (db/functions/<name>.sql), applied after the migrations.
    functions: [
      outboxAnnounceFunction(TICKETING_SCHEMA),
      ...sqlFunctionFiles(new URL('./db/functions/', import.meta.url)),
      // Until no process of the release before the claim keys' move runs.
      claimFormerKeyFunction('"ticketing"', FORMER_CLAIM_KEY, CLAIM_KEY_DURABLES),
    ],
    pool,
  });
}
