import { createHash } from 'node:crypto';
import { agentKeyThumbprint, contentDigest } from '@townhall/auth';
import {
  replaceHeader,
  setField,
  setParam,
  sfString,
  sha512Digest,
  webBotAuthNonce,
  withSignatureBytes,
  type HeaderList,
  type MessageContext,
  type MessageDraft,
  type MessageTamper,
} from './message-signing.js';
import { RawJson, deeplyNested } from './raw-json.js';

/**
 * The inputs that break services, each with a label: the label names the failure class a finding
 * is filed under (route + status + cause), so keep them short and stable.
 */
export interface Hostile<T> {
  label: string;
  value: T;
}

const h = <T>(label: string, value: T): Hostile<T> => ({ label, value });

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** Members of a JSON body where a string belongs. JS strings: NUL and lone surrogates go out as JSON escapes. */
export const HOSTILE_STRINGS: readonly Hostile<unknown>[] = [
  h('string:nul', 'a\u0000b'),
  h('string:nul-only', '\u0000'),
  h('string:lone-high-surrogate', 'x\ud800y'),
  h('string:lone-low-surrogate', '\udc00'),
  h('string:reversed-surrogates', '\udc00\ud800'),
  h('string:escaped-lone-surrogate', new RawJson('"\\ud800"')),
  h('string:escaped-nul', new RawJson('"\\u0000"')),
  h('string:long-10k', 'a'.repeat(10_000)),
  h('string:long-60k', 'b'.repeat(60_000)),
  h('string:multibyte', 'Grüße, 你好, مرحبا, 😀'),
  h('string:emoji-1000', '😀'.repeat(1000)),
  h('string:combining-marks', 'e\u0301'.repeat(300)),
  h('string:bidi-zero-width', '\u202eevil\u200b\ufeff'),
  h('string:empty', ''),
  h('string:blank', '   \t '),
  h('string:control-chars', '\u0001\u001b[31m\u007f'),
  h('string:crlf', 'a\r\nX-Injected: 1'),
  h('string:html', '<script>alert(1)</script>'),
  h('string:sql', "' OR 1=1; --"),
  h('string:proto', '__proto__'),
  h('string:nil-uuid', NIL_UUID),
  h('string:number-like', '1e308'),
];

/** JSON numbers as the attacker writes them. */
export const HOSTILE_NUMBERS: readonly Hostile<unknown>[] = [
  h('number:1e308', new RawJson('1e308')),
  h('number:-1e308', new RawJson('-1e308')),
  h('number:1e999', new RawJson('1e999')),
  h('number:-0', new RawJson('-0')),
  h('number:zero', 0),
  h('number:negative', -1),
  h('number:fraction', 0.5),
  h('number:int32-overflow', 2_147_483_648),
  h('number:int32-underflow', -2_147_483_649),
  h('number:uint32-overflow', 4_294_967_296),
  h('number:unsafe-integer', new RawJson('9007199254740993')),
  h('number:30-digits', new RawJson('123456789012345678901234567890')),
  h('number:tiny', new RawJson('1e-400')),
];

/** Date-times that pass a format check and break a database, a calendar or a comparison. */
export const HOSTILE_DATES: readonly Hostile<string>[] = [
  h('date:year-10000-in-utc', '9999-12-31T23:59:59-14:00'),
  h('date:year-0', '0000-01-01T00:00:00Z'),
  h('date:year-0-in-utc', '0001-01-01T00:00:00+14:00'),
  h('date:feb-30', '2026-02-30T00:00:00Z'),
  h('date:month-13', '2026-13-01T00:00:00Z'),
  h('date:hour-24', '2026-01-01T24:00:00Z'),
  h('date:leap-second', '2026-12-31T23:59:60Z'),
  h('date:expanded-year', '+275760-09-13T00:00:00Z'),
  h('date:epoch', '1970-01-01T00:00:00Z'),
  h('date:far-past', '1000-01-01T00:00:00Z'),
  h('date:far-future', '9999-12-31T23:59:59Z'),
  h('date:nanoseconds', '2027-01-01T00:00:00.123456789Z'),
  h('date:no-offset', '2027-01-01T00:00:00'),
  h('date:date-only', '2027-01-01'),
  h('date:basic-format', '20270101T000000Z'),
  h('date:lowercase', '2027-01-01t00:00:00z'),
];

