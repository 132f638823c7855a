import { generateKeyPairSigner, address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { associatedTokenAddress, uiTokenAmount } from './token-accounts.js';

const MINT = address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU');

describe('associatedTokenAddress', () => {
  it('is the PDA @solana-program/token derives, computed synchronously', async () => {
    for (let i = 0; i < 8; i += 1) {
      const owner = (await generateKeyPairSigner()).address;
      const [expected] = await findAssociatedTokenPda({
        owner,
        mint: MINT,
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      });
      expect(associatedTokenAddress(owner, MINT)).toBe(expected);
    }
  });
});

describe('uiTokenAmount', () => {
  it("writes amounts as Solana's UiTokenAmount does", () => {
    expect(uiTokenAmount(2_500_000n, 6)).toEqual({
      amount: '2500000',
      decimals: 6,
      uiAmount: 2.5,
      uiAmountString: '2.5',
    });
    expect(uiTokenAmount(10_000_000n, 6)).toEqual({
      amount: '10000000',
      decimals: 6,
      uiAmount: 10,
      uiAmountString: '10',
    });
    expect(uiTokenAmount(0n, 6)).toEqual({ amount: '0', decimals: 6, uiAmount: 0, uiAmountString: '0' });
    expect(uiTokenAmount(1n, 6)).toEqual({
      amount: '1',
      decimals: 6,
      uiAmount: 0.000001,
      uiAmountString: '0.000001',
    });
    expect(uiTokenAmount(5n, 0)).toEqual({ amount: '5', decimals: 0, uiAmount: 5, uiAmountString: '5' });
  });
});
