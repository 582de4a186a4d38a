import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dbFieldNameFrom,
  isDbFieldName,
  uniqueDbFieldName,
  uniqueFieldName,
} from '#shared/fields/field-names.ts';

const PATTERN = /^[A-Za-z_]\w{0,62}$/;

describe('dbFieldNameFrom', () => {
  it.each([
    ['Name', 'Name'],
    ['First Name', 'First_Name'],
    ['  padded  ', 'padded'],
    ['Price ($)', 'Price____'],
    ['2nd place', '_2nd_place'],
    ['Café', 'Caf_'],
    ['日本', '__'],
    ['', 'field'],
    ['   ', 'field'],
    ['a'.repeat(100), 'a'.repeat(63)],
    [`1${'b'.repeat(70)}`, `_1${'b'.repeat(61)}`],
  ])('%j → %j', (name, expected) => {
    expect(dbFieldNameFrom(name)).toBe(expected);
  });

  it('always gives a valid dbFieldName (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (name) => {
        expect(dbFieldNameFrom(name)).toMatch(PATTERN);
      }),
    );
  });

  it('keeps a valid name as it is (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(PATTERN), (name) => {
        expect(dbFieldNameFrom(name)).toBe(name);
      }),
    );
  });
});

describe('isDbFieldName', () => {
  it.each([
    ['Name', true],
    ['_x', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['1a', false],
    ['a-b', false],
    ['', false],
    [3, false],
  ])('%j → %s', (value, expected) => {
    expect(isDbFieldName(value)).toBe(expected);
  });
});

describe('uniqueDbFieldName', () => {
  it.each([
    ['free', [], 'Name'],
    ['taken', ['Name'], 'Name_2'],
    ['taken twice', ['Name', 'Name_2'], 'Name_3'],
    ['another case is another name', ['name'], 'Name'],
  ])('%s', (_what, taken, expected) => {
    expect(uniqueDbFieldName('Name', taken)).toBe(expected);
  });

  it('shortens a long base to stay within 63 characters', () => {
    const base = 'a'.repeat(63);
    expect(uniqueDbFieldName(base, [base])).toBe(`${'a'.repeat(61)}_2`);
  });

  it('gives a valid name not taken (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(PATTERN), fc.integer({ min: 0, max: 12 }), (base, n) => {
        const taken = [
          base,
          ...Array.from({ length: n }, (_, i) => `${base.slice(0, 63 - `_${i + 2}`.length)}_${i + 2}`),
        ];
        const name = uniqueDbFieldName(base, taken);
        expect(name).toMatch(PATTERN);
        expect(taken).not.toContain(name);
      }),
    );
  });
});

describe('uniqueFieldName', () => {
  it('adds " 2", " 3"…', () => {
    expect(uniqueFieldName('Label', [])).toBe('Label');
    expect(uniqueFieldName('Label', ['Label'])).toBe('Label 2');
    expect(uniqueFieldName('Label', ['Label', 'Label 2'])).toBe('Label 3');
  });

  it('counts on from a separate number at the end, as Teable does; a number glued to a word or alone is a name', () => {
    expect(uniqueFieldName('Price 2', ['Price 2'])).toBe('Price 3');
    expect(uniqueFieldName('Price 2', ['Price 2', 'Price 3'])).toBe('Price 4');
    expect(uniqueFieldName('Round 12', ['Round 12'])).toBe('Round 13');
    expect(uniqueFieldName('Q3', ['Q3'])).toBe('Q3 2');
    expect(uniqueFieldName('2024', ['2024'])).toBe('2024 2');
    expect(uniqueFieldName('Price 2', [])).toBe('Price 2');
  });
});