/** Another type where a field's type is fixed. */
export const WRONG_TYPES: readonly Hostile<unknown>[] = [
  h('type:null', null),
  h('type:true', true),
  h('type:zero', 0),
  h('type:string', 'x'),
  h('type:empty-array', []),
  h('type:array-of-null', [null]),
  h('type:empty-object', {}),
  h('type:object', { a: 1 }),
  h('type:nested-array', [[[]]]),
  h('type:deep-array-100', new RawJson(deeplyNested(100, 'array'))),
];

/** Whole request bodies (text), each for any route that reads one. */
export const HOSTILE_BODIES: readonly Hostile<string>[] = [
  h('body:deep-array-10000', deeplyNested(10_000, 'array')),
  h('body:deep-object-10000', deeplyNested(10_000, 'object')),
  h('body:deep-array-1000', deeplyNested(1_000, 'array')),
  h('body:array', '[]'),
  h('body:array-of-object', '[{}]'),
  h('body:string', '"x"'),
  h('body:number', '42'),
  h('body:null', 'null'),
  h('body:true', 'true'),
  h('body:empty', ''),
  h('body:blank', ' \n\t '),
  h('body:truncated', '{"a":'),
  h('body:trailing-comma', '{"a":1,}'),
  h('body:single-quotes', "{'a':1}"),
  h('body:nan', '{"a":NaN}'),
  h('body:bad-escape', '{"a":"\\x41"}'),
  h('body:short-unicode-escape', '{"a":"\\u12"}'),
  h('body:two-documents', '{}{}'),
  h('body:trailing-garbage', '{} x'),
  h('body:raw-nul', '{"a":"\u0000"}'),
  h('body:bom', '\ufeff{}'),
  h('body:proto-pollution', '{"__proto__":{"polluted":true}}'),
  h('body:constructor-pollution', '{"constructor":{"prototype":{"polluted":true}}}'),
  h('body:too-large-70k', `{"a":"${'x'.repeat(70_000)}"}`),
];

/** Bodies that are not UTF-8 at all. */
export const HOSTILE_BODY_BYTES: readonly Hostile<Uint8Array>[] = [
  h('bytes:invalid-utf8', Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])),
  h('bytes:overlong-utf8', Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d])),
  h('bytes:utf16le', Uint8Array.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00])),
  h('bytes:nul-bytes', Uint8Array.from([0x00, 0x00, 0x00, 0x00])),
];

export const HOSTILE_CONTENT_TYPES: readonly Hostile<string | null>[] = [
  h('content-type:missing', null),
  h('content-type:text-plain', 'text/plain'),
  h('content-type:form', 'application/x-www-form-urlencoded'),
  h('content-type:multipart', 'multipart/form-data; boundary=x'),
  h('content-type:utf16', 'application/json; charset=utf-16'),
  h('content-type:latin1', 'application/json; charset=latin1'),
  h('content-type:upper-case', 'APPLICATION/JSON'),
  h('content-type:problem-json', 'application/problem+json'),
  h('content-type:merge-patch', 'application/merge-patch+json'),
  h('content-type:empty', ''),
  h('content-type:list', 'application/json, text/plain'),
  h('content-type:jsonx', 'application/jsonx'),
  h('content-type:bad-params', 'application/json;;;=;'),
];

