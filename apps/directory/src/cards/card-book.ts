import { Injectable } from '@nestjs/common';
import { preparedStatement } from '@townhall/platform/service';
import { DataSource } from 'typeorm';
import { CARD_COLUMNS, type CardRow } from './card-row.js';

/**
 * The card reads the use cases share. They are the hot path of every signed directory lookup (the
 * gateway's card of each caller it has not kept), hence prepared statements.
 */
@Injectable()
export class CardBook {
  readonly byAgentId = preparedStatement<CardRow>(
    this.dataSource,
    'directory_card_by_agent',
    `SELECT ${CARD_COLUMNS} FROM directory.cards WHERE agent_id = $1`,
  );
  readonly byAgentIds = preparedStatement<CardRow>(
    this.dataSource,
    'directory_cards_by_agents',
    `SELECT ${CARD_COLUMNS} FROM directory.cards WHERE agent_id = ANY($1::text[])`,
  );
  readonly byHandle = preparedStatement<CardRow>(
    this.dataSource,
    'directory_card_by_handle',
    `SELECT ${CARD_COLUMNS} FROM directory.cards WHERE lower(handle) = lower($1)`,
  );

  constructor(private readonly dataSource: DataSource) {}
}
