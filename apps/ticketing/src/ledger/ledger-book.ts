import { Inject, Injectable } from '@nestjs/common';
import {
  CursorKey,
  DomainError,
  LedgerTopics,
  cursorCodec,
  type BalanceView,
  type LedgerEntryType,
  type LedgerEntryView,
  type Page,
} from '@townhall/contracts';
import { OutboxWriter, queryRows, SETTINGS } from '@townhall/platform/service';
import { DataSource, type EntityManager } from 'typeorm';
import type { PaymentRails } from '../payments/payment-rails.js';
import { RAILS } from '../tokens.js';
import type { TicketingSettings } from '../settings.js';
import { pageOfRows } from '../db/page-of-rows.js';

/** Entries page by their global sequence (a bigint). */
const ENTRY_CURSOR = cursorCodec(CursorKey.bigint);

interface EntryRow {
  seq: string;
  id: string;
  type: LedgerEntryType;
  agent_id: string;
  amount: string;
  asset: string;
  event_id: string | null;
  ticket_id: string | null;
  counterparty_id: string | null;
  network: string | null;
  transaction: string | null;
  code: string | null;
  created_at: Date;
}

const ENTRY_COLUMNS =
  'seq, id, type, agent_id, amount::text AS amount, asset, event_id, ticket_id, counterparty_id, network, transaction, code, created_at';

function toEntry(row: EntryRow): LedgerEntryView {
  return {
    id: row.id,
    type: row.type,
    agentId: row.agent_id,
    amount: row.amount,
    asset: row.asset,
    eventId: row.event_id,
    ticketId: row.ticket_id,
    counterpartyId: row.counterparty_id,
    network: row.network,
    transaction: row.transaction,
    code: row.code,
    createdAt: row.created_at.toISOString(),
  };
}

export interface Transfer {
  type: 'EVENT_TICKET' | 'EVENT_TICKET_REFUND';
  from: string;
  to: string;
  amount: string;
  asset: string;
  eventId: string;
  ticketId: string;
  /** A purchase needs the payer's funds; a refund always goes through (the host may go below zero). */
  requireFunds: boolean;
  /**
   * The chain transaction that already moved the money (an on-chain payment or refund): the
   * entries record it and no ledger balance moves.
   */
  chain?: { network: string; transaction: string };
  /** A ticket's payment: the host's code it was bought with. */
  code?: string | null;
}

/**
 * The balance ledger. A paid ticket's movement is written by ticketing.purchase (see
 * SettleLedgerPayment); refunds and the faucet are written here. Every movement is a pair of immutable entries (money out of one
 * account, into another) plus the balance updates, in the caller's transaction, so the sum
 * of all balances is always exactly what the faucet put in.
 */
