import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalChainError } from '../errors.js';
import type { LocalChain } from '../local-chain.js';
import { RPC_METHODS } from './methods.js';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RpcError,
} from './params.js';

export interface LocalRpc {
  url: string;
  close(): Promise<void>;
}

/** Bodies larger than this are refused unread (413): a JSON-RPC call to this chain is a few KiB. */
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_BATCH = 100;
const LOOPBACK = /^(127(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}|::1)$/;

type JsonRpcId = string | number | null;
interface JsonRpcAnswer {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

// JSON.rawJSON (Node 21+, not yet in TypeScript's ES2023 lib) writes a u64 as the bare JSON number Solana
// sends, without going through a float.
const rawJson = (text: string): unknown =>
  (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

function serialize(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) =>
    typeof member === 'bigint' ? rawJson(member.toString()) : member,
  );
}

function failure(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcAnswer {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

function answerOne(chain: LocalChain, request: unknown): JsonRpcAnswer {
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    return failure(null, INVALID_REQUEST, 'Invalid request');
  const { jsonrpc, id, method, params } = request as Record<string, unknown>;
  const answerId: JsonRpcId =
    typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  if (
    jsonrpc !== '2.0' ||
    typeof method !== 'string' ||
    (id !== undefined && id !== null && answerId === null)
  )
    return failure(answerId, INVALID_REQUEST, 'Invalid request');
  if (params !== undefined && params !== null && !Array.isArray(params))
    return failure(answerId, INVALID_PARAMS, 'Invalid params: params must be an array');
  const handler = RPC_METHODS.get(method);
  if (!handler) return failure(answerId, METHOD_NOT_FOUND, 'Method not found');
  try {
    return { jsonrpc: '2.0', id: answerId, result: handler(chain, (params ?? []) as readonly unknown[]) };
  } catch (error) {
    if (error instanceof RpcError) return failure(answerId, error.code, error.message, error.data);
    if (error instanceof LocalChainError && error.code === 'invalid_argument')
      return failure(answerId, INVALID_PARAMS, `Invalid params: ${error.message}`);
    // Anything else is this server's fault, reported to the caller rather than taking the process down.
    return failure(
      answerId,
      INTERNAL_ERROR,
      `Internal error: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The answer to one HTTP body: a single call, or a batch (an array of calls) as Solana's RPC accepts. */
export function answerBody(chain: LocalChain, body: string): string {
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    return serialize(failure(null, PARSE_ERROR, 'Parse error'));
  }
  if (!Array.isArray(request)) return serialize(answerOne(chain, request));
  if (request.length === 0) return serialize(failure(null, INVALID_REQUEST, 'Invalid request'));
  if (request.length > MAX_BATCH)
    return serialize(
      failure(null, INVALID_REQUEST, `Invalid request: a batch holds at most ${MAX_BATCH} calls`),
    );
  return serialize(request.map((one) => answerOne(chain, one)));
}

function send(
  response: ServerResponse,
  status: number,
  body: string,
  type = 'application/json; charset=utf-8',
): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function handle(chain: LocalChain, request: IncomingMessage, response: ServerResponse): void {
  if (request.method === 'GET' && request.url === '/health')
    return send(response, 200, 'ok', 'text/plain; charset=utf-8');
  if (request.method !== 'POST') {
    response.setHeader('allow', 'POST');
    return send(response, 405, serialize(failure(null, INVALID_REQUEST, 'Use POST')));
  }
  const refuseTooLarge = (): void => {
    // Answer, then drop the connection: reading the rest of an oversized body is what a flood wants.
    if (response.headersSent) return;
    response.setHeader('connection', 'close');
    response.once('finish', () => request.destroy());
    send(
      response,
      413,
      serialize(failure(null, INVALID_REQUEST, `Request body larger than ${MAX_BODY_BYTES} bytes`)),
    );
  };
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return refuseTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return refuseTooLarge();
    chunks.push(chunk);
  });
  request.on('end', () => {
    if (size > MAX_BODY_BYTES) return;
    let body: string;
    try {
      body = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      return send(response, 200, serialize(failure(null, PARSE_ERROR, 'Parse error: the body is not UTF-8')));
    }
    send(response, 200, answerBody(chain, body));
  });
  // A client that hangs up mid-body leaves nothing to answer.
  request.on('error', () => request.destroy());
}

/** Solana JSON-RPC 2.0 over HTTP POST on 127.0.0.1 (port 0 = a free one). */
export async function startLocalRpc(
  chain: LocalChain,
  options: { port?: number; host?: string } = {},
): Promise<LocalRpc> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.test(host))
    throw new LocalChainError(
      'invalid_argument',
      `the local RPC listens on loopback only (127.0.0.1 or ::1), not ${host}`,
    );
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new LocalChainError('invalid_argument', `port must be 0..65535, not ${port}`);

  const server = createServer(
    { requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 },
    (request, response) => {
      try {
        handle(chain, request, response);
      } catch (error) {
        // handle() catches every method's errors; reaching here is a bug, still answered, never a crash.
        send(response, 500, serialize(failure(null, INTERNAL_ERROR, `Internal error: ${String(error)}`)));
      }
    },
  );
  // Malformed HTTP (bad headers, garbage bytes) gets a 400 and a closed socket from here, not an exception.
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const url = `http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
