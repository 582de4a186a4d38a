import { describe, expect, it } from 'vitest';
import { attachment } from '#shared/fields/kinds/attachment.ts';
import { makeField, readCtx, validationError, writeCtx } from './support.ts';

const ctx = writeCtx();
const files = makeField('attachment');
const PNG = {
  name: 'a.png',
  token: 'tokA',
  path: 'table/a.png',
  size: 10,
  mimetype: 'image/png',
  width: 4,
  height: 3,
};
const PDF = { id: 'actGivenAAAAAAAAAAA', name: 'b.pdf', token: 'tokB' };

describe('attachment', () => {
  it('validate stores the items, with an act… id when missing', () => {
    const { value } = attachment.validate([PNG, PDF], files, ctx);
    expect(value).toEqual([{ ...PNG, id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/) }, PDF]);
  });

  it('validate drops unknown properties', () => {
    expect(attachment.validate([{ ...PDF, evil: true }], files, ctx)).toEqual({ value: [PDF] });
  });

  it.each([
    [
      'an empty list',
      [],
      'expected a non-empty list of {name, token, id?, path?, size?, mimetype?, width?, height?}',
    ],
    [
      'one object',
      PDF,
      'expected a non-empty list of {name, token, id?, path?, size?, mimetype?, width?, height?}',
    ],
    [
      'an item without token',
      [{ name: 'a' }],
      'item 0: expected {name, token, id?, path?, size?, mimetype?, width?, height?} with text name and token',
    ],
    [
      'a size that is text',
      [PDF, { ...PNG, size: '10' }],
      'item 1: expected {name, token, id?, path?, size?, mimetype?, width?, height?} with text name and token',
    ],
    [
      'a negative width',
      [{ ...PNG, width: -1 }],
      'item 0: expected {name, token, id?, path?, size?, mimetype?, width?, height?} with text name and token',
    ],
  ])('validate: %s is a 400 naming the field', (_what, value, message) => {
    expect(validationError(() => attachment.validate(value, files, ctx)).message).toBe(
      `Field "Name" (${files.id}): ${message}`,
    );
  });

  it.each([
    ['one object is wrapped in a list', PDF, [PDF]],
    ['bad items dropped', [PDF, { name: 'x' }, 'y'], [PDF]],
    ['nothing usable clears', ['a', 1], undefined],
    ['an empty list clears', [], undefined],
  ])('typecast: %s', (_what, value, expected) => {
    expect(attachment.typecast(value, files, ctx)).toEqual({ value: expected });
  });

  it('JSON fills path, size, mimetype and presignedUrl', () => {
    const stored = [{ ...PNG, id: 'actA' }, PDF];
    expect(attachment.toJson(stored, files, readCtx)).toEqual([
      { ...PNG, id: 'actA', presignedUrl: 'table/a.png' },
      { ...PDF, path: '', size: 0, mimetype: '', presignedUrl: '' },
    ]);
  });

  it('text is "name (token)" items joined by ","', () => {
    expect(attachment.toText([PNG, PDF], files, readCtx)).toBe('a.png (tokA),b.pdf (tokB)');
  });

  it('has empty options, is a multiple string cell, not allowed as primary', () => {
    expect(attachment.normalizeOptions({ anything: 1 }, ctx)).toEqual({});
    expect(attachment.isMultipleCellValue({})).toBe(true);
    expect(attachment.cellValueType({})).toBe('string');
    expect(attachment.allowedAsPrimary).toBe(false);
  });
});
