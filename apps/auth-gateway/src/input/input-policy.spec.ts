import { DomainError } from '@townhall/contracts';
import { assertTextFields, jsonDepthExceeds, MAX_JSON_DEPTH, parseJsonBody } from './input-policy.js';

const JSON_TYPE = 'application/json';
const bytes = (text: string) => new TextEncoder().encode(text);

function refusal(run: () => unknown): { code: string; fields: string[] } {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError)
      return { code: error.code, fields: (error.errors ?? []).map((e) => e.field) };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('the input policy of the edge', () => {
  describe('JSON depth, measured on the text before parsing', () => {
    it('allows exactly MAX_JSON_DEPTH levels and refuses one more', () => {
      const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
      expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
      expect(jsonDepthExceeds(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
      expect(refusal(() => parseJsonBody(bytes(nested(MAX_JSON_DEPTH + 1)), JSON_TYPE)).code).toBe(
        'request.too_deep',
      );
    });

    it('refuses 100,000 levels without recursing (no stack overflow), in well under a second', () => {
      const started = performance.now();
      const text = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
      expect(refusal(() => parseJsonBody(bytes(text), JSON_TYPE)).code).toBe('request.too_deep');
      expect(performance.now() - started).toBeLessThan(1_000);
    });

    it('ignores brackets inside strings, escaped quotes included', () => {
      const text = JSON.stringify({
        a: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
        b: 'say \\"[[[[' + '['.repeat(50),
      });
      expect(jsonDepthExceeds(text, 2)).toBe(false);
      expect(parseJsonBody(bytes(text), JSON_TYPE)).toEqual(JSON.parse(text));
    });
  });

  describe('text', () => {
    it('refuses NUL in any value, naming the field', () => {
      const body = JSON.stringify({ title: 'ok', agenda: [{ title: 'a\u0000b' }] });
      expect(refusal(() => parseJsonBody(bytes(body), JSON_TYPE))).toEqual({
        code: 'validation.failed',
        fields: ['agenda.0.title'],
      });
    });

    it.each([
      ['a lone high surrogate', '"\\ud800"'],
      ['a lone low surrogate', '"\\udc00"'],
      ['a high surrogate at the end', '"abc\\udbff"'],
      ['two high surrogates', '"\\ud800\\ud800"'],
      ['a reversed pair', '"\\udc00\\ud800"'],
    ])('refuses %s (Postgres cannot store it in jsonb)', (_label, value) => {
      expect(refusal(() => parseJsonBody(bytes(`{"bio":${value}}`), JSON_TYPE))).toEqual({
        code: 'validation.failed',
        fields: ['bio'],
      });
    });

    it('accepts surrogate pairs, escaped or not, and every other code point', () => {
      const text = '{"a":"\\ud83d\\ude00 😀 € \\u0001 \\u007f 漢"}';
      expect(parseJsonBody(bytes(text), JSON_TYPE)).toEqual({ a: '😀 😀 € \u0001 \u007f 漢' });
    });

    it('refuses NUL and lone surrogates in keys, and a __proto__ key', () => {
      expect(refusal(() => parseJsonBody(bytes('{"a\\u0000":1}'), JSON_TYPE)).code).toBe('validation.failed');
      expect(refusal(() => parseJsonBody(bytes('{"x":{"\\ud800":1}}'), JSON_TYPE)).fields).toEqual(['x']);
      expect(refusal(() => parseJsonBody(bytes('{"__proto__":{"admin":true}}'), JSON_TYPE)).fields).toEqual([
        '__proto__',
      ]);
    });

    it('refuses bytes that are not UTF-8 as malformed JSON', () => {
      const invalid = Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
      expect(refusal(() => parseJsonBody(invalid, JSON_TYPE)).code).toBe('request.malformed_json');
      const overlong = Uint8Array.from([0x22, 0xc0, 0x80, 0x22]); // NUL smuggled as an overlong form
      expect(refusal(() => parseJsonBody(overlong, JSON_TYPE)).code).toBe('request.malformed_json');
    });

    it('checks query and path values, arrays included', () => {
      expect(() => assertTextFields({ q: 'fine', ids: ['a', 'b'] })).not.toThrow();
      expect(refusal(() => assertTextFields({ ids: ['a', 'b\u0000'] })).fields).toEqual(['ids.1']);
      expect(refusal(() => assertTextFields({ id: '\udfff' })).fields).toEqual(['id']);
      expect(() => assertTextFields(undefined)).not.toThrow();
    });
  });

  describe('media type and syntax', () => {
    it('treats an empty body as none, whatever the media type', () => {
      expect(parseJsonBody(new Uint8Array(0), undefined)).toBeUndefined();
    });
    it('refuses other media types with 415 and broken JSON with malformed_json', () => {
      expect(refusal(() => parseJsonBody(bytes('{}'), 'text/plain')).code).toBe(
        'request.unsupported_media_type',
      );
      expect(refusal(() => parseJsonBody(bytes('{'), 'application/json; charset=utf-8')).code).toBe(
        'request.malformed_json',
      );
      expect(parseJsonBody(bytes('[1]'), 'Application/JSON')).toEqual([1]);
    });
  });
});