/** Path parameter values, written as they go on the wire (percent-encoding is the attacker's). */
export const HOSTILE_PATH_SEGMENTS: readonly Hostile<string>[] = [
  h('path:not-uuid', 'not-a-uuid'),
  h('path:101-chars', 'a'.repeat(101)),
  h('path:5000-chars', 'a'.repeat(5_000)),
  h('path:bad-percent', '%zz'),
  h('path:lone-percent', '%'),
  h('path:percent-nul', '%00'),
  h('path:truncated-utf8', '%E2%82'),
  h('path:invalid-utf8', '%FF%FE'),
  h('path:encoded-e-acute', '%C3%A9'),
  h('path:raw-non-ascii', 'caf\u00c3\u00a9'),
  h('path:raw-emoji-bytes', '\u00f0\u009f\u0098\u0080'),
  h('path:dot', '.'),
  h('path:dot-dot', '..'),
  h('path:encoded-dot-dot', '%2e%2e'),
  h('path:encoded-slash', 'a%2Fb'),
  h('path:encoded-backslash', 'a%5Cb'),
  h('path:negative', '-1'),
  h('path:zero', '0'),
  h('path:nil-uuid', NIL_UUID),
  h('path:max-uuid', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
  h('path:uuid-braces', `{${NIL_UUID}}`),
  h('path:uuid-no-dashes', '00000000000000000000000000000000'),
  h('path:encoded-space', '%20'),
  h('path:plus', '+'),
  h('path:quote', "'"),
  h('path:html', '<script>'),
  h('path:proto', '__proto__'),
  h('path:constructor', 'constructor'),
  h('path:semicolon', 'a;b=c'),
  h('path:star', '*'),
  h('path:encoded-newline', '%0D%0A'),
];

/** Whole-path tampering, applied to the expanded path. */
export const PATH_SHAPES: readonly Hostile<(path: string) => string>[] = [
  h('path-shape:dot-segment', (path) => path.replace(/^\/([^/]+)/, '/$1/.')),
  h('path-shape:dot-dot-segment', (path) => `${path}/x/..`),
  h('path-shape:double-slash', (path) => path.replace(/^\//, '//')),
  h('path-shape:inner-double-slash', (path) => path.replace(/\/([^/]*)$/, '//$1')),
  h('path-shape:trailing-slash', (path) => `${path}/`),
  h('path-shape:upper-case', (path) => path.toUpperCase()),
  h('path-shape:encoded-first-char', (path) => `/%${path.charCodeAt(1).toString(16)}${path.slice(2)}`),
  h('path-shape:extra-segment', (path) => `${path}/extra`),
  h('path-shape:semicolon-params', (path) => `${path};jsessionid=1`),
];

/** Values for integer query parameters (`limit`, `after`). */
export const HOSTILE_INTEGERS: readonly Hostile<string>[] = [
  h('int:2147483648', '2147483648'),
  h('int:-1', '-1'),
  h('int:1e99', '1e99'),
  h('int:1e308', '1e308'),
  h('int:zero', '0'),
  h('int:-0', '-0'),
  h('int:fraction', '1.5'),
  h('int:nan', 'NaN'),
  h('int:infinity', 'Infinity'),
  h('int:empty', ''),
  h('int:space', '%20'),
  h('int:hex', '0x10'),
  h('int:unsafe', '9007199254740993'),
  h('int:leading-zeros', '0000000000001'),
  h('int:fullwidth-digit', '%EF%BC%91'),
  h('int:text', 'abc'),
];

export const HOSTILE_QUERY_STRINGS: readonly Hostile<string>[] = [
  h('query:percent-nul', '%00'),
  h('query:bad-percent', '%zz'),
  h('query:long-2000', 'q'.repeat(2_000)),
  h('query:encoded-lone-surrogate', '%ED%A0%80'),
  h('query:invalid-utf8', '%FF'),
  h('query:multibyte', '%E4%BD%A0%E5%A5%BD'),
  h('query:empty', ''),
  h('query:plus-space', '+'),
  h('query:sql', '%27%20OR%201%3D1'),
];

/** Query strings appended whole: duplicated, bracketed and unknown names. */
export const HOSTILE_QUERY_SHAPES: readonly Hostile<(name: string) => string>[] = [
  h('query-shape:repeated', (name) => `${name}=1&${name}=2`),
  h('query-shape:brackets', (name) => `${name}[]=1`),
  h('query-shape:object', (name) => `${name}[a]=1`),
  h('query-shape:no-value', (name) => name),
  h('query-shape:empty-name', () => '=1'),
  h('query-shape:proto', () => '__proto__=1&constructor=x'),
  h('query-shape:unknown', () => 'unknown=1'),
  h('query-shape:ampersands', () => '&&&'),
  h('query-shape:bad-percent-name', () => '%zz=1'),
];

export const HOSTILE_AUTHORIZATIONS: readonly Hostile<string>[] = [
  h('authorization:scheme-only', 'service'),
  h('authorization:bearer', 'Bearer abc.def.ghi'),
  h('authorization:basic', 'Basic YWRtaW46YWRtaW4='),
  h('authorization:three-parts', 'service a:b:c'),
  h('authorization:long', `service ${'1'.repeat(10_000)}`),
  h('authorization:latin1', 'service \u00e9:\u00e9:\u00e9'),
  h(
    'authorization:small-order-agent',
    `service 11111111111111111111111111111111:${'1'.repeat(64)}:2026-01-01T00:00:00Z`,
  ),
];

export const HOSTILE_NONCES: readonly Hostile<string>[] = [
  h('nonce:short', 'short'),
  h('nonce:too-long', 'a'.repeat(65)),
  h('nonce:padded', 'AAAAAAAAAAAAAAAAAAAAAA=='),
  h('nonce:symbols', '!!!!!!!!!!!!!!!!!!!!!!!!'),
  h('nonce:empty', ''),
];

/** Extra headers for any request. */
export const HOSTILE_HEADERS: readonly Hostile<Array<[string, string]>>[] = [
  h('header:huge-8k', [['x-fuzz', 'a'.repeat(8_000)]]),
  h('header:huge-20k', [['x-fuzz', 'a'.repeat(20_000)]]),
  h(
    'header:many-100',
    Array.from({ length: 100 }, (_, i): [string, string] => [`x-fuzz-${i}`, String(i)]),
  ),
  h('header:accept-html', [['accept', 'text/html']]),
  h('header:accept-xml', [['accept', 'application/xml']]),
  h('header:accept-sse', [['accept', 'text/event-stream']]),
  h('header:accept-nothing', [['accept', 'application/json;q=0']]),
  h('header:request-id-long', [['x-request-id', 'r'.repeat(2_000)]]),
  h('header:request-id-latin1', [['x-request-id', '\u00e9t\u00e9']]),
  h('header:forwarded-for-garbage', [['x-forwarded-for', 'not-an-ip, ::ffff:999.1.1.1']]),
  h('header:forwarded-for-long', [
    ['x-forwarded-for', Array.from({ length: 500 }, () => '10.0.0.1').join(', ')],
  ]),
  h('header:last-event-id-negative', [['last-event-id', '-1']]),
  h('header:last-event-id-huge', [['last-event-id', '99999999999999999999999']]),
  h('header:last-event-id-text', [['last-event-id', 'abc:def']]),
  h('header:host-other', [['host', 'evil.example']]),
  h('header:idempotency-key-long', [['idempotency-key', 'k'.repeat(300)]]),
];

/** X-PAYMENT / PAYMENT-SIGNATURE values that are not a payment at all. */
/** An x402 v2 Solana `exact` accept, as a 402 on devnet offers it (the fee payer and memo made up). */
const SVM_ACCEPT = {
  scheme: 'exact',
  network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  amount: '2500000',
  asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  payTo: '586Z7H2vpX9qNhN2T4e9Utugie3ogjbxzGaMtM3E6HR5',
  maxTimeoutSeconds: 300,
  extra: { feePayer: 'ArB4iSXvt3npqvzig1kMPAJVFE93VUWZqKGMnuX6R5St', memo: 'townhall:x:general' },
};

function svmPayment(transaction: unknown): string {
  return Buffer.from(
    JSON.stringify({ x402Version: 2, accepted: SVM_ACCEPT, payload: { transaction } }),
  ).toString('base64');
}

export const HOSTILE_PAYMENT_HEADERS: readonly Hostile<string>[] = [
  h('payment:empty', ''),
  h('payment:not-base64', '!!!not base64!!!'),
  h('payment:base64url', 'eyJ4NDAyVmVyc2lvbiI6MX0'),
  h('payment:base64-text', Buffer.from('hello').toString('base64')),
  h('payment:base64-array', Buffer.from('[]').toString('base64')),
  h('payment:base64-number', Buffer.from('1e999').toString('base64')),
  h('payment:base64-null', Buffer.from('null').toString('base64')),
  h('payment:base64-deep', Buffer.from(deeplyNested(5_000, 'array')).toString('base64')),
  h('payment:base64-invalid-utf8', Buffer.from([0xff, 0xfe, 0xfd]).toString('base64')),
  h('payment:version-3', Buffer.from('{"x402Version":3}').toString('base64')),
  h('payment:version-string', Buffer.from('{"x402Version":"1","scheme":"exact"}').toString('base64')),
  h('payment:too-long', 'A'.repeat(20_000)),
  h('payment:non-canonical', 'YR=='),
  // x402 v2 `exact` on Solana, as the official client shapes it, with transactions no chain takes:
  // decoded by the server's own Solana checks wherever it sells on Solana, refused as another
  // network's payment on the ledger.
  h('payment:svm-garbage-transaction', svmPayment(Buffer.from('not a transaction').toString('base64'))),
  h(
    'payment:svm-random-bytes',
    svmPayment(Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 37) % 256)).toString('base64')),
  ),
  h('payment:svm-oversized-transaction', svmPayment('A'.repeat(4_000))),
  h('payment:svm-empty-transaction', svmPayment('')),
  h('payment:svm-transaction-number', svmPayment(12)),
  h(
    'payment:svm-no-transaction',
    Buffer.from(JSON.stringify({ x402Version: 2, accepted: SVM_ACCEPT, payload: {} })).toString('base64'),
  ),
];

