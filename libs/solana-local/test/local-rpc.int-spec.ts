import { connect } from 'node:net';
import { request } from 'node:http';
import {
  address,
  blockhash,
  createSolanaRpc,
  getBase58Decoder,
  getBase64Encoder,
  isSolanaError,
  signature,
  type Base64EncodedWireTransaction,
} from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder } from '@solana-program/token';
import { LocalChain, startLocalRpc, type LocalRpc } from '../src/index.js';
import { keyFromSeed, pay, requirementsFor, wireTransactionOf } from './payments.js';

let chain: LocalChain;
let server: LocalRpc;
let rpc: ReturnType<typeof createSolanaRpc>;

beforeAll(async () => {
  chain = await LocalChain.open();
  server = await startLocalRpc(chain);
  rpc = createSolanaRpc(server.url);
});

afterAll(async () => {
  await server.close();
  await chain.close();
});

/** One raw HTTP exchange, for what no well-behaved client would send. */
function post(
  body: string | Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const call = request(
      server.url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

/** The JSON-RPC error code kit surfaces (kit keeps the server's numeric code), or undefined on success. */
async function rpcErrorCode(pending: Promise<unknown>): Promise<number | undefined> {
  try {
    await pending;
    return undefined;
  } catch (error) {
    if (isSolanaError(error)) return error.context.__code;
    throw error;
  }
}

async function call(method: string, params: unknown, id: unknown = 1): Promise<Record<string, unknown>> {
  const answer = await post(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as Record<string, unknown>;
}

describe('the local JSON-RPC, through @solana/kit', () => {
  it('answers the reads an x402 client and a reconciler make, in Solana shapes', async () => {
    const buyer = await keyFromSeed(11);
    const host = (await keyFromSeed(111)).address;
    const funded = await chain.faucet(buyer.address, 10_000_000n);
    await chain.ensureTokenAccount(host);

    const { value: lamports } = await rpc.getBalance(address(chain.feePayer)).send();
    expect(lamports).toBe(chain.solBalance(chain.feePayer));
    expect((await rpc.getBalance(buyer.address).send()).value).toBe(0n);

    const { value: balance } = await rpc.getTokenAccountBalance(address(funded.tokenAccount)).send();
    expect(balance).toEqual({ amount: '10000000', decimals: 6, uiAmount: 10, uiAmountString: '10' });

    const { value: mint } = await rpc.getAccountInfo(address(chain.mint), { encoding: 'base64' }).send();
    expect(mint).toMatchObject({ owner: TOKEN_PROGRAM_ADDRESS, executable: false, space: 82n });
    const decoded = getMintDecoder().decode(getBase64Encoder().encode(mint?.data[0] ?? ''));
    expect(decoded).toMatchObject({ decimals: 6, isInitialized: true, supply: 10_000_000n });
    const parsed = await rpc.getAccountInfo(address(funded.tokenAccount), { encoding: 'jsonParsed' }).send();
    expect(parsed.value?.data).toMatchObject({
      program: 'spl-token',
      parsed: { type: 'account', info: { mint: chain.mint, owner: buyer.address, state: 'initialized' } },
    });
    expect((await rpc.getAccountInfo(host, { encoding: 'base64' }).send()).value).toBeNull();
    const many = await rpc.getMultipleAccounts([address(chain.mint), host], { encoding: 'base64' }).send();
    expect(many.value.map((account) => account?.owner ?? null)).toEqual([TOKEN_PROGRAM_ADDRESS, null]);

    const { value: statuses } = await rpc
      .getSignatureStatuses([signature(funded.transaction)], { searchTransactionHistory: true })
      .send();
    expect(statuses[0]).toMatchObject({ err: null, confirmationStatus: 'finalized', status: { Ok: null } });

    const history = await rpc.getSignaturesForAddress(address(funded.tokenAccount), { limit: 10 }).send();
    expect(history.map((entry) => entry.signature)).toEqual([funded.transaction]);
    expect(history[0]?.memo).toMatch(/^\[\d+\] townhall-local faucet /);

    const { value: latest } = await rpc.getLatestBlockhash().send();
    expect((await rpc.isBlockhashValid(latest.blockhash).send()).value).toBe(true);
    const unknown = blockhash(getBase58Decoder().decode(new Uint8Array(32).fill(9)));
    expect((await rpc.isBlockhashValid(unknown).send()).value).toBe(false);
    expect(latest.lastValidBlockHeight).toBeGreaterThan(await rpc.getBlockHeight().send());

    const landed = await rpc
      .getTransaction(signature(funded.transaction), {
        encoding: 'base64',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    expect(landed?.transaction[0]).toBe(chain.transaction(funded.transaction)?.transaction);
    expect(landed?.meta?.err).toBeNull();
    expect(landed?.version).toBe(0);

    // The programs an x402 payment runs are loaded, and executable: SPL Token, Associated Token Account, Memo.
    const programs = await rpc
      .getMultipleAccounts(
        [
          address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
          address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'),
          address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
          address('ComputeBudget111111111111111111111111111111'),
        ],
        { encoding: 'base64', dataSlice: { offset: 0, length: 0 } },
      )
      .send();
    expect(programs.value.map((account) => account?.executable)).toEqual([true, true, true, true]);

    expect(await rpc.getHealth().send()).toBe('ok');
    expect(await rpc.getGenesisHash().send()).toBe('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG');
    expect((await rpc.getVersion().send())['solana-core']).toMatch(/^0\.0\.0-litesvm\./);
    expect(await rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2_039_280n);
    expect(await rpc.getSlot().send()).toBe(await rpc.getBlockHeight().send());
  });

  it('simulates and sends a wire transaction as Solana does, signatures checked', async () => {
    const buyer = await keyFromSeed(12);
    const host = (await keyFromSeed(112)).address;
    await chain.faucet(buyer.address, 5_000_000n);
    await chain.ensureTokenAccount(host);
    const payment = await pay(buyer, server.url, requirementsFor(chain, host));
    const partial = wireTransactionOf(payment) as Base64EncodedWireTransaction;

    const simulated = await rpc.simulateTransaction(partial, { encoding: 'base64', sigVerify: false }).send();
    expect(simulated.value.err).toBeNull();
    expect(simulated.value.logs).toContain('Program log: townhall:test');
    // The fee payer has not signed yet: with signatures checked, Solana's -32003.
    expect(
      await rpcErrorCode(rpc.simulateTransaction(partial, { encoding: 'base64', sigVerify: true }).send()),
    ).toBe(-32003);

    const signed = (await chain.signer.signTransaction(
      partial,
      address(chain.feePayer),
      chain.network,
    )) as Base64EncodedWireTransaction;
    const sent = await rpc.sendTransaction(signed, { encoding: 'base64' }).send();
    expect(chain.transactionStatus(sent)).toEqual({ ok: true });
    expect(chain.tokenBalance(host)).toBe(2_500_000n);
    // Sent again: the preflight reports it as Solana's -32002, and nothing moves twice.
    expect(await rpcErrorCode(rpc.sendTransaction(signed, { encoding: 'base64' }).send())).toBe(-32002);
    expect(chain.tokenBalance(host)).toBe(2_500_000n);
  });
});

describe('the local JSON-RPC, against hostile requests', () => {
  it('answers JSON-RPC errors, never a crash, and keeps serving', async () => {
    expect(JSON.parse((await post('{"jsonrpc":"2.0","id":1,"method":')).body)).toMatchObject({
      error: { code: -32700 },
      id: null,
    });
    expect(JSON.parse((await post(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).body)).toMatchObject({
      error: { code: -32700 },
    });
    expect(await call('getEverything', [])).toMatchObject({ error: { code: -32601 }, id: 1 });
    expect(await call('__proto__', [])).toMatchObject({ error: { code: -32601 } });
    expect(await call('constructor', [])).toMatchObject({ error: { code: -32601 } });
    expect(await call('getBalance', [42])).toMatchObject({ error: { code: -32602 } });
    expect(await call('getBalance', { address: chain.feePayer })).toMatchObject({ error: { code: -32602 } });
    expect(await call('getBalance', [chain.feePayer, 'confirmed'])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('getSignatureStatuses', ['not-an-array'])).toMatchObject({ error: { code: -32602 } });
    expect(await call('getSignatureStatuses', [Array(300).fill('1')])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('getSignaturesForAddress', [chain.feePayer, { limit: 1e9 }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('getMinimumBalanceForRentExemption', [-1])).toMatchObject({ error: { code: -32602 } });
    expect(await call('getMinimumBalanceForRentExemption', [1e300])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('sendTransaction', ['AAAA', { encoding: 'base64' }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('sendTransaction', ['@@@@', { encoding: 'base64' }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('sendTransaction', ['A'.repeat(100_000), { encoding: 'base64' }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('simulateTransaction', [null])).toMatchObject({ error: { code: -32602 } });
    expect(await call('getTransaction', ['x', { encoding: 'base64' }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('getAccountInfo', [chain.mint, { encoding: 'base64+zstd' }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('getAccountInfo', [chain.mint, { dataSlice: 'all' }])).toMatchObject({
      error: { code: -32602 },
    });
    expect(await call('getHealth', [], { nested: true })).toMatchObject({
      error: { code: -32600 },
      id: null,
    });
    expect(JSON.parse((await post('{"jsonrpc":"1.0","id":3,"method":"getHealth"}')).body)).toMatchObject({
      error: { code: -32600 },
    });
    expect(JSON.parse((await post('"just a string"')).body)).toMatchObject({ error: { code: -32600 } });
    expect(JSON.parse((await post('[]')).body)).toMatchObject({ error: { code: -32600 } });
    expect(JSON.parse((await post('['.repeat(500_000))).body)).toMatchObject({ error: { code: -32700 } });
    const deep = JSON.parse((await post(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).body) as unknown[];
    expect(deep).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } }]);

    // NUL bytes and lone surrogates inside strings: refused as params, echoed safely as ids.
    expect(await call('getBalance', ['\u0000' + chain.feePayer])).toMatchObject({ error: { code: -32602 } });
    expect(await call('getBalance', ['\ud800\udc00\ud800'])).toMatchObject({ error: { code: -32602 } });
    expect(await call('getHealth', [], 'id\u0000\ud800')).toMatchObject({
      result: 'ok',
      id: 'id\u0000\ud800',
    });
    expect(
      JSON.parse((await post('{"jsonrpc":"2.0","id":"\\ud800","method":"get\\u0000Health"}')).body),
    ).toMatchObject({
      error: { code: -32601 },
      id: '\ud800',
    });

    // A batch, as Solana accepts: one answer per call, in order, good and bad mixed.
    const batch = JSON.parse(
      (
        await post(
          JSON.stringify([
            { jsonrpc: '2.0', id: 1, method: 'getHealth' },
            { jsonrpc: '2.0', id: 2, method: 'nope' },
            7,
            { jsonrpc: '2.0', id: 4, method: 'getBalance', params: [chain.feePayer] },
          ]),
        )
      ).body,
    ) as Record<string, unknown>[];
    expect(batch.map((answer) => answer['id'])).toEqual([1, 2, null, 4]);
    expect(batch[0]).toMatchObject({ result: 'ok' });
    expect(batch[1]).toMatchObject({ error: { code: -32601 } });
    expect(batch[2]).toMatchObject({ error: { code: -32600 } });
    expect(batch[3]).toMatchObject({ result: { value: Number(chain.solBalance(chain.feePayer)) } });

    // 2 MiB: refused (413), or the connection cut while still uploading; either way not processed.
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getHealth',
      params: ['x'.repeat(2 * 1024 * 1024)],
    });
    const refused = await post(huge).then(
      (answer) => answer.status,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(refused);
    // The same without a content-length (chunked): cut off once it passes the limit.
    const chunked = await post(huge, { 'transfer-encoding': 'chunked' }).then(
      (answer) => answer.status,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(chunked);

    // Not HTTP at all.
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () =>
        socket.end('\u0000\u0001garbage\r\n\r\n'),
      );
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
      socket.resume();
    });

    const get = await fetch(server.url);
    expect(get.status).toBe(405);
    expect(await (await fetch(`${server.url}/health`)).text()).toBe('ok');
    expect(await rpc.getHealth().send()).toBe('ok');
  });

  it('listens on loopback only', async () => {
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    await expect(startLocalRpc(chain, { host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