@Injectable()
export class LedgerBook {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxWriter,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
    @Inject(RAILS) private readonly rails: PaymentRails,
  ) {}

  /**
   * Moves money and writes both entries; returns [debit, credit]. The entries come first
   * and the balance rows last: the payee's balance is the row that concurrent purchases
   * from one host share, so it is held for as short as possible. (Postgres may pick a
   * deadlock victim between opposite transfers; OutboxWriter.run runs that transaction again.)
   */
  async transfer(manager: EntityManager, transfer: Transfer): Promise<[LedgerEntryView, LedgerEntryView]> {
    const debit = await this.entry(manager, {
      type: transfer.type,
      agentId: transfer.from,
      amount: `-${transfer.amount}`,
      asset: transfer.asset,
      eventId: transfer.eventId,
      ticketId: transfer.ticketId,
      counterpartyId: transfer.to,
      network: transfer.chain?.network ?? null,
      transaction: transfer.chain?.transaction ?? null,
      code: transfer.code ?? null,
    });
    const credit = await this.entry(manager, {
      type: transfer.type,
      agentId: transfer.to,
      amount: transfer.amount,
      asset: transfer.asset,
      eventId: transfer.eventId,
      ticketId: transfer.ticketId,
      counterpartyId: transfer.from,
      network: transfer.chain?.network ?? null,
      transaction: transfer.chain?.transaction ?? null,
      code: transfer.code ?? null,
    });
    if (transfer.chain) return [debit, credit];
    await this.debit(manager, transfer);
    await this.credit(manager, transfer.to, transfer.asset, transfer.amount);
    return [debit, credit];
  }

  /**
   * Test money for the caller: at most `faucetMaxAmount` a call (422 `ledger.faucet_over_cap`) and
   * `faucetCallsPerHour` calls an hour (429 `ledger.faucet_rate_limited`, with the seconds until
   * the oldest of them leaves the hour). The calls are counted from the agent's own FAUCET entries,
   * in the transaction that writes the next one, under a lock per agent: every replica counts the
   * same rows, and two calls at once cannot both take the last place.
   */
  async faucet(agentId: string, amount: string, asset: string, network?: string): Promise<LedgerEntryView> {
    if (!this.settings.faucet)
      throw new DomainError('ledger.faucet_disabled', 'The faucet exists only where LEDGER_FAUCET=true');
    if (BigInt(amount) > this.settings.faucetMaxAmount)
      throw new DomainError(
        'ledger.faucet_over_cap',
        `One faucet call mints at most ${this.settings.faucetMaxAmount} (LEDGER_FAUCET_MAX_AMOUNT)`,
        [{ field: 'amount', message: `must be at most ${this.settings.faucetMaxAmount}` }],
      );
    if (network !== undefined) return this.chainFaucet(agentId, amount, network);
    return this.outbox.run(async (manager) => {
      await this.spendFaucetCall(manager, agentId);
      await this.credit(manager, agentId, asset, amount);
      return this.entry(manager, {
        type: 'FAUCET',
        agentId,
        amount,
        asset,
        eventId: null,
        ticketId: null,
        counterpartyId: null,
        network: null,
        transaction: null,
        code: null,
      });
    });
  }

  /**
   * Test USDC minted on solana-local's chain to the agent's own token account (created if needed),
   * recorded as a FAUCET entry with its network and transaction; no ledger balance moves. The mint
   * runs inside the transaction that counts the call, so the per-agent lock covers it too.
   */
  private async chainFaucet(agentId: string, amount: string, network: string): Promise<LedgerEntryView> {
    const local = this.rails.local;
    if (!local || network !== this.settings.network) {
      throw new DomainError(
        'validation.failed',
        `network: the faucet mints on the ledger or on ${local ? this.settings.network : 'no chain here (X402_FACILITATOR is not solana-local)'}`,
        [
          {
            field: 'network',
            message: local ? `must be ${this.settings.network}` : 'no local chain runs here',
          },
        ],
      );
    }
    return this.outbox.run(async (manager) => {
      await this.spendFaucetCall(manager, agentId);
      const { transaction } = await local.chain.faucet(agentId, BigInt(amount));
      return this.entry(manager, {
        type: 'FAUCET',
        agentId,
        amount,
        asset: local.chain.mint,
        eventId: null,
        ticketId: null,
        counterpartyId: null,
        network,
        transaction,
        code: null,
      });
    });
  }

  /**
   * Takes one of the agent's faucet calls of the last hour, or refuses with 429. The lock is held
   * until the transaction ends (its FAUCET entry written), so concurrent calls count in turn.
   */
  private async spendFaucetCall(manager: EntityManager, agentId: string): Promise<void> {
    await queryRows(manager, `SELECT pg_advisory_xact_lock(hashtextextended('ticketing.faucet:' || $1, 0))`, [
      agentId,
    ]);
    const [window] = await queryRows<{ calls: number; free_in: number | null }>(
      manager,
      `SELECT count(*)::int AS calls,
              ceil(extract(epoch FROM min(created_at) + interval '1 hour' - now()))::int AS free_in
       FROM ticketing.ledger_entries
       WHERE agent_id = $1 AND type = 'FAUCET' AND created_at > now() - interval '1 hour'`,
      [agentId],
    );
    if (window!.calls < this.settings.faucetCallsPerHour) return;
    const seconds = Math.max(1, window!.free_in ?? 1);
    throw new DomainError(
      'ledger.faucet_rate_limited',
      `The faucet gives one agent ${this.settings.faucetCallsPerHour} calls an hour (LEDGER_FAUCET_CALLS_PER_HOUR); the next is free in ${seconds} s`,
      undefined,
      { retryAfterSeconds: seconds },
    );
  }

  async balance(agentId: string): Promise<BalanceView> {
    const rows = await queryRows<{ asset: string; amount: string }>(
      this.dataSource,
      'SELECT asset, amount::text AS amount FROM ticketing.balances WHERE agent_id = $1 ORDER BY asset',
      [agentId],
    );
    return { agentId, balances: rows };
  }

  async entries(agentId: string, limit: number, cursor: string | undefined): Promise<Page<LedgerEntryView>> {
    const after = cursor === undefined ? '0' : ENTRY_CURSOR.decode(cursor);
    const rows = await queryRows<EntryRow>(
      this.dataSource,
      `SELECT ${ENTRY_COLUMNS} FROM ticketing.ledger_entries
       WHERE agent_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [agentId, after, limit + 1],
    );
    return pageOfRows(rows, limit, toEntry, (last) => ENTRY_CURSOR.encode(String(last.seq)));
  }

  private async debit(manager: EntityManager, transfer: Transfer): Promise<void> {
    if (transfer.requireFunds) {
      const debited = await queryRows(
        manager,
        `UPDATE ticketing.balances SET amount = amount - $3::numeric
         WHERE agent_id = $1 AND asset = $2 AND amount >= $3::numeric RETURNING amount`,
        [transfer.from, transfer.asset, transfer.amount],
      );
      if (debited.length === 0) {
        throw new DomainError(
          'payment.insufficient_funds',
          `The payer's ${transfer.asset} balance does not cover ${transfer.amount}`,
        );
      }
      return;
    }
    await queryRows(
      manager,
      `INSERT INTO ticketing.balances AS b (agent_id, asset, amount) VALUES ($1, $2, -$3::numeric)
       ON CONFLICT (agent_id, asset) DO UPDATE SET amount = b.amount - $3::numeric`,
      [transfer.from, transfer.asset, transfer.amount],
    );
  }

  private async credit(
    manager: EntityManager,
    agentId: string,
    asset: string,
    amount: string,
  ): Promise<void> {
    await queryRows(
      manager,
      `INSERT INTO ticketing.balances AS b (agent_id, asset, amount) VALUES ($1, $2, $3::numeric)
       ON CONFLICT (agent_id, asset) DO UPDATE SET amount = b.amount + $3::numeric`,
      [agentId, asset, amount],
    );
  }

  private async entry(
    manager: EntityManager,
    entry: Omit<LedgerEntryView, 'id' | 'createdAt'>,
  ): Promise<LedgerEntryView> {
    const [row] = await queryRows<EntryRow>(
      manager,
      `INSERT INTO ticketing.ledger_entries
         (type, agent_id, amount, asset, event_id, ticket_id, counterparty_id, network, transaction, code)
       VALUES ($1, $2, $3::numeric, $4, $5, $6, $7, $8, $9, $10) RETURNING ${ENTRY_COLUMNS}`,
      [
        entry.type,
        entry.agentId,
        entry.amount,
        entry.asset,
        entry.eventId,
        entry.ticketId,
        entry.counterpartyId,
        entry.network,
        entry.transaction,
        entry.code,
      ],
    );
    const view = toEntry(row!);
    await this.outbox.announce(manager, [
      { type: LedgerTopics.entryRecorded, subject: view.agentId, data: view },
    ]);
    return view;
  }
}
