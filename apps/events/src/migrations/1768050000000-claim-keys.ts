import { claimKeysV1, dropClaimFormerKey, undoClaimKeysV1 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export const FORMER_CLAIM_KEY = 'events-counts';
export const CLAIM_KEY_DURABLES = ['events-ticket-counts', 'events-question-counts', 'events-poll-counts'];

/**
 * The counts' three durables, which all claimed under `events-counts`, claim under their own
 * names: what was counted stays counted (claim-keys-v1.ts). While the release before still runs,
 * their claims are made under `events-counts` too (claimFormerKeyFunction, in data-source.ts).
 */
export class ClaimKeys1768050000000 implements MigrationInterface {
  name = 'ClaimKeys1768050000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of claimKeysV1('"events"', FORMER_CLAIM_KEY, CLAIM_KEY_DURABLES))
      await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of dropClaimFormerKey('"events"')) await queryRunner.query(statement);
    for (const statement of undoClaimKeysV1('"events"', FORMER_CLAIM_KEY, CLAIM_KEY_DURABLES))
      await queryRunner.query(statement);
  }
}