/** Ledger authorization fields an attacker changes (docs/tickets-and-payments.md). */
export const HOSTILE_PAYMENT_FIELDS: readonly Hostile<[field: string, value: unknown]>[] = [
  h('payment-field:valid-before-year-3000', ['validBefore', '32503680000']),
  h('payment-field:valid-before-15-digits', ['validBefore', '999999999999999']),
  h('payment-field:valid-before-16-digits', ['validBefore', '9999999999999999']),
  h('payment-field:valid-after-future', ['validAfter', '32503680000']),
  h('payment-field:valid-before-past', ['validBefore', '1']),
  h('payment-field:valid-before-negative', ['validBefore', '-1']),
  h('payment-field:value-zero', ['value', '0']),
  h('payment-field:value-negative', ['value', '-1000']),
  h('payment-field:value-huge', ['value', '9'.repeat(78)]),
  h('payment-field:value-fraction', ['value', '1.5']),
  h('payment-field:value-number', ['value', 1000]),
  h('payment-field:asset-other', ['asset', 'ETH']),
  h('payment-field:asset-long', ['asset', 'A'.repeat(200)]),
  h('payment-field:to-self', ['to', '$caller']),
  h('payment-field:to-invalid', ['to', '0'.repeat(44)]),
  h('payment-field:from-other', ['from', '$host']),
  h('payment-field:resource-other-tier', ['resource', '$resource-other-tier']),
  h('payment-field:resource-nul', ['resource', 'http://x/\u0000']),
  h('payment-field:nonce-upper-case', ['nonce', 'A'.repeat(64)]),
  h('payment-field:nonce-short', ['nonce', 'ab']),
  h('payment-field:extra-member', ['extra', 'x']),
  h('payment-field:missing-nonce', ['nonce', undefined]),
];

