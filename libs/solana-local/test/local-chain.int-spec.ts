import { mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import {
  address,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  signBytes,
} from '@solana/kit';
import {
  LocalChain,
  LocalChainError,
  SOLANA_DEVNET,
  USDC_DEVNET_MINT,
  createLocalFacilitator,
  startLocalRpc,
  type LocalRpc,
} from '../src/index.js';
import { x402Facilitator } from '@x402/core/facilitator';
import type { FacilitatorSvmSigner } from '@x402/svm';
import { ExactSvmScheme } from '@x402/svm/exact/facilitator';
import { blockhashOf, keyFromSeed, pay, requirementsFor, wireTransactionOf } from './payments.js';

// @x402/svm's facilitator console.error()s every failed send; the tests that provoke one read it here
// instead of printing a stack trace for an expected refusal.
function quietConsoleErrors() {
  return jest.spyOn(console, 'error').mockImplementation(() => undefined);
}

describe('LocalChain: the official x402 exact scheme pays and settles on it', () => {
  let chain: LocalChain;
  let rpc: LocalRpc;

  beforeAll(async () => {
    chain = await LocalChain.open();
    rpc = await startLocalRpc(chain);
  });

  afterAll(async () => {
    await rpc.close();
    await chain.close();
  });

  it('answers as devnet with the devnet USDC mint address, 6 decimals, and a funded fee payer of its own', () => {
    expect(chain.network).toBe(SOLANA_DEVNET);
    expect(chain.mint).toBe(USDC_DEVNET_MINT);
    expect(chain.decimals).toBe(6);
    expect(chain.solBalance(chain.feePayer)).toBeGreaterThan(100_000_000_000n);
    expect(chain.signer.getAddresses()).toEqual([chain.feePayer]);
  });

  it('verifies and settles a real SPL transfer, the fee paid by the fee payer, once only', async () => {
    const buyer = await keyFromSeed(1);
    const host = (await keyFromSeed(101)).address;
    const funded = await chain.faucet(buyer.address, 10_000_000n);
    expect(chain.transactionStatus(funded.transaction)).toEqual({ ok: true });
    const hostAccount = await chain.ensureTokenAccount(host);
    expect(await chain.ensureTokenAccount(host)).toBe(hostAccount);
    expect(chain.tokenBalance(buyer.address)).toBe(10_000_000n);
    expect(chain.tokenBalance(host)).toBe(0n);
    expect(chain.solBalance(buyer.address)).toBe(0n);

    const requirements = requirementsFor(chain, host);
    const payment = await pay(buyer, rpc.url, requirements);
    const facilitator = createLocalFacilitator(chain);

    await expect(facilitator.verify(payment, requirements)).resolves.toMatchObject({
      isValid: true,
      payer: buyer.address,
    });
    const feePayerBefore = chain.solBalance(chain.feePayer);
    const settled = await facilitator.settle(payment, requirements);
    expect(settled).toMatchObject({ success: true, network: SOLANA_DEVNET, payer: buyer.address });
    const signature = settled.transaction;
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    expect(chain.tokenBalance(buyer.address)).toBe(7_500_000n);
    expect(chain.tokenBalance(host)).toBe(2_500_000n);
    expect(chain.solBalance(buyer.address)).toBe(0n);
    const landed = chain.transaction(signature);
    expect(landed).toMatchObject({ ok: true, transaction: expect.any(String) });
    // Two signatures at 5000 lamports, plus the client's priority fee (20 000 CU at 1 microlamport: 1).
    expect(feePayerBefore - chain.solBalance(chain.feePayer)).toBe(10_001n);
    expect(chain.transactionStatus(signature)).toEqual({ ok: true });
    expect(chain.signaturesFor(funded.tokenAccount)[0]).toBe(signature);
    expect(chain.signaturesFor(funded.tokenAccount)).toEqual([signature, funded.transaction]);
    expect(chain.signaturesFor(hostAccount, 1)).toEqual([signature]);
    expect(chain.signaturesFor(chain.feePayer)).toContain(signature);

    // The same payload again: the facilitator remembers it, and a fresh facilitator (its memory gone)
    // gets the fee payer's identical signature refused by the chain as already processed.
    await expect(facilitator.settle(payment, requirements)).resolves.toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
    });
    const errors = quietConsoleErrors();
    try {
      await expect(createLocalFacilitator(chain).settle(payment, requirements)).resolves.toMatchObject({
        success: false,
        errorReason: 'invalid_exact_svm_transaction_failed',
      });
      expect(String(errors.mock.calls[0]?.[1])).toContain('already been processed');
    } finally {
      errors.mockRestore();
    }
    expect(chain.tokenBalance(buyer.address)).toBe(7_500_000n);
    expect(chain.tokenBalance(host)).toBe(2_500_000n);
    expect(chain.transactionStatus(signature)).toEqual({ ok: true });
  });

  it('refuses a payment whose transfer signature is not the payer key', async () => {
    const buyer = await keyFromSeed(2);
    const mallory = await keyFromSeed(66);
    const host = (await keyFromSeed(102)).address;
    await chain.faucet(buyer.address, 10_000_000n);
    await chain.ensureTokenAccount(host);
    const requirements = requirementsFor(chain, host);
    const payment = await pay(buyer, rpc.url, requirements);

    // Same message, same transfer from the buyer's account, but signed by another key.
    const transaction = getTransactionDecoder().decode(getBase64Encoder().encode(wireTransactionOf(payment)));
    const forged = {
      ...transaction,
      signatures: {
        ...transaction.signatures,
        [buyer.address]: await signBytes(mallory.keyPair.privateKey, transaction.messageBytes),
      },
    };
    const forgedPayment = { ...payment, payload: { transaction: getBase64EncodedWireTransaction(forged) } };
    const facilitator = createLocalFacilitator(chain);
    await expect(facilitator.verify(forgedPayment, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_payload_signature_invalid',
    });
    await expect(facilitator.settle(forgedPayment, requirements)).resolves.toMatchObject({ success: false });
    // Sent raw, past the facilitator, the chain itself refuses it.
    const signed = await chain.signer.signTransaction(
      getBase64EncodedWireTransaction(forged),
      address(chain.feePayer),
      chain.network,
    );
    await expect(chain.signer.sendTransaction(signed, chain.network)).rejects.toThrow(
      /signature verification/,
    );
    expect(chain.tokenBalance(buyer.address)).toBe(10_000_000n);
    expect(chain.tokenBalance(host)).toBe(0n);
  });

  it('records a transaction that fails on chain, so confirmation reports an on-chain failure', async () => {
    const buyer = await keyFromSeed(3);
    const host = (await keyFromSeed(103)).address;
    await chain.faucet(buyer.address, 1_000_000n);
    await chain.ensureTokenAccount(host);
    const requirements = requirementsFor(chain, host, '2500000');
    const payment = await pay(buyer, rpc.url, requirements);
    // Not enough tokens: verify's simulation says so, and sending it anyway lands a failed transaction.
    await expect(createLocalFacilitator(chain).verify(payment, requirements)).resolves.toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_svm_transaction_simulation_failed',
    });
    const signed = await chain.signer.signTransaction(
      wireTransactionOf(payment),
      address(chain.feePayer),
      chain.network,
    );
    const feePayerBefore = chain.solBalance(chain.feePayer);
    const signature = await chain.signer.sendTransaction(signed, chain.network);
    await expect(chain.signer.confirmTransaction(signature, chain.network)).rejects.toMatchObject({
      name: 'TransactionOnchainFailureError',
    });
    expect(chain.transactionStatus(signature)).toEqual({
      ok: false,
      error: '{"InstructionError":[2,{"Custom":1}]}',
    });
    expect(chain.transaction(signature)).toMatchObject({
      ok: false,
      error: '{"InstructionError":[2,{"Custom":1}]}',
    });
    expect(feePayerBefore - chain.solBalance(chain.feePayer)).toBe(10_001n);
    expect(chain.tokenBalance(buyer.address)).toBe(1_000_000n);
    await expect(chain.signer.sendTransaction(signed, chain.network)).rejects.toThrow(
      /already been processed/,
    );
    expect(chain.transactionStatus(signature)).toMatchObject({ ok: false });
  });

  it('reports a settlement that failed on chain as failed, with its transaction', async () => {
    const buyer = await keyFromSeed(6);
    const host = (await keyFromSeed(106)).address;
    await chain.faucet(buyer.address, 3_000_000n);
    await chain.ensureTokenAccount(host);
    const first = requirementsFor(chain, host, '2500000');
    const second = requirementsFor(chain, host, '2000000');
    const [a, b] = [await pay(buyer, rpc.url, first), await pay(buyer, rpc.url, second)];
    // Between verification and sending of `b`, payment `a` lands and takes the tokens: `b` passed
    // verification and then fails on chain (what two concurrent settlements of one payer can do).
    const racing: FacilitatorSvmSigner = {
      ...chain.signer,
      async signTransaction(transaction, feePayer, network) {
        const other = await chain.signer.signTransaction(wireTransactionOf(a), feePayer, network);
        await chain.signer.confirmTransaction(await chain.signer.sendTransaction(other, network), network);
        return chain.signer.signTransaction(transaction, feePayer, network);
      },
    };
    const facilitator = new x402Facilitator().register(SOLANA_DEVNET, new ExactSvmScheme(racing));
    const errors = quietConsoleErrors();
    let settled;
    try {
      settled = await facilitator.settle(b, second);
    } finally {
      errors.mockRestore();
    }
    expect(settled).toMatchObject({ success: false, errorReason: 'invalid_exact_svm_transaction_failed' });
    expect(chain.transactionStatus(settled.transaction)).toEqual({
      ok: false,
      error: '{"InstructionError":[2,{"Custom":1}]}',
    });
    expect(chain.tokenBalance(host)).toBe(2_500_000n);
    expect(chain.tokenBalance(buyer.address)).toBe(500_000n);
  });

  it('refuses bad arguments with typed errors', async () => {
    await expect(chain.faucet('not-an-address', 1n)).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(chain.faucet(chain.feePayer, 0n)).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(() => chain.tokenBalance('x')).toThrow(LocalChainError);
    expect(
      chain.transactionStatus('1111111111111111111111111111111111111111111111111111111111111111'),
    ).toBeUndefined();
    expect(chain.transaction('nope')).toBeUndefined();
    await expect(
      chain.signer.sendTransaction('AAAA', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'),
    ).rejects.toMatchObject({
      code: 'network_mismatch',
    });
    await expect(LocalChain.open({ network: 'devnet' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('LocalChain: blockhashes expire', () => {
  it('refuses a payment built on an expired blockhash, everywhere alike, and moves nothing', async () => {
    const chain = await LocalChain.open({ blockhashLifetimeMs: 400 });
    const rpc = await startLocalRpc(chain);
    try {
      const buyer = await keyFromSeed(4);
      const host = (await keyFromSeed(104)).address;
      await chain.faucet(buyer.address, 10_000_000n);
      await chain.ensureTokenAccount(host);
      const requirements = requirementsFor(chain, host);
      const payment = await pay(buyer, rpc.url, requirements);
      const blockhash = blockhashOf(payment);
      expect(chain.isBlockhashValid(blockhash)).toBe(true);

      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(chain.isBlockhashValid(blockhash)).toBe(false);
      const facilitator = createLocalFacilitator(chain);
      const verified = await facilitator.verify(payment, requirements);
      expect(verified).toMatchObject({
        isValid: false,
        invalidReason: 'invalid_exact_svm_transaction_simulation_failed',
      });
      expect(verified.invalidMessage).toContain('BlockhashNotFound');
      await expect(facilitator.settle(payment, requirements)).resolves.toMatchObject({ success: false });
      const signed = await chain.signer.signTransaction(
        wireTransactionOf(payment),
        address(chain.feePayer),
        chain.network,
      );
      await expect(chain.signer.sendTransaction(signed, chain.network)).rejects.toThrow(
        /Blockhash not found/,
      );
      expect(chain.tokenBalance(buyer.address)).toBe(10_000_000n);
      expect(chain.tokenBalance(host)).toBe(0n);

      // A payment built now, on a fresh blockhash, still settles.
      const fresh = await pay(buyer, rpc.url, requirements);
      expect(chain.isBlockhashValid(blockhashOf(fresh))).toBe(true);
      await expect(facilitator.settle(fresh, requirements)).resolves.toMatchObject({ success: true });
      expect(chain.tokenBalance(host)).toBe(2_500_000n);
    } finally {
      await rpc.close();
      await chain.close();
    }
  });
});

describe('LocalChain: persistence', () => {
  let folder: string;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'townhall-solana-local-'));
  });

  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('keeps balances, keys, the mint and transaction statuses across a restart', async () => {
    const dataFile = join(folder, 'state', 'chain.bin');
    const buyer = await keyFromSeed(5);
    const host = (await keyFromSeed(105)).address;

    const first = await LocalChain.open({ dataFile });
    const firstRpc = await startLocalRpc(first);
    const funded = await first.faucet(buyer.address, 10_000_000n);
    await first.ensureTokenAccount(host);
    const requirements = requirementsFor(first, host);
    const settled = await createLocalFacilitator(first).settle(
      await pay(buyer, firstRpc.url, requirements),
      requirements,
    );
    expect(settled.success).toBe(true);
    const before = {
      feePayer: first.feePayer,
      mint: first.mint,
      buyer: first.tokenBalance(buyer.address),
      host: first.tokenBalance(host),
      feePayerLamports: first.solBalance(first.feePayer),
    };
    await firstRpc.close();
    await first.close();
    expect(() => first.tokenBalance(host)).toThrow(expect.objectContaining({ code: 'closed' }));
    expect((await stat(`${dataFile}.keys.json`)).mode & 0o777).toBe(0o600);

    const second = await LocalChain.open({ dataFile });
    const secondRpc = await startLocalRpc(second);
    try {
      expect({
        feePayer: second.feePayer,
        mint: second.mint,
        buyer: second.tokenBalance(buyer.address),
        host: second.tokenBalance(host),
        feePayerLamports: second.solBalance(second.feePayer),
      }).toEqual(before);
      expect(before.buyer).toBe(7_500_000n);
      expect(second.transactionStatus(settled.transaction)).toEqual({ ok: true });
      expect(second.transactionStatus(funded.transaction)).toEqual({ ok: true });
      expect(second.signaturesFor(funded.tokenAccount)).toEqual([settled.transaction, funded.transaction]);

      // The restored chain still runs: another payment, on a blockhash handed out after the restart.
      const again = await createLocalFacilitator(second).settle(
        await pay(buyer, secondRpc.url, requirementsFor(second, host, '1000000')),
        requirementsFor(second, host, '1000000'),
      );
      expect(again.success).toBe(true);
      expect(second.tokenBalance(host)).toBe(3_500_000n);
    } finally {
      await secondRpc.close();
      await second.close();
    }

    // A change reaches the disk by itself, shortly after, without save() or close().
    const running = await LocalChain.open({ dataFile });
    try {
      await running.faucet(buyer.address, 1n);
      expect(running.tokenBalance(buyer.address)).toBe(6_500_001n);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const reader = await LocalChain.open({ dataFile });
      expect(reader.tokenBalance(buyer.address)).toBe(6_500_001n);
      await reader.close();
    } finally {
      await running.close();
    }

    // The keys are part of the state: without them the snapshot is refused, not silently replaced.
    await unlink(`${dataFile}.keys.json`);
    await expect(LocalChain.open({ dataFile })).rejects.toMatchObject({ code: 'state_conflict' });
  });
});
