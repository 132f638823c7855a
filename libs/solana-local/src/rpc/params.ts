import { isAddress, isBlockhash, isSignature, type Address } from '@solana/kit';

/** A JSON-RPC error answer; the codes are JSON-RPC's and Solana's own (-320xx). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Solana: `sendTransaction` preflight simulation failed. */
export const SEND_TRANSACTION_PREFLIGHT_FAILURE = -32002;
/** Solana: a transaction's signatures do not verify. */
export const TRANSACTION_SIGNATURE_VERIFICATION_FAILURE = -32003;
/** Solana: a versioned transaction asked for without `maxSupportedTransactionVersion`. */
export const UNSUPPORTED_TRANSACTION_VERSION = -32015;

export function invalidParams(message: string): RpcError {
  return new RpcError(INVALID_PARAMS, `Invalid params: ${message}`);
}

export type Params = readonly unknown[];
export type Config = Readonly<Record<string, unknown>>;

export function address(params: Params, index: number, name = 'address'): Address {
  const value = params[index];
  if (typeof value !== 'string' || !isAddress(value))
    throw invalidParams(`${name} must be a base58 Solana address`);
  return value;
}

export function signature(value: unknown): string {
  if (typeof value !== 'string' || !isSignature(value))
    throw invalidParams('a signature must be base58 of 64 bytes');
  return value;
}

export function blockhash(params: Params, index: number): string {
  const value = params[index];
  if (typeof value !== 'string' || !isBlockhash(value))
    throw invalidParams('blockhash must be base58 of 32 bytes');
  return value;
}

export function array(params: Params, index: number, name: string, max: number): readonly unknown[] {
  const value = params[index];
  if (!Array.isArray(value)) throw invalidParams(`${name} must be an array`);
  if (value.length > max) throw invalidParams(`Too many inputs provided; max ${max}`);
  return value;
}

export function string(params: Params, index: number, name: string): string {
  const value = params[index];
  if (typeof value !== 'string') throw invalidParams(`${name} must be a string`);
  return value;
}

/** The configuration object at `index`: absent or null is `{}`, anything but a plain object is refused. */
export function config(params: Params, index: number): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParams('the configuration must be an object');
  return value as Config;
}

export function optionalBoolean(source: Config, key: string): boolean | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidParams(`${key} must be a boolean`);
  return value;
}

export function optionalInteger(source: Config, key: string, min: number, max: number): number | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw invalidParams(`${key} must be an integer in ${min}..${max}`);
  return value;
}

export function optionalChoice<T extends string>(
  source: Config,
  key: string,
  choices: readonly T[],
): T | undefined {
  const value = source[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value))
    throw invalidParams(`${key} must be one of ${choices.join(', ')}`);
  return value as T;
}

export function integer(params: Params, index: number, name: string, min: number, max: number): number {
  const value = params[index];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw invalidParams(`${name} must be an integer in ${min}..${max}`);
  return value;
}

/** Refuses members a method does not know in its position (Solana's parser rejects extra params too). */
export function atMost(params: Params, count: number): void {
  if (params.length > count) throw invalidParams(`at most ${count} parameters`);
}