/**
 * RFC 9421 signatures (docs/protocol/signing.md "RFC 9421 signatures"): the draft of a valid
 * signature changed before it is signed (`draft`), or its header fields after (`sent`).
 * `refused`: the gateway must refuse it on a signed route; the others may pass.
 */
const NUL = '\u0000';
const signed = (refused: boolean, tamper: Omit<MessageTamper, 'refused'>): MessageTamper => ({
  refused,
  ...tamper,
});
/** Changes the sent Signature-Input's value. */
const signatureInput = (change: (value: string) => string) => (headers: HeaderList) =>
  replaceHeader(headers, 'signature-input', change(headers.find(([name]) => name === 'signature-input')![1]));
/** Inserts `text` into the sent Signature-Input's nonce string. */
const inNonce = (text: string) => signatureInput((value) => value.replace('nonce="', `nonce="${text}`));
const param = (name: string, value: (now: number) => string | undefined) =>
  signed(true, { draft: (draft, { nowSeconds }) => setParam(draft, name, value(nowSeconds)) });
const signedAt = (created: number, expires: number) => (draft: MessageDraft, context: MessageContext) => {
  setParam(draft, 'created', String(context.nowSeconds + created));
  setParam(draft, 'expires', String(context.nowSeconds + expires));
};
const components = (change: (components: string[]) => string[], needsBody = false) =>
  signed(true, {
    draft: (draft) => {
      draft.components = change(draft.components);
    },
    ...(needsBody ? { needsBody } : {}),
  });
const digestOfOther = (body: Uint8Array | undefined) =>
  contentDigest(Buffer.concat([Buffer.from(body ?? []), Buffer.from(' ')]));
const CLOSED_PORT = '"http://127.0.0.1:1"';
/** A Signature-Agent covered by the signature of a key the gateway has never seen, named by its thumbprint. */
const signatureAgent = (value: string, refused = true) =>
  signed(refused, {
    fresh: refused,
    keyid: 'thumbprint',
    draft: (draft) => {
      draft.components.push('"signature-agent"');
      setField(draft, 'signature-agent', value);
    },
  });

