import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { parseInput, queryList, querySingle } from '#shared/core/validation.ts';
import { parseQueryString } from '#shared/http/query-string.ts';

const onlyStringsOrStringLists = (parsed: Record<string, unknown>) =>
  Object.values(parsed).every(
    (v) => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
  );

describe('parseQueryString', () => {
  it.each([
    ['bracket form', 'k[]=a&k[]=b', { k: ['a', 'b'] }],
    ['repeated bare key', 'k=a&k=b', { k: ['a', 'b'] }],
    ['indexed form', 'k[0]=a&k[1]=b', { k: ['a', 'b'] }],
    ['indexed form out of order', 'k[1]=b&k[0]=a', { k: ['a', 'b'] }],
    ['indexed form with a gap', 'k[5]=c&k[0]=a&k[2]=b', { k: ['a', 'b', 'c'] }],
    ['three repeats of a bare key', 'k=a&k=b&k=c', { k: ['a', 'b', 'c'] }],
    ['single bare key stays a string', 'k=a', { k: 'a' }],
    ['single bracketed key is a one-element list', 'k[]=a', { k: ['a'] }],
    ['single indexed key is a one-element list', 'k[0]=a', { k: ['a'] }],
    ['several keys', 'a=1&b[]=2&b[]=3&c=4', { a: '1', b: ['2', '3'], c: '4' }],
    ['percent-encoded value', 'q=hello%20world%26more', { q: 'hello world&more' }],
    ['plus as a space', 'q=a+b', { q: 'a b' }],
    ['percent-encoded brackets', 'k%5B%5D=a&k%5B%5D=b', { k: ['a', 'b'] }],
    ['percent-encoded JSON value', `filter=${encodeURIComponent('{"a":[1,2]}')}`, { filter: '{"a":[1,2]}' }],
    ['UTF-8 value', `name=${encodeURIComponent('Grüße ✓')}`, { name: 'Grüße ✓' }],
    ['empty value', 'k=', { k: '' }],
    ['key without =', 'k', { k: '' }],
    ['empty value in a list', 'k[]=&k[]=b', { k: ['', 'b'] }],
    ['leading question mark', '?k=a', { k: 'a' }],
    ['brackets alone are a plain key', '[]=a', { '[]': 'a' }],
  ])('%s: %s', (_what, raw, expected) => {
    expect(parseQueryString(raw)).toStrictEqual(expected);
  });

  it.each([
    ['an empty string', ''],
    ['undefined', undefined],
  ])('is an empty object for %s', (_what, raw) => {
    expect(parseQueryString(raw)).toStrictEqual({});
  });

  it.each([
    ['constructor', 'constructor=x', { constructor: 'x' }],
    ['toString', 'toString=a&a=1', { toString: 'a', a: '1' }],
    ['hasOwnProperty repeated', 'hasOwnProperty=a&hasOwnProperty=b', { hasOwnProperty: ['a', 'b'] }],
    ['bracketed __proto__', '__proto__[]=a&length=3', { ['__proto__']: ['a'], length: '3' }],
    ['indexed constructor', 'constructor[0]=a', { constructor: ['a'] }],
  ])('a key named like an Object member (%s) is an ordinary key', (_what, raw, expected) => {
    const parsed = parseQueryString(raw);

    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed).sort()).toEqual(Object.keys(expected).sort());
    for (const [k, v] of Object.entries(expected))
      expect(Object.getOwnPropertyDescriptor(parsed, k)?.value).toEqual(v);
  });

  it('stops reading after 2000 pairs without throwing', () => {
    const raw = Array.from({ length: 3000 }, (_, i) => `k=${i}`).join('&');

    const parsed = parseQueryString(raw);

    expect(parsed.k).toHaveLength(2000);
  });

  it('treats an index over 10000 as an append', () => {
    expect(parseQueryString('k[0]=a&k[99999]=b')).toStrictEqual({ k: ['b', 'a'] });
  });

  it('never throws and returns only strings or string lists for any text (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' })), (raw) => {
        expect(onlyStringsOrStringLists(parseQueryString(raw))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws and returns only strings or string lists for query-like text (property)', () => {
    const part = fc.oneof(
      fc.constantFrom(
        'k',
        'k[]',
        'k[0]',
        'k[1]',
        'k[10001]',
        '__proto__',
        'constructor',
        '[',
        ']',
        '%',
        '%zz',
      ),
      fc.string({ maxLength: 6 }),
    );
    const pair = fc.tuple(part, part).map(([k, v]) => `${k}=${v}`);
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 12 }), (pairs) => {
        expect(onlyStringsOrStringLists(parseQueryString(pairs.join('&')))).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('round-trips encoded lists of any strings (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 8 }), (values) => {
        const raw = values.map((v) => `k[]=${encodeURIComponent(v)}`).join('&');
        expect(parseQueryString(raw)).toStrictEqual({ k: values });
      }),
    );
  });
});

describe('queryList', () => {
  const schema = z.object({ ids: z.optional(queryList(z.string().check(z.minLength(1)))) });

  it.each([
    ['a bare single value becomes a one-element list', 'ids=a', ['a']],
    ['a bracketed single value is a one-element list', 'ids[]=a', ['a']],
    ['a repeated bare key is a list', 'ids=a&ids=b', ['a', 'b']],
    ['bracket form is a list', 'ids[]=a&ids[]=b', ['a', 'b']],
    ['indexed form is a list', 'ids[1]=b&ids[0]=a', ['a', 'b']],
  ])('%s', (_what, raw, expected) => {
    expect(parseInput(schema, parseQueryString(raw), 'query')).toStrictEqual({ ids: expected });
  });

  it('leaves an absent parameter absent', () => {
    expect(parseInput(schema, parseQueryString(''), 'query')).toStrictEqual({});
  });

  it('validates every item and names its index in the path', () => {
    expect(() => parseInput(schema, parseQueryString('ids[]=a&ids[]='), 'query')).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'validation_error',
        details: [{ path: 'query.ids.1', message: expect.any(String) }],
      }),
    );
  });
});

describe('querySingle', () => {
  const schema = z.object({ state: z.optional(querySingle(z.enum(['read', 'unread']))) });

  it.each([
    ['a bare value', 'state=read', { state: 'read' }],
    ['a one-element list', 'state[]=unread', { state: 'unread' }],
    ['an absent parameter', '', {}],
  ])('accepts %s', (_what, raw, expected) => {
    expect(parseInput(schema, parseQueryString(raw), 'query')).toStrictEqual(expected);
  });

  it.each([
    ['a repeated value', 'state=read&state=unread'],
    ['a value outside the enum', 'state=maybe'],
  ])('rejects %s with a 400 naming query.state', (_what, raw) => {
    expect(() => parseInput(schema, parseQueryString(raw), 'query')).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'validation_error',
        details: [expect.objectContaining({ path: 'query.state' })],
      }),
    );
  });

  it('the error message names the parameter', () => {
    expect(() => parseInput(schema, parseQueryString('state=maybe'), 'query')).toThrow(
      /^Invalid query\.state: /,
    );
  });
});
