import { describe, expect, it } from 'vitest';
import { COLORS, paletteColor } from '#shared/fields/colors.ts';
import type { Choice } from '#shared/fields/field-types.ts';
import { multipleSelect, singleSelect } from '#shared/fields/kinds/select.ts';
import { choiceIds, makeField, readCtx, validationError, writeCtx } from './support.ts';

const CHOICES = [{ name: 'a' }, { name: 'b' }, { name: 'c, d' }];
const status = makeField('singleSelect', { choices: CHOICES });
const tags = makeField('multipleSelect', { choices: CHOICES });

describe('select options', () => {
  it('give choices ids and palette colors when missing, keep given ones', () => {
    const options = singleSelect.normalizeOptions(
      {
        choices: [{ name: ' a ' }, { id: 'choGiven', name: 'b', color: 'redBright' }, { name: 'c' }],
        other: 1,
      },
      { newChoiceId: choiceIds() },
    );
    expect(options).toEqual({
      choices: [
        { id: 'cho0000000000000001', name: 'a', color: paletteColor(0) },
        { id: 'choGiven', name: 'b', color: 'redBright' },
        { id: 'cho0000000000000002', name: 'c', color: paletteColor(2) },
      ],
    });
  });

  it('neighbouring palette colors differ and all are valid color names', () => {
    const colors = Array.from({ length: 10 }, (_, i) => paletteColor(i));
    expect(new Set(colors).size).toBe(10);
    for (const color of colors) expect(COLORS).toContain(color);
  });

  it('no options means no choices', () => {
    expect(multipleSelect.normalizeOptions(undefined, { newChoiceId: choiceIds() })).toEqual({ choices: [] });
  });

  it.each([
    ['duplicate names', { choices: [{ name: 'a' }, { name: 'a' }] }, 'duplicate choice name "a"'],
    ['names equal once trimmed', { choices: [{ name: 'a' }, { name: 'a ' }] }, 'duplicate choice name "a"'],
    [
      'duplicate ids',
      {
        choices: [
          { id: 'choX', name: 'a' },
          { id: 'choX', name: 'b' },
        ],
      },
      'duplicate choice id "choX"',
    ],
    ['an empty name', { choices: [{ name: ' ' }] }, 'choices[0].name must be text of 1 to 255 characters'],
    ['a choice that is text', { choices: ['a'] }, 'choices[0] must be an object {name, id?, color?}'],
    ['choices not a list', { choices: 'a,b' }, 'choices must be a list'],
    [
      'a default that is no choice',
      { choices: [{ name: 'a' }], defaultValue: 'z' },
      'defaultValue must name a choice of the field',
    ],
  ])('single select: %s is a 400', (_what, options, message) => {
    expect(
      validationError(() => singleSelect.normalizeOptions(options, { newChoiceId: choiceIds() })).message,
    ).toBe(`Invalid options for a singleSelect field: ${message}`);
  });

  it('an unknown color is a 400', () => {
    expect(
      validationError(() =>
        singleSelect.normalizeOptions(
          { choices: [{ name: 'a', color: 'beige' }] },
          { newChoiceId: choiceIds() },
        ),
      ).message,
    ).toMatch(/^Invalid options for a singleSelect field: choices\[0\]\.color must be one of /);
  });

  it('a multiple select default is a list of choice names (a single name is accepted)', () => {
    const ids = choiceIds();
    expect(
      multipleSelect.normalizeOptions({ choices: [{ name: 'a' }], defaultValue: 'a' }, { newChoiceId: ids }),
    ).toMatchObject({
      defaultValue: ['a'],
    });
    expect(
      validationError(() =>
        multipleSelect.normalizeOptions(
          { choices: [{ name: 'a' }], defaultValue: ['a', 'z'] },
          { newChoiceId: ids },
        ),
      ).message,
    ).toBe('Invalid options for a multipleSelect field: defaultValue must name choices of the field');
  });

  it('defaults fill new cells', () => {
    const ctx = writeCtx();
    expect(
      singleSelect.defaultValue(makeField('singleSelect', { choices: CHOICES, defaultValue: 'b' }), ctx),
    ).toBe('b');
    expect(
      multipleSelect.defaultValue(
        makeField('multipleSelect', { choices: CHOICES, defaultValue: ['a', 'b'] }),
        ctx,
      ),
    ).toEqual(['a', 'b']);
    expect(singleSelect.defaultValue(status, ctx)).toBeUndefined();
  });
});

