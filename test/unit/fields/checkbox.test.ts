import { describe, expect, it } from 'vitest';
import { checkbox } from '#shared/fields/kinds/checkbox.ts';
import { makeField, readCtx, validationError, writeCtx } from './support.ts';

const ctx = writeCtx();
const done = makeField('checkbox');

describe('checkbox', () => {
  it.each([
    ['true is checked', true, true],
    ['null is unchecked', null, undefined],
  ])('validate: %s', (_what, value, expected) => {
    expect(checkbox.validate(value, done, ctx)).toEqual({ value: expected });
  });

  it.each([
    ['false', false],
    ['text "true"', 'true'],
    ['1', 1],
    ['a list', [true]],
  ])('validate: %s is a 400 naming the field', (_what, value) => {
    expect(validationError(() => checkbox.validate(value, done, ctx)).message).toBe(
      `Field "Name" (${done.id}): expected true or null`,
    );
  });

  it.each([
    ['true', true, true],
    ['1', 1, true],
    ['text', 'x', true],
    ['an empty list (truthy)', [], true],
    ['false', false, undefined],
    ['0', 0, undefined],
    ['empty text', '', undefined],
    ['null', null, undefined],
  ])('typecast: %s', (_what, value, expected) => {
    expect(checkbox.typecast(value, done, ctx)).toEqual({ value: expected });
  });

  it('renders "true"', () => {
    expect(checkbox.toText(true, done, readCtx)).toBe('true');
    expect(checkbox.toJson(true, done, readCtx)).toBe(true);
  });

  it('keeps a boolean default; true fills new cells, false leaves them empty', () => {
    expect(checkbox.normalizeOptions({ defaultValue: true }, ctx)).toEqual({ defaultValue: true });
    expect(checkbox.defaultValue(makeField('checkbox', { defaultValue: true }), ctx)).toBe(true);
    expect(checkbox.defaultValue(makeField('checkbox', { defaultValue: false }), ctx)).toBeUndefined();
  });

  it('options: a default that is not a boolean is a 400', () => {
    expect(validationError(() => checkbox.normalizeOptions({ defaultValue: 'yes' }, ctx)).message).toBe(
      'Invalid options for a checkbox field: defaultValue must be true or false',
    );
  });

  it('is a boolean cell and not allowed as primary', () => {
    expect(checkbox.cellValueType({})).toBe('boolean');
    expect(checkbox.allowedAsPrimary).toBe(false);
  });
});
