import { outboxTablesV2 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The outbox's claims name their holder, so a crashed relay's claim is taken over at once (outbox-tables-v2.ts). */
export class OutboxClaims1767000000000 implements MigrationInterface {
  name = 'OutboxClaims1767000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of outboxTablesV2('"directory"')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE directory.outbox DROP COLUMN claimed_by');
  }
}