export const HOSTILE_MESSAGE_SIGNATURES: readonly Hostile<MessageTamper>[] = [
  // Signature-Input framing and bytes (NUL, CR and lone surrogates go out on a raw socket: wire.ts).
  h('signature-input:not-dictionary', signed(true, { sent: signatureInput(() => '("@method" "@path")') })),
  h('signature-input:bare-label', signed(true, { sent: signatureInput(() => 'sig1') })),
  h('signature-input:empty', signed(true, { sent: signatureInput(() => '') })),
  h('signature-input:unclosed', signed(true, { sent: signatureInput((value) => value.split(')')[0]!) })),
  h('signature-input:nul', signed(true, { sent: inNonce(NUL) })),
  h('signature-input:cr', signed(true, { sent: inNonce('\r') })),
  h('signature-input:lone-surrogate', signed(true, { sent: inNonce('\ud800') })),
  h('signature-input:latin1', signed(true, { sent: inNonce('\u00e9') })),
  h(
    'signature-input:crlf-injection',
    signed(false, { sent: signatureInput((value) => `${value}\r\nx-injected: 1`) }),
  ),
  h(
    'signature-input:huge-100k',
    signed(false, { sent: signatureInput((value) => `${value}, pad=("${'a'.repeat(100_000)}")`) }),
  ),
  h(
    'signature-input:many-1000-members',
    signed(false, {
      sent: signatureInput((value) =>
        [...Array.from({ length: 1_000 }, (_, i) => `a${i}=();tag=x`), value].join(', '),
      ),
    }),
  ),
  h(
    'signature:many-1000-members',
    signed(false, {
      sent: (headers) => {
        const value = headers.find(([name]) => name === 'signature')![1];
        return replaceHeader(
          headers,
          'signature',
          [...Array.from({ length: 1_000 }, (_, i) => `s${i}=:AA==:`), value].join(', '),
        );
      },
    }),
  ),
  h(
    'signature-input:nested-inner-lists',
    signed(true, { sent: signatureInput(() => `sig1=${'('.repeat(1_000)}"@method"${')'.repeat(1_000)}`) }),
  ),
  h(
    'signature-input:two-lines',
    signed(false, {
      sent: (headers) => [
        ...headers,
        ['signature-input', headers.find(([name]) => name === 'signature-input')![1]],
      ],
    }),
  ),
  h(
    'signature-input:missing',
    signed(true, { sent: (headers) => replaceHeader(headers, 'signature-input', undefined) }),
  ),
  // Covered components.
  h(
    'components:parameters',
    components((list) => list.map((item) => (item === '"@method"' ? '"@method";req' : item))),
  ),
  h(
    'components:query-param',
    components((list) => [...list, '"@query-param";name="limit"']),
  ),
  h(
    'components:unknown-query-param',
    components((list) => [...list, '"@query-param"']),
  ),
  h(
    'components:unknown-status',
    components((list) => [...list, '"@status"']),
  ),
  h(
    'components:twice',
    components((list) => [...list, '"@method"']),
  ),
  h(
    'components:token',
    components((list) => ['method', ...list.slice(1)]),
  ),
  h(
    'components:missing-method',
    components((list) => list.slice(1)),
  ),
  h(
    'components:request-target-only',
    components((list) => [
      '"@method"',
      '"@request-target"',
      ...list.filter((item) => !item.startsWith('"@')),
    ]),
  ),
  h(
    'components:target-uri',
    signed(false, {
      draft: (draft) => {
        draft.components = [
          '"@method"',
          '"@target-uri"',
          ...draft.components.filter((item) => !item.startsWith('"@')),
        ];
      },
    }),
  ),
  h(
    'components:upper-case-field',
    components((list) => list.map((item) => (item === '"content-digest"' ? '"Content-Digest"' : item)), true),
  ),
  h(
    'components:web-bot-auth-default',
    signed(true, {
      keyid: 'thumbprint',
      tag: true,
      draft: (draft) => {
        draft.components = ['"@authority"'];
      },
    }),
  ),
  h(
    'components:web-bot-auth-default-signature-agent',
    signed(true, {
      keyid: 'thumbprint',
      tag: true,
      draft: (draft) => {
        draft.components = ['"@authority"', '"signature-agent"'];
        setField(draft, 'signature-agent', '"https://agent.example"');
      },
    }),
  ),
  // Parameters.
  h(
    'params:no-created',
    param('created', () => undefined),
  ),
  h(
    'params:no-expires',
    param('expires', () => undefined),
  ),
  h(
    'params:no-nonce',
    param('nonce', () => undefined),
  ),
  h(
    'params:no-keyid',
    param('keyid', () => undefined),
  ),
  h(
    'created:string',
    param('created', (now) => sfString(String(now))),
  ),
  h(
    'created:decimal',
    param('created', (now) => `${now}.5`),
  ),
  h(
    'created:negative',
    param('created', () => '-1'),
  ),
  h(
    'created:1e20',
    param('created', () => '100000000000000000000'),
  ),
  h(
    'created:year-3000',
    signed(true, {
      draft: (draft) => {
        setParam(draft, 'created', '32503680000');
        setParam(draft, 'expires', '32503680060');
      },
    }),
  ),
  h(
    'expires:string',
    param('expires', (now) => sfString(String(now + 60))),
  ),
  h(
    'expires:decimal',
    param('expires', (now) => `${now + 60}.5`),
  ),
  h(
    'expires:negative',
    param('expires', () => '-1'),
  ),
  h(
    'expires:1e20',
    param('expires', () => '100000000000000000000'),
  ),
  h(
    'expires:year-3000',
    param('expires', () => '32503680000'),
  ),
  h('expires:before-created', signed(true, { draft: signedAt(0, -1) })),
  h('expires:equals-created', signed(true, { draft: signedAt(0, 0) })),
  h('expires:lifetime-301', signed(true, { draft: signedAt(0, 301) })),
  h('expires:lifetime-300', signed(false, { draft: signedAt(0, 300) })),
  h('created:stale', signed(true, { draft: signedAt(-600, -540) })),
  h('created:future-60s', signed(true, { draft: signedAt(60, 120) })),
  h('created:future-600s', signed(true, { draft: signedAt(600, 660) })),
  h(
    'nonce:short',
    param('nonce', () => sfString('abc')),
  ),
  h(
    'nonce:long',
    param('nonce', () => sfString('a'.repeat(200))),
  ),
  h(
    'nonce:symbols',
    param('nonce', () => sfString('!'.repeat(32))),
  ),
  h(
    'nonce:space',
    param('nonce', () => sfString(`${'a'.repeat(16)} ${'b'.repeat(16)}`)),
  ),
  h(
    'nonce:inner-padding',
    param('nonce', () => sfString(`${'a'.repeat(16)}==${'b'.repeat(16)}`)),
  ),
  h(
    'nonce:empty',
    param('nonce', () => sfString('')),
  ),
  h(
    'nonce:integer',
    param('nonce', () => '1234567890123456'),
  ),
  h(
    'nonce:web-bot-auth-64-bytes',
    signed(false, { draft: (draft) => setParam(draft, 'nonce', sfString(webBotAuthNonce())) }),
  ),
  h('nonce:replayed', signed(false, { replay: true })),
  h(
    'keyid:unknown-thumbprint',
    param('keyid', () => sfString(`unknown_thumbprint_${'x'.repeat(24)}`)),
  ),
  h('keyid:fresh-key-thumbprint', signed(true, { fresh: true, keyid: 'thumbprint' })),
  h(
    'keyid:not-base58',
    param('keyid', () => sfString('not-base58-0OIl')),
  ),
  h(
    'keyid:small-order-agent',
    param('keyid', () => sfString('11111111111111111111111111111111')),
  ),
  h(
    'keyid:empty',
    param('keyid', () => sfString('')),
  ),
  h(
    'keyid:token',
    param('keyid', () => 'abc'),
  ),
  h(
    'keyid:other-agent',
    signed(true, { draft: (draft, context) => setParam(draft, 'keyid', sfString(context.otherAgentId)) }),
  ),
  h(
    'keyid:other-agent-thumbprint',
    signed(true, {
      draft: (draft, context) => setParam(draft, 'keyid', sfString(agentKeyThumbprint(context.otherAgentId))),
    }),
  ),
  h(
    'alg:rsa-pss-sha512',
    param('alg', () => sfString('rsa-pss-sha512')),
  ),
  h(
    'alg:upper-case',
    param('alg', () => sfString('ED25519')),
  ),
  h(
    'alg:token',
    param('alg', () => 'ed25519'),
  ),
  h('alg:missing', signed(false, { draft: (draft) => setParam(draft, 'alg', undefined) })),
  h(
    'tag:other',
    param('tag', () => sfString('other')),
  ),
  h(
    'tag:upper-case',
    param('tag', () => sfString('Web-Bot-Auth')),
  ),
  h(
    'tag:token',
    param('tag', () => 'web-bot-auth'),
  ),
  h('params:unknown', signed(false, { draft: (draft) => setParam(draft, 'foo', sfString('bar')) })),
  // The Signature field.
  h(
    'signature:wrong-label',
    signed(true, {
      sent: (headers) =>
        replaceHeader(
          headers,
          'signature',
          headers.find(([name]) => name === 'signature')![1].replace(/^sig1=/, 'sig2='),
        ),
    }),
  ),
  h(
    'signature:not-bytes',
    signed(true, { sent: (headers) => replaceHeader(headers, 'signature', 'sig1="abc"') }),
  ),
  h('signature:token', signed(true, { sent: (headers) => replaceHeader(headers, 'signature', 'sig1=abc') })),
  h(
    'signature:not-dictionary',
    signed(true, { sent: (headers) => replaceHeader(headers, 'signature', ':abc: :def:') }),
  ),
  h('signature:missing', signed(true, { sent: (headers) => replaceHeader(headers, 'signature', undefined) })),
  h(
    'signature:63-bytes',
    signed(true, { sent: (headers) => withSignatureBytes(headers, (bytes) => bytes.subarray(0, 63)) }),
  ),
  h(
    'signature:65-bytes',
    signed(true, {
      sent: (headers) => withSignatureBytes(headers, (bytes) => Buffer.concat([bytes, Buffer.from([0])])),
    }),
  ),
  h(
    'signature:changed-byte',
    signed(true, {
      sent: (headers) =>
        withSignatureBytes(headers, (bytes) => {
          const copy = Buffer.from(bytes);
          copy[10] = copy[10]! ^ 0x01;
          return copy;
        }),
    }),
  ),
  h(
    'signature:zero-bytes',
    signed(true, { sent: (headers) => withSignatureBytes(headers, () => Buffer.alloc(64)) }),
  ),
  // Content-Digest and the body.
  h(
    'content-digest:missing',
    signed(true, { needsBody: true, sent: (headers) => replaceHeader(headers, 'content-digest', undefined) }),
  ),
  h(
    'content-digest:not-covered',
    components((list) => list.filter((item) => item !== '"content-digest"'), true),
  ),
  h(
    'content-digest:mismatch',
    signed(true, {
      needsBody: true,
      draft: (draft, { body }) => setField(draft, 'content-digest', digestOfOther(body)),
    }),
  ),
  h(
    'content-digest:sha-512',
    signed(false, {
      needsBody: true,
      draft: (draft, { body }) => setField(draft, 'content-digest', sha512Digest(body!)),
    }),
  ),
  h(
    'content-digest:sha-512-mismatch',
    signed(true, {
      needsBody: true,
      draft: (draft, { body }) =>
        setField(draft, 'content-digest', `${contentDigest(body!)}, ${sha512Digest(Buffer.from('other'))}`),
    }),
  ),
  h(
    'content-digest:unknown-algorithm-only',
    signed(true, {
      needsBody: true,
      draft: (draft, { body }) =>
        setField(draft, 'content-digest', `sha-1=:${createHash('sha1').update(body!).digest('base64')}:`),
    }),
  ),
  h(
    'content-digest:not-dictionary',
    signed(true, { needsBody: true, draft: (draft) => setField(draft, 'content-digest', '(((') }),
  ),
  h(
    'content-digest:not-bytes',
    signed(true, { needsBody: true, draft: (draft) => setField(draft, 'content-digest', 'sha-256="abc"') }),
  ),
  h(
    'body:changed-after-signing',
    signed(true, {
      needsBody: true,
      // Signed over another body's digest; the digest sent is the body's own.
      draft: (draft, { body }) => setField(draft, 'content-digest', digestOfOther(body)),
      sent: (headers, { body }) => replaceHeader(headers, 'content-digest', contentDigest(body!)),
    }),
  ),
  // Signature-Agent (a key directory, fetched only for a thumbprint the gateway has not seen).
  h(
    'signature-agent:not-covered',
    signed(true, { sent: (headers) => [...headers, ['signature-agent', '"https://agent.example"']] }),
  ),
  h('signature-agent:not-string', signatureAgent('42')),
  h('signature-agent:closed-port', signatureAgent(CLOSED_PORT)),
  h('signature-agent:closed-port-dictionary', signatureAgent(`sig1=${CLOSED_PORT}`)),
  h('signature-agent:not-url', signatureAgent('"not a url"')),
  h('signature-agent:file-url', signatureAgent('"file:///etc/passwd"')),
  h(
    'signature-agent:two-lines',
    signed(true, {
      ...signatureAgent(CLOSED_PORT),
      sent: (headers) => [...headers, ['signature-agent', '"https://agent.example"']],
    }),
  ),
  h('signature-agent:seen-key', signatureAgent(CLOSED_PORT, false)),
  // Both schemes at once: Authorization wins.
  h(
    'both:valid-authorization',
    signed(false, { sent: (headers, context) => [...context.serviceAuth(), ...headers] }),
  ),
  h(
    'both:bad-authorization',
    signed(true, {
      sent: (headers, context) => [
        ['authorization', 'service garbage'],
        ...context.serviceAuth().filter(([name]) => name !== 'authorization'),
        ...headers,
      ],
    }),
  ),
];
