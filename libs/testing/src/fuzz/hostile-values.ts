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

/** Ledger authorization fields an attacker changes (README "Tickets, payments (x402) and the ledger"). */
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
