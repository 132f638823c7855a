import {
  messageSignatureHeaders,
  messageToSign,
  requestToSign,
  signedHeaders,
  type MessageSignatureHeaders,
  type SignedHeaders,
  type SignMessageRequestInput,
  type SignRequestInput,
} from '@townhall/auth/portable';
import { importAgentKey, type PageKey } from './agent-key.js';

/** What this page reads of the API document: its server, and which operations are signed. */
export interface ApiDocument {
  servers?: Array<{ url?: unknown }>;
  paths?: Record<string, Record<string, ApiOperation | undefined> | undefined>;
}

interface ApiOperation {
  operationId?: string;
  security?: Array<Record<string, unknown>>;
}

/** A request as Swagger UI hands it to its `requestInterceptor`: fetch's URL and method, its headers and body as given. */
export type SwaggerRequest = Pick<Request, 'url' | 'method'> & {
  headers: Record<string, string>;
  body?: unknown;
  /** The document itself being loaded: never signed. */
  loadSpec?: boolean;
};

/** What `signRequest` in @townhall/auth takes, but the key: here it lives in WebCrypto. */
export type SigningInput = Omit<SignRequestInput, 'key'>;

/** What `signMessageRequest` in @townhall/auth takes, but the key. */
export type MessageSigningInput = Omit<SignMessageRequestInput, 'key'>;

/** How "Try it out" signs (docs/protocol/signing.md): the server takes either. */
export type SignatureScheme = 'service-auth-v1' | 'rfc9421';
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['service-auth-v1', 'rfc9421'];

const encoder = new TextEncoder();

/**
 * What `signRequest` in @townhall/auth answers for the same input (service-auth-v1,
 * docs/protocol/signing.md section 2: the same signing string, from the same code), the
 * signature made by WebCrypto with a key that cannot be exported.
 */
export async function signRequest(key: PageKey, input: SigningInput): Promise<SignedHeaders> {
  const request = requestToSign(key.agentId, input);
  const signature = await crypto.subtle.sign(
    { name: 'Ed25519' },
    key.privateKey,
    encoder.encode(request.signingString),
  );
  return signedHeaders(request, new Uint8Array(signature));
}

/**
 * What `signMessageRequest` in @townhall/auth answers for the same input (RFC 9421, the same
 * signature base from the same code), the signature made by WebCrypto.
 */
export async function signMessageRequest(
  key: PageKey,
  input: MessageSigningInput,
): Promise<MessageSignatureHeaders> {
  const message = messageToSign(key.agentId, input);
  const signature = await crypto.subtle.sign(
    { name: 'Ed25519' },
    key.privateKey,
    encoder.encode(message.signatureBase),
  );
  return messageSignatureHeaders(message, new Uint8Array(signature));
}

/** The operation of the document a request goes to; like Fastify, a static segment beats a parameter. */
export function operationOf(spec: ApiDocument, method: string, path: string): ApiOperation | undefined {
  const segments = path.split('/');
  let found: ApiOperation | undefined;
  let foundRank: string | undefined;
  for (const [template, item] of Object.entries(spec.paths ?? {})) {
    const operation = item?.[method.toLowerCase()];
    const parts = template.split('/');
    if (!operation || parts.length !== segments.length) continue;
    const rank = parts.map((part) => (/^\{[^}]+\}$/.test(part) ? '0' : '1')).join('');
    const matches = parts.every((part, i) => rank[i] === '0' || part === segments[i]);
    if (matches && (foundRank === undefined || rank > foundRank)) {
      found = operation;
      foundRank = rank;
    }
  }
  return found;
}

function isSigned(operation: ApiOperation | undefined): boolean {
  return (operation?.security ?? []).some((requirement) => Object.keys(requirement).length > 0);
}

/** The bytes fetch will send: what the signature must cover. */
function bodyBytes(request: SwaggerRequest): Uint8Array {
  const body = request.body;
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype) {
    request.body = JSON.stringify(body);
    return encoder.encode(request.body as string);
  }
  throw new Error('This body (form data or a file) cannot be signed here: send it with the SDK or the CLI');
}

/**
 * The docs page's signer. The key pasted into the page lives in this object only: it is never
 * sent, never stored (no localStorage, no cookie), and a reload forgets it.
 */
export class DocsSigner {
  private current: PageKey | undefined;
  private currentScheme: SignatureScheme = 'service-auth-v1';
  private readonly listeners = new Set<() => void>();

  constructor(
    /** The document Swagger UI has loaded, once it has. */
    private readonly document: () => ApiDocument | undefined,
    /** The page's own URL, which a relative request URL is resolved against. */
    private readonly pageUrl: () => string,
  ) {}

  /** Who signs, if anyone. */
  get agentId(): string | undefined {
    return this.current?.agentId;
  }

  /** Signs from now on with the key pasted; answers its agentId. */
  async setKey(text: string): Promise<string> {
    this.current = await importAgentKey(text);
    this.changed();
    return this.current.agentId;
  }

  forgetKey(): void {
    this.current = undefined;
    this.changed();
  }

  /** How requests are signed: service-auth-v1 (the default) or RFC 9421 with the same key. */
  get scheme(): SignatureScheme {
    return this.currentScheme;
  }

  setScheme(scheme: SignatureScheme): void {
    if (!SIGNATURE_SCHEMES.includes(scheme)) throw new Error(`Not a signature scheme: ${String(scheme)}`);
    this.currentScheme = scheme;
    this.changed();
  }

  /** Calls `listener` whenever the key changes; answers how to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Swagger UI's requestInterceptor: signs requests to signed operations while a key is set. */
  readonly intercept = async (request: SwaggerRequest): Promise<SwaggerRequest> => {
    const spec = this.document();
    const key = this.current;
    if (request.loadSpec || !spec || !key) return request;
    const server = spec.servers?.[0]?.url;
    if (typeof server !== 'string') return request;
    // The document's server is PUBLIC_BASE_URL: the audience line of every signing string, and
    // the origin of every RFC 9421 signature base.
    const audience = server.replace(/\/+$/, '');
    const base = new URL(audience);
    const url = new URL(request.url, this.pageUrl());
    const prefix = base.pathname.replace(/\/+$/, '');
    if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`)) return request;
    if (!isSigned(operationOf(spec, request.method, url.pathname.slice(prefix.length)))) return request;
    const target = url.pathname + url.search;
    const body = bodyBytes(request);
    if (this.currentScheme === 'rfc9421') {
      const signed = await signMessageRequest(key, {
        origin: audience,
        method: request.method,
        target,
        body,
      });
      request.headers = { ...request.headers, ...signed };
      return request;
    }
    const signed = await signRequest(key, { audience, method: request.method, target, body });
    request.headers = { ...request.headers, Authorization: signed.authorization, 'X-Nonce': signed.nonce };
    return request;
  };

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
