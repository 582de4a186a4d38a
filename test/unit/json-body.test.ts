import { describe, expect, it } from 'vitest';
import { ValidationError } from '#shared/core/errors.ts';
import { checkJsonBody, MAX_BODY_DEPTH } from '#shared/core/validation.ts';

/** Issue 27, items 3 and 7: what no route takes in a JSON body is refused before any schema. */

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { k: v };
  return v;
};
const refusal = (body: unknown): string => {
  try {
    checkJsonBody(body);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as Error).message;
  }
  return 'taken';
};

describe('checkJsonBody', () => {
  it(`takes ${MAX_BODY_DEPTH} levels of objects and lists; one more is a 400 with the path`, () => {
    expect(refusal(nested(MAX_BODY_DEPTH))).toBe('taken');
    expect(refusal(nested(MAX_BODY_DEPTH + 1))).toMatch(
      /^Invalid body(\.k|\.0)+: nests more than 20 levels deep$/,
    );
  });

  it('refuses 100,000 levels without exhausting the stack', () => {
    expect(refusal(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`))).toMatch(/nests more than 20/);
  });

  it('refuses a key __proto__ at any depth, in objects inside lists too', () => {
    expect(refusal(JSON.parse('{"__proto__":{}}'))).toBe('Invalid body.__proto__: this key is not allowed');
    expect(refusal(JSON.parse('{"a":[1,{"b":{"__proto__":1}}]}'))).toBe(
      'Invalid body.a.1.b.__proto__: this key is not allowed',
    );
  });

  it('takes keys that only look hostile: constructor, prototype, toString', () => {
    expect(refusal({ constructor: 1, prototype: { toString: 2 }, hasOwnProperty: [] })).toBe('taken');
  });
});
