import { Body, Controller, Get, Inject, Post, Query, Req } from '@nestjs/common';
import {
  Ledger,
  type BalanceView,
  type LedgerEntryView,
  type Page,
  BalanceViewSchema,
  LedgerEntryPageSchema,
  LedgerEntryViewSchema,
} from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { ApiRoute } from '../openapi/api-route.decorator.js';
import { metaOf } from '../request-context.js';

/** The caller's own ledger; owned by ticketing. */
@Controller('ledger')
export class LedgerController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Get()
  @Signed()
  @ApiRoute({
    summary: "The caller's ledger entries",
    description: '`EVENT_TICKET`, `EVENT_TICKET_REFUND` and `FAUCET`; amounts are signed integer strings.',
    query: Ledger.entries.request,
    reply: LedgerEntryPageSchema,
  })
  entries(
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
  ): Promise<Page<LedgerEntryView>> {
    return this.services.send(Ledger.entries, query as never, metaOf(request));
  }

  @Get('balance')
  @Signed()
  @ApiRoute({ summary: "The caller's balances, per asset", reply: BalanceViewSchema })
  balance(@Req() request: FastifyRequest): Promise<BalanceView> {
    return this.services.send(Ledger.balance, {}, metaOf(request));
  }

  /** Only where LEDGER_FAUCET=true (standalone, tests); 404 ledger.faucet_disabled elsewhere. */
  @Post('faucet')
  @Signed()
  @ApiRoute({
    summary: "Credit the caller's balance (test environments only)",
    description: 'Exists only where `LEDGER_FAUCET=true`.',
    body: Ledger.faucet.request,
    reply: LedgerEntryViewSchema,
    codes: ['ledger.faucet_disabled'],
  })
  faucet(@Body() body: unknown, @Req() request: FastifyRequest): Promise<LedgerEntryView> {
    return this.services.send(Ledger.faucet, (body ?? {}) as never, metaOf(request));
  }
}
