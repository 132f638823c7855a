import { createHash, randomBytes } from 'node:crypto';
import {
  agentKeyThumbprint,
  contentDigest,
  derivedComponentValue,
  DERIVED_COMPONENTS,
  ed25519Sign,
  newMessageNonce,
  REQUIRED_COMPONENTS,
  SIGNATURE_ALGORITHM,
  SIGNATURE_LABEL,
  signMessageRequest,
  WEB_BOT_AUTH_TAG,
  type AgentKey,
  type DerivedComponent,
  type MessageKeyid,
} from '@townhall/auth';

/**
 * RFC 9421 HTTP Message Signatures as the fuzzer sends them (docs/protocol/signing.md "RFC 9421
 * signatures"): valid ones by `signMessageRequest` of `@townhall/auth`, hostile ones from a draft
 * of the same signature (its components, parameters and header fields as text) that a
 * `MessageTamper` changes before it is signed, or whose header fields it changes after.
 * Everything is made at send time, for now; the plan only says what to make.
 */

export type HeaderList = Array<[string, string]>;

/** What the gateway must make of a request signed so. */
export type MessageExpectation =
  /** No `auth.*` refusal of the signature: a valid-ish request signed by signMessageRequest. */
  | 'verified'
  /** On a signed route, never an answer below 400. */
  | 'refused'
  /** Anything but a 5xx (what every answer is held to). */
  | 'any';

export interface MessageTamper {
  /** Changes what is signed, before the signature is made. */
  draft?: (draft: MessageDraft, context: MessageContext) => void;
  /** Changes the header fields after the signature is made. */
  sent?: (headers: HeaderList, context: MessageContext) => HeaderList;
  /** Only for a request with a body. */
  needsBody?: boolean;
  /** The gateway must refuse it on a signed route (401, or 400/413/431 for the bytes). */
  refused: boolean;
  /** Signed by an agent the gateway has never seen (the plan's signer becomes `fresh`). */
  fresh?: boolean;
  /** keyid names the key so; otherwise as the plan chose. */
  keyid?: MessageKeyid;
  /** Tagged web-bot-auth (true) or not (false); otherwise as the plan chose. */
  tag?: boolean;
  /** The same signed request is sent twice: the second must be 401 auth.nonce_replayed. */
  replay?: boolean;
}

export interface MessagePlan {
  keyid: MessageKeyid;
  /** Tagged `web-bot-auth`. */
  tag: boolean;
  /** What is hostile about the signature; none: signed by signMessageRequest. */
  tamper?: MessageTamper;
  expect: MessageExpectation;
}

/** A signature about to be made, as text. */
export interface MessageDraft {
  label: string;
  /** The covered components, each as serialized in the inner list (`"@method"`, `"@query-param";name="a"`), in order. */
  components: string[];
  /** The signature parameters as serialized: `[name, value]` is `;name=value`. */
  params: Array<[name: string, value: string]>;
  /** The header fields sent with the signature (Content-Digest, Signature-Agent), lower-case names; a covered field's value in the base comes from here. */
  fields: HeaderList;
}

export interface MessageContext {
  key: AgentKey;
  /** The signing time, whole Unix seconds. */
  nowSeconds: number;
  /** The body as sent (an empty one is none). */
  body: Uint8Array | undefined;
  /** An agent of the fixtures that is not the signer. */
  otherAgentId: string;
  /** The same request signed as service-auth-v1: its Authorization and X-Nonce. */
  serviceAuth: () => HeaderList;
}

export interface MessageRequest {
  method: string;
  /** The audience (the server's PUBLIC_BASE_URL). */
  origin: string;
  /** Path and query as sent. */
  target: string;
}

/** An RFC 8941 sf-string. */
export const sfString = (text: string): string => `"${text.replace(/[\\"]/g, '\\$&')}"`;

/** RFC 9530 Content-Digest with SHA-512. */
export const sha512Digest = (bytes: Uint8Array): string =>
  `sha-512=:${createHash('sha512').update(bytes).digest('base64')}:`;

/** Standard base64 of 64 random bytes (88 characters): Web Bot Auth's nonce. */
export const webBotAuthNonce = (): string => randomBytes(64).toString('base64');

const nonEmpty = (body: Uint8Array | undefined): body is Uint8Array => body !== undefined && body.length > 0;

/** Sets (or, with undefined, removes) a signature parameter, keeping its place. */
export function setParam(draft: MessageDraft, name: string, value: string | undefined): void {
  const at = draft.params.findIndex(([key]) => key === name);
  if (value === undefined) {
    if (at >= 0) draft.params.splice(at, 1);
  } else if (at >= 0) draft.params[at] = [name, value];
  else draft.params.push([name, value]);
}

/** Sets (or, with undefined, removes) a header field of the draft. */
export function setField(draft: MessageDraft, name: string, value: string | undefined): void {
  draft.fields = replaceHeader(draft.fields, name, value);
}