describe('singleSelect', () => {
  const ctx = writeCtx();

  it.each([
    ['a choice name', 'a', 'a'],
    ['a name holding a comma', 'c, d', 'c, d'],
    ['null clears', null, undefined],
  ])('validate: %s', (_what, value, expected) => {
    expect(singleSelect.validate(value, status, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['an unknown name', 'z', '"z" is not a choice'],
    ['another case', 'A', '"A" is not a choice'],
    ['a number', 1, 'expected a choice name'],
    ['a list', ['a'], 'expected a choice name'],
  ])('validate: %s is a 400 naming the field', (_what, value, message) => {
    expect(validationError(() => singleSelect.validate(value, status, ctx)).message).toBe(
      `Field "Name" (${status.id}): ${message}`,
    );
  });

  it.each([
    ['a known name', 'a', { value: 'a' }],
    ['trimmed', ' b ', { value: 'b' }],
    ['the first item of a list', ['b', 'a'], { value: 'b' }],
    ['a choice object', { name: 'a' }, { value: 'a' }],
    ['empty text', '  ', { value: undefined }],
    ['an empty list', [], { value: undefined }],
  ])('typecast: %s', (_what, value, expected) => {
    expect(singleSelect.typecast(value, status, writeCtx())).toEqual(expected);
  });

  it('typecast: line breaks become spaces in the one name (as Teable converts them)', () => {
    expect(singleSelect.typecast('a\r\nb', status, writeCtx())).toMatchObject({ value: 'a b' });
  });

  it('typecast: an unknown name adds a choice with an id and the next color', () => {
    expect(singleSelect.typecast(' new ', status, writeCtx())).toEqual({
      value: 'new',
      newChoices: [{ id: 'cho0000000000000001', name: 'new', color: paletteColor(3) }],
    });
  });

  it('typecast: a number becomes its text, a new choice', () => {
    expect(singleSelect.typecast(5, status, writeCtx())).toMatchObject({
      value: '5',
      newChoices: [{ name: '5' }],
    });
  });

  it('renders the name', () => {
    expect(singleSelect.toText('a', status, readCtx)).toBe('a');
    expect(singleSelect.toJson('a', status, readCtx)).toBe('a');
    expect(singleSelect.isMultipleCellValue({})).toBe(false);
  });
});

describe('multipleSelect', () => {
  const ctx = writeCtx();

  it.each([
    ['a list of names', ['a', 'b'], ['a', 'b']],
    ['duplicates dropped, order kept', ['b', 'a', 'b'], ['b', 'a']],
    ['null clears', null, undefined],
  ])('validate: %s', (_what, value, expected) => {
    expect(multipleSelect.validate(value, tags, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['an empty list', [], 'expected a non-empty list of choice names'],
    ['a bare name', 'a', 'expected a non-empty list of choice names'],
    ['a number in the list', ['a', 1], 'expected a non-empty list of choice names'],
    ['an unknown name', ['a', 'z'], '"z" is not a choice'],
  ])('validate: %s is a 400 naming the field', (_what, value, message) => {
    expect(validationError(() => multipleSelect.validate(value, tags, ctx)).message).toBe(
      `Field "Name" (${tags.id}): ${message}`,
    );
  });

  it.each([
    ['comma-separated text', 'a, b', ['a', 'b']],
    ['text naming a choice that holds a comma', 'c, d', ['c, d']],
    ['a quoted item holding a comma', 'a, "c, d"', ['a', 'c, d']],
    ['a list of names (items are not split)', ['b', 'a'], ['b', 'a']],
    ['duplicates and blanks dropped', 'a,, a ,b', ['a', 'b']],
    ['a single name', 'b', ['b']],
    ['lines, as Teable splits them', 'a\nb\r\na, b', ['a', 'b']],
  ])('typecast: %s', (_what, value, expected) => {
    expect(multipleSelect.typecast(value, tags, writeCtx())).toEqual({ value: expected });
  });

  it.each([
    ['empty text', ''],
    ['only commas', ' , ,'],
    ['an empty list', []],
  ])('typecast: %s clears', (_what, value) => {
    expect(multipleSelect.typecast(value, tags, writeCtx())).toEqual({ value: undefined });
  });

  it('typecast: unknown names add choices once each', () => {
    const converted = multipleSelect.typecast('a, x, y, x', tags, writeCtx());
    expect(converted.value).toEqual(['a', 'x', 'y']);
    expect(converted.newChoices).toEqual<Choice[]>([
      { id: 'cho0000000000000001', name: 'x', color: paletteColor(3) },
      { id: 'cho0000000000000002', name: 'y', color: paletteColor(4) },
    ]);
  });

  it.each([
    ['names joined by ", "', ['a', 'b'], 'a, b'],
    ['a name holding a comma is quoted', ['a', 'c, d'], 'a, "c, d"'],
    ['quotes inside a quoted name are doubled', ['say "hi", bye'], '"say ""hi"", bye"'],
  ])('text: %s', (_what, value, expected) => {
    expect(multipleSelect.toText(value, tags, readCtx)).toBe(expected);
  });

  it('rendered text typecasts back to the same names', () => {
    const text = multipleSelect.toText(['c, d', 'a'], tags, readCtx);
    expect(multipleSelect.typecast(text, tags, writeCtx())).toEqual({ value: ['c, d', 'a'] });
  });

  it('is a multiple string cell', () => {
    expect(multipleSelect.isMultipleCellValue({})).toBe(true);
    expect(multipleSelect.cellValueType({})).toBe('string');
    expect(multipleSelect.toJson(['a'], tags, readCtx)).toEqual(['a']);
  });
});
