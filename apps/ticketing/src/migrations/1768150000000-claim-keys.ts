import { claimKeysV1, dropClaimFormerKey, undoClaimKeysV1 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export const FORMER_CLAIM_KEY = 'ticketing';
export const CLAIM_KEY_DURABLES = ['ticketing-events', 'ticketing-series'];

/**
 * EventSales' durables `ticketing-events` and `ticketing-series`, which both claimed under
 * `ticketing`, claim under their own names: what was applied stays applied (claim-keys-v1.ts).
 * While the release before still runs, their claims are made under `ticketing` too
 * (claimFormerKeyFunction, in data-source.ts).
 */
export class ClaimKeys1768150000000 implements MigrationInterface {
  name = 'ClaimKeys1768150000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of claimKeysV1('"ticketing"', FORMER_CLAIM_KEY, CLAIM_KEY_DURABLES))
      await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of dropClaimFormerKey('"ticketing"')) await queryRunner.query(statement);
    for (const sql of undoClaimKeysV1('"ticketing"', FORMER_CLAIM_KEY, CLAIM_KEY_DURABLES))
      await queryRunner.query(sql);
  }
}
