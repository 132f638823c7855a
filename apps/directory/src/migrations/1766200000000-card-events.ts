import { outboxTablesV1 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The directory announces its cards' changes (`townhall.card.updated`), so that the gateway can
 * answer card reads from memory: the transactional outbox, as every announcing service has it.
 */
export class CardEvents1766200000000 implements MigrationInterface {
  name = 'CardEvents1766200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of outboxTablesV1('"directory"')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE directory.processed_events');
    await queryRunner.query('DROP TABLE directory.outbox');
  }
}