/** The list with every `name` line replaced by one (at the first's place, else at the end), or removed. */
export function replaceHeader(headers: HeaderList, name: string, value: string | undefined): HeaderList {
  const at = headers.findIndex(([key]) => key === name);
  const rest = headers.filter(([key]) => key !== name);
  if (value === undefined) return rest;
  rest.splice(at < 0 ? rest.length : at, 0, [name, value]);
  return rest;
}

/** The Signature field's bytes (`label=:base64:`) changed by `change`. */
export function withSignatureBytes(headers: HeaderList, change: (bytes: Buffer) => Buffer): HeaderList {
  const signature = headers.find(([name]) => name === 'signature')?.[1] ?? '';
  const match = /^([^=]+)=:([^:]*):$/.exec(signature);
  if (!match) return headers;
  const bytes = change(Buffer.from(match[2]!, 'base64'));
  return replaceHeader(headers, 'signature', `${match[1]}=:${bytes.toString('base64')}:`);
}

/** The draft of what signMessageRequest would sign, with `keyid` and `tag` as planned. */
export function messageDraft(
  plan: Pick<MessagePlan, 'keyid' | 'tag'>,
  context: Pick<MessageContext, 'key' | 'nowSeconds' | 'body'>,
  nonce: string = newMessageNonce(),
): MessageDraft {
  const digest = nonEmpty(context.body) ? contentDigest(context.body) : undefined;
  const keyid = plan.keyid === 'thumbprint' ? agentKeyThumbprint(context.key.agentId) : context.key.agentId;
  const created = context.nowSeconds;
  return {
    label: SIGNATURE_LABEL,
    components: [...REQUIRED_COMPONENTS, ...(digest === undefined ? [] : ['content-digest'])].map(sfString),
    params: [
      ['created', String(created)],
      ['expires', String(created + 60)],
      ['nonce', sfString(nonce)],
      ['keyid', sfString(keyid)],
      ['alg', sfString(SIGNATURE_ALGORITHM)],
      ...(plan.tag ? [['tag', sfString(WEB_BOT_AUTH_TAG)] as [string, string]] : []),
    ],
    fields: digest === undefined ? [] : [['content-digest', digest]],
  };
}

/** The inner list of the draft, as Signature-Input carries it and `@signature-params` covers it. */
export function signatureParams(draft: MessageDraft): string {
  const params = draft.params.map(([name, value]) => (value === '' ? `;${name}` : `;${name}=${value}`));
  return `(${draft.components.join(' ')})${params.join('')}`;
}

/**
 * Signs the draft as RFC 9421 section 2.5 says: a line per covered component, its value derived
 * from the request or taken from the draft's header fields (unknown ones are empty), then
 * `"@signature-params"`. Components the service refuses are signed all the same.
 */
export function signDraft(draft: MessageDraft, key: AgentKey, request: MessageRequest): HeaderList {
  const q = request.target.indexOf('?');
  const components = {
    method: request.method,
    origin: request.origin,
    path: q === -1 ? request.target : request.target.slice(0, q),
    query: q === -1 ? '' : request.target.slice(q + 1),
  };
  const valueOf = (item: string): string => {
    const name = /^"([^"]*)"/.exec(item)?.[1] ?? item;
    if ((DERIVED_COMPONENTS as readonly string[]).includes(name) && item === sfString(name))
      return derivedComponentValue(name as DerivedComponent, components);
    return draft.fields.find(([field]) => field === name)?.[1].trim() ?? '';
  };
  const params = signatureParams(draft);
  const base = [
    ...draft.components.map((item) => `${item}: ${valueOf(item)}`),
    `"@signature-params": ${params}`,
  ].join('\n');
  const signature = Buffer.from(ed25519Sign(Buffer.from(base, 'utf8'), key)).toString('base64');
  return [
    ['signature-input', `${draft.label}=${params}`],
    ['signature', `${draft.label}=:${signature}:`],
    ...draft.fields,
  ];
}

/** The header fields of a request signed under RFC 9421 as planned, made now. */
export function messageSignatureHeaders(
  plan: MessagePlan,
  request: MessageRequest,
  context: MessageContext,
): HeaderList {
  const keyid = plan.tamper?.keyid ?? plan.keyid;
  const tag = plan.tamper?.tag ?? plan.tag;
  const { tamper } = plan;
  if (!tamper) {
    const signed = signMessageRequest({
      key: context.key,
      method: request.method,
      origin: request.origin,
      target: request.target,
      ...(nonEmpty(context.body) ? { body: context.body } : {}),
      keyid,
      nowMs: context.nowSeconds * 1000,
      ...(tag ? { tag: WEB_BOT_AUTH_TAG } : {}),
    });
    const headers: HeaderList = [
      ['signature-input', signed['Signature-Input']],
      ['signature', signed.Signature],
    ];
    if (signed['Content-Digest'] !== undefined) headers.push(['content-digest', signed['Content-Digest']]);
    return headers;
  }
  const draft = messageDraft({ keyid, tag }, context);
  tamper.draft?.(draft, context);
  const headers = signDraft(draft, context.key, request);
  return tamper.sent ? tamper.sent(headers, context) : headers;
}
