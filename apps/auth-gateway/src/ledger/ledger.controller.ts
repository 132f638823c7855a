import { Body, Controller, Get, Inject, Post, Query, Req } from '@nestjs/common';
import { Ledger, type BalanceView, type LedgerEntryView, type Page } from '@townhall/contracts';
import { SERVICE_CLIENT, type ServiceClient } from '@townhall/platform';
import type { FastifyRequest } from 'fastify';
import { Signed } from '../auth/signed.decorator.js';
import { metaOf } from '../request-context.js';

/** The caller's own ledger; owned by ticketing. */
@Controller('ledger')
export class LedgerController {
  constructor(@Inject(SERVICE_CLIENT) private readonly services: ServiceClient) {}

  @Get()
  @Signed()
  entries(
    @Query() query: Record<string, string>,
    @Req() request: FastifyRequest,
  ): Promise<Page<LedgerEntryView>> {
    return this.services.send(Ledger.entries, query as never, metaOf(request));
  }

  @Get('balance')
  @Signed()
  balance(@Req() request: FastifyRequest): Promise<BalanceView> {
    return this.services.send(Ledger.balance, {}, metaOf(request));
  }

  /** Only where LEDGER_FAUCET=true (standalone, tests); 404 ledger.faucet_disabled elsewhere. */
  @Post('faucet')
  @Signed()
  faucet(@Body() body: unknown, @Req() request: FastifyRequest): Promise<LedgerEntryView> {
    return this.services.send(Ledger.faucet, (body ?? {}) as never, metaOf(request));
  }
}
