import { outboxTablesV3, undoOutboxTablesV3 } from '@townhall/platform/service';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The relay deletes what JetStream acknowledged: published rows go, and the index of unpublished ones (outbox-tables-v3.ts). */
export class OutboxPublishedDeleted1767500000000 implements MigrationInterface {
  name = 'OutboxPublishedDeleted1767500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of outboxTablesV3('"ticketing"')) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of undoOutboxTablesV3('"ticketing"')) await queryRunner.query(statement);
  }
}
