import { createHash } from 'node:crypto';
import {
  getAddressDecoder,
  getAddressEncoder,
  isOffCurveAddress,
  none,
  some,
  type Address,
  type ReadonlyUint8Array,
} from '@solana/kit';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  getMintDecoder,
  getMintEncoder,
  getMintSize,
  getTokenDecoder,
  getTokenSize,
  AccountState,
  type Mint,
  type Token,
} from '@solana-program/token';

export { ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS };

const addressEncoder = getAddressEncoder();
const addressDecoder = getAddressDecoder();
const PDA_MARKER = new TextEncoder().encode('ProgramDerivedAddress');

/**
 * The associated token account of `owner` for `mint` under SPL Token: the same PDA as
 * `findAssociatedTokenPda`, computed synchronously (node:crypto) because `tokenBalance` is synchronous.
 */
export function associatedTokenAddress(owner: Address, mint: Address): Address {
  const seeds = [owner, TOKEN_PROGRAM_ADDRESS, mint].map((key) => new Uint8Array(addressEncoder.encode(key)));
  const program = new Uint8Array(addressEncoder.encode(ASSOCIATED_TOKEN_PROGRAM_ADDRESS));
  for (let bump = 255; bump >= 0; bump -= 1) {
    const hash = createHash('sha256');
    for (const seed of seeds) hash.update(seed);
    hash.update(Uint8Array.of(bump)).update(program).update(PDA_MARKER);
    const candidate = addressDecoder.decode(hash.digest());
    if (isOffCurveAddress(candidate)) return candidate;
  }
  // Unreachable in practice (each bump is off the curve with probability 1/2), as in Solana's own search.
  throw new Error(`no associated token address for ${owner}`);
}

/** An initialized SPL mint, no supply yet, `authority` may mint, nobody may freeze. */
export function mintAccountData(authority: Address, decimals: number): Uint8Array {
  return new Uint8Array(
    getMintEncoder().encode({
      mintAuthority: some(authority),
      supply: 0n,
      decimals,
      isInitialized: true,
      freezeAuthority: none(),
    }),
  );
}

export const MINT_SIZE = getMintSize();
export const TOKEN_ACCOUNT_SIZE = getTokenSize();

/** The SPL Token account in `data` if the account is one (owner and size checked), else undefined. */
export function decodeTokenAccount(owner: string, data: ReadonlyUint8Array): Token | undefined {
  if (owner !== TOKEN_PROGRAM_ADDRESS || data.length !== TOKEN_ACCOUNT_SIZE) return undefined;
  return getTokenDecoder().decode(data);
}

export function decodeMintAccount(owner: string, data: ReadonlyUint8Array): Mint | undefined {
  if (owner !== TOKEN_PROGRAM_ADDRESS || data.length !== MINT_SIZE) return undefined;
  return getMintDecoder().decode(data);
}

/** Solana's `UiTokenAmount`: `amount` in atomic units as a string, the decimal forms beside it. */
export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number;
  uiAmountString: string;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const uiAmountString = fraction ? `${whole}.${fraction}` : whole;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/**
 * The `jsonParsed` form Solana's RPC gives SPL Token mints and token accounts (`program: "spl-token"`),
 * or undefined for anything else (the caller falls back to base64, as Solana does).
 */
export function parsedTokenProgramAccount(
  owner: string,
  data: Uint8Array,
  decimalsOfMint: (mint: Address) => number | undefined,
):
  | { program: 'spl-token'; parsed: { type: string; info: Record<string, unknown> }; space: bigint }
  | undefined {
  const space = BigInt(data.length);
  const mint = decodeMintAccount(owner, data);
  if (mint) {
    return {
      program: 'spl-token',
      parsed: {
        type: 'mint',
        info: {
          mintAuthority: mint.mintAuthority.__option === 'Some' ? mint.mintAuthority.value : null,
          supply: mint.supply.toString(),
          decimals: mint.decimals,
          isInitialized: mint.isInitialized,
          freezeAuthority: mint.freezeAuthority.__option === 'Some' ? mint.freezeAuthority.value : null,
        },
      },
      space,
    };
  }
  const token = decodeTokenAccount(owner, data);
  const decimals = token ? decimalsOfMint(token.mint) : undefined;
  if (!token || decimals === undefined) return undefined;
  const info: Record<string, unknown> = {
    isNative: token.isNative.__option === 'Some',
    mint: token.mint,
    owner: token.owner,
    state:
      token.state === AccountState.Frozen
        ? 'frozen'
        : token.state === AccountState.Initialized
          ? 'initialized'
          : 'uninitialized',
    tokenAmount: uiTokenAmount(token.amount, decimals),
  };
  // Solana's UiTokenAccount leaves these out when they are unset.
  if (token.delegate.__option === 'Some') {
    info['delegate'] = token.delegate.value;
    info['delegatedAmount'] = uiTokenAmount(token.delegatedAmount, decimals);
  }
  if (token.isNative.__option === 'Some') info['rentExemptReserve'] = uiTokenAmount(token.isNative.value, 9);
  if (token.closeAuthority.__option === 'Some') info['closeAuthority'] = token.closeAuthority.value;
  return { program: 'spl-token', parsed: { type: 'account', info }, space };
}
