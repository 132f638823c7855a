import { address, generateKeyPairSigner, type Instruction } from '@solana/kit';
import { Bank } from './bank.js';
import { LocalChainError } from './errors.js';
import { sendOwnTransaction } from './own-transactions.js';

const LIFETIME_MS = 400;
// A memo: an instruction that needs no account but the fee payer's signature.
const memo = (text: string): Instruction => ({
  programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
  data: new TextEncoder().encode(text),
});

/** A bank on a clock of the test's, and a funded fee payer of its own. */
async function aBank() {
  let now = 1_700_000_000_000;
  const clock = {
    now: () => now,
    pass: (ms: number) => {
      now += ms;
    },
  };
  const bank = Bank.create(LIFETIME_MS, clock.now);
  const feePayer = await generateKeyPairSigner();
  bank.airdrop(feePayer.address, 1_000_000_000n);
  return { bank, feePayer, clock };
}

describe("sendOwnTransaction: the chain's own transactions", () => {
  it('sign again with a fresh blockhash when theirs expired while they were signed', async () => {
    const { bank, feePayer, clock } = await aBank();
    let signings = 0;
    // Called after each signing, before the bank processes it: the first signing took longer
    // than a blockhash lives (a loaded machine, a short test lifetime).
    const assertOpen = () => {
      signings += 1;
      if (signings === 1) clock.pass(LIFETIME_MS * 3);
    };
    const record = await sendOwnTransaction({ bank, feePayer, assertOpen }, 'memo', [memo('hello')]);
    expect(record.err).toBeNull();
    expect(signings).toBe(2);
    expect(bank.blockHeight()).toBeGreaterThan(0n);
  });

  it('give up after five signings that all expired, and say why', async () => {
    const { bank, feePayer, clock } = await aBank();
    let signings = 0;
    const assertOpen = () => {
      signings += 1;
      clock.pass(LIFETIME_MS * 3);
    };
    const before = bank.lamports(feePayer.address);
    const refusal = sendOwnTransaction({ bank, feePayer, assertOpen }, 'memo', [memo('never')]);
    await expect(refusal).rejects.toBeInstanceOf(LocalChainError);
    await expect(refusal).rejects.toThrow(/^memo transaction refused: Blockhash not found/);
    expect(signings).toBe(5);
    // A refusal changed nothing: no fee was taken.
    expect(bank.lamports(feePayer.address)).toBe(before);
  });

  it('are not signed again when refused for anything else', async () => {
    const { bank } = await aBank();
    // A fee payer with no lamports: refused before running, for want of the fee.
    const broke = await generateKeyPairSigner();
    let signings = 0;
    await expect(
      sendOwnTransaction(
        {
          bank,
          feePayer: broke,
          assertOpen: () => {
            signings += 1;
          },
        },
        'memo',
        [memo('no fee')],
      ),
    ).rejects.toThrow(/memo transaction refused/);
    expect(signings).toBe(1);
  });
});
