import { describe, expect, it } from 'vitest';
import { longText, singleLineText } from '#shared/fields/kinds/text.ts';
import { makeField, readCtx, validationError, writeCtx } from './support.ts';

const line = makeField('singleLineText');
const notes = makeField('longText');
const ctx = writeCtx();

describe('singleLineText', () => {
  it.each([
    ['plain text', 'hello', 'hello'],
    ['a line break becomes a space', 'a\nb', 'a b'],
    ['a tab becomes a space', 'a\tb', 'a b'],
    ['a Windows line break becomes one space', 'a\r\nb', 'a b'],
    ['a lone carriage return becomes a space', 'a\rb', 'a b'],
    ['"" clears', '', undefined],
    ['null clears', null, undefined],
  ])('validate: %s', (_what, value, expected) => {
    expect(singleLineText.validate(value, line, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['a number', 12],
    ['a boolean', true],
    ['an object', { a: 1 }],
    ['a list', ['a']],
  ])('validate: %s is a 400 naming the field', (_what, value) => {
    const error = validationError(() => singleLineText.validate(value, line, ctx));
    expect(error.status).toBe(400);
    expect(error.message).toBe(`Field "Name" (${line.id}): expected text`);
  });

  it.each([
    ['a number', 12.5, '12.5'],
    ['a boolean', true, 'true'],
    ['a list, items joined', ['a', 'b'], 'a, b'],
    ['an object with a title', { id: 'usrX', title: 'Alice' }, 'Alice'],
    ['an object with a name', { name: 'Tag' }, 'Tag'],
    ['any other object as JSON', { a: 1 }, '{"a":1}'],
    ['text with a line break', 'a\nb', 'a b'],
    ['empty text', '', undefined],
    ['an empty list', [], undefined],
    ['null', null, undefined],
  ])('typecast: %s', (_what, value, expected) => {
    expect(singleLineText.typecast(value, line, ctx)).toEqual({ value: expected });
  });

  it('renders the text as JSON and as text', () => {
    expect(singleLineText.toJson('hi', line, readCtx)).toBe('hi');
    expect(singleLineText.toText('hi', line, readCtx)).toBe('hi');
  });

  it('keeps showAs and a default value (line breaks replaced)', () => {
    expect(
      singleLineText.normalizeOptions({ showAs: { type: 'url' }, defaultValue: 'a\nb', other: 1 }, ctx),
    ).toEqual({
      showAs: { type: 'url' },
      defaultValue: 'a b',
    });
  });

  it.each([
    ['options not an object', 'x', 'options must be an object'],
    ['an unknown showAs type', { showAs: { type: 'color' } }, 'showAs.type must be one of url, email, phone'],
    ['showAs not an object', { showAs: 'url' }, 'showAs.type must be one of url, email, phone'],
    ['a default value that is not text', { defaultValue: 3 }, 'defaultValue must be text'],
  ])('options: %s is a 400', (_what, options, message) => {
    expect(validationError(() => singleLineText.normalizeOptions(options, ctx)).message).toBe(
      `Invalid options for a singleLineText field: ${message}`,
    );
  });

  it('gives the default value to an empty cell on create', () => {
    const field = makeField('singleLineText', { defaultValue: 'todo' });
    expect(singleLineText.defaultValue(field, ctx)).toBe('todo');
    expect(singleLineText.defaultValue(line, ctx)).toBeUndefined();
  });

  it('is a string cell, single-valued, allowed as primary, named Label by default', () => {
    expect(singleLineText.cellValueType({})).toBe('string');
    expect(singleLineText.isMultipleCellValue({})).toBe(false);
    expect(singleLineText.allowedAsPrimary).toBe(true);
    expect(singleLineText.defaultName).toBe('Label');
  });
});

describe('longText', () => {
  it.each([
    ['line breaks kept', 'a\nb\r\nc', 'a\nb\r\nc'],
    ['tabs kept', 'a\tb', 'a\tb'],
    ['"" clears', '', undefined],
  ])('validate: %s', (_what, value, expected) => {
    expect(longText.validate(value, notes, ctx)).toEqual({ value: expected });
  });

  it('a number is a 400 naming the field', () => {
    expect(validationError(() => longText.validate(1, notes, ctx)).message).toBe(
      `Field "Name" (${notes.id}): expected text`,
    );
  });

  it('typecast keeps line breaks', () => {
    expect(longText.typecast('a\nb', notes, ctx)).toEqual({ value: 'a\nb' });
  });

  it('has no showAs option and is named Notes by default', () => {
    expect(longText.normalizeOptions({ showAs: { type: 'url' }, defaultValue: 'x\ny' }, ctx)).toEqual({
      defaultValue: 'x\ny',
    });
    expect(longText.defaultName).toBe('Notes');
  });
});
