import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@townhall/contracts';
import type { Facilitator } from '@townhall/x402';
import { SETTINGS } from '@townhall/platform/service';
import { FACILITATOR } from '../tokens.js';
import type { TicketingSettings } from '../settings.js';

/** How long the facilitator's fee payer is trusted before GET /supported is asked again. */
const FRESH_MS = 10 * 60_000;

/**
 * The key that pays a Solana payment's fee: the facilitator's, from its GET /supported
 * (`kinds[].extra.feePayer` for exact on our network), which every 402 on Solana carries in
 * `extra.feePayer`. Cached, asked again after ten minutes, and at once when the facilitator says
 * a payment names a fee payer it does not manage (it rotated its keys).
 */
@Injectable()
export class FeePayer {
  private cached: { feePayer: string; until: number } | undefined;
  private asking: Promise<string> | undefined;

  constructor(
    @Inject(FACILITATOR) private readonly facilitator: Facilitator | null,
    @Inject(SETTINGS) private readonly settings: TicketingSettings,
  ) {}

  async current(): Promise<string> {
    if (this.cached && this.cached.until > Date.now()) return this.cached.feePayer;
    this.asking ??= this.ask().finally(() => {
      this.asking = undefined;
    });
    return this.asking;
  }

  /** The facilitator refused a payment's fee payer as not its own: ask it again next time. */
  forget(): void {
    this.cached = undefined;
  }

  private async ask(): Promise<string> {
    const network = this.settings.network;
    const facilitator = this.facilitator;
    if (!facilitator)
      throw new Error(`no facilitator names a fee payer on ${network}: X402_FACILITATOR is ledger`);
    let feePayer: unknown;
    try {
      const { kinds } = await facilitator.supported();
      const kind =
        kinds.find((k) => k.scheme === 'exact' && k.network === network && k.x402Version === 2) ??
        kinds.find((k) => k.scheme === 'exact' && k.network === network);
      feePayer = kind?.extra?.['feePayer'];
    } catch {
      throw new DomainError(
        'dependency.unavailable',
        'The payment facilitator did not answer which key pays the fee; nothing was charged. Retry shortly.',
      );
    }
    if (typeof feePayer !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(feePayer)) {
      throw new DomainError(
        'dependency.unavailable',
        `The payment facilitator supports no exact payments with a fee payer on ${network}; nothing was charged.`,
      );
    }
    this.cached = { feePayer, until: Date.now() + FRESH_MS };
    return feePayer;
  }
}
