import { describe, expect, it } from 'vitest';
import type { AttachmentFacts } from '#shared/fields/field-types.ts';
import { attachment, tokensOfAttachmentValue } from '#shared/fields/kinds/attachment.ts';
import { makeField, readCtx, validationError, writeCtx } from './support.ts';

/** What the service knows of two uploads of the base (`WriteContext.attachments`). */
const UPLOADS = new Map<string, AttachmentFacts>([
  [
    'tokA',
    {
      token: 'tokA',
      path: 'table/tokA',
      size: 10,
      mimetype: 'image/png',
      name: 'up.png',
      width: 4,
      height: 3,
    },
  ],
  ['tokB', { token: 'tokB', path: 'table/tokB', size: 7, mimetype: 'application/pdf' }],
]);
const ctx = writeCtx({ attachments: UPLOADS });
const files = makeField('attachment');
const PNG = {
  id: 'actA',
  name: 'a.png',
  token: 'tokA',
  path: 'table/tokA',
  size: 10,
  mimetype: 'image/png',
  width: 4,
  height: 3,
};
const PDF = {
  id: 'actGivenAAAAAAAAAAA',
  name: 'b.pdf',
  token: 'tokB',
  path: 'table/tokB',
  size: 7,
  mimetype: 'application/pdf',
};

describe('attachment', () => {
  it("validate stores the items with the upload's facts, keeping the caller's name and id (a new act… id when missing)", () => {
    const { value } = attachment.validate(
      [
        { name: 'a.png', token: 'tokA' },
        { id: PDF.id, name: 'b.pdf', token: 'tokB' },
      ],
      files,
      ctx,
    );
    expect(value).toEqual([{ ...PNG, id: expect.stringMatching(/^act[0-9A-Za-z]{16}$/) }, PDF]);
  });

  it("takes path, size, type and image size from the upload, never from the caller; a missing name is the upload's", () => {
    const { value } = attachment.validate(
      [{ token: 'tokA', path: 'elsewhere', size: 1, mimetype: 'text/html', width: 999 }],
      files,
      ctx,
    );
    expect(value).toEqual([{ ...PNG, id: expect.any(String), name: 'up.png' }]);
  });

  it('validate drops unknown properties', () => {
    expect(attachment.validate([{ ...PDF, evil: true }], files, ctx)).toEqual({ value: [PDF] });
  });

  it.each([
    ['an empty list', [], 'expected a non-empty list of {token, name?, id?}'],
    ['one object', PDF, 'expected a non-empty list of {token, name?, id?}'],
    ['an item without token', [{ name: 'a' }], 'item 0: expected {token, name?, id?} with a text token'],
    [
      'a size that is text',
      [PDF, { ...PNG, size: '10' }],
      'item 1: expected {token, name?, id?} with a text token',
    ],
    ['a negative width', [{ ...PNG, width: -1 }], 'item 0: expected {token, name?, id?} with a text token'],
    [
      'a token not uploaded to this base',
      [PDF, { name: 'x', token: 'tokOther' }],
      'item 1: no uploaded file tokOther in this base (upload it first: POST /attachments/signature, then notify)',
    ],
  ])('validate: %s is a 400 naming the field', (_what, value, message) => {
    expect(validationError(() => attachment.validate(value, files, ctx)).message).toBe(
      `Field "Name" (${files.id}): ${message}`,
    );
  });

  it('without the uploads read (no attachment context) no token is accepted', () => {
    expect(validationError(() => attachment.validate([PDF], files, writeCtx())).message).toContain(
      'no uploaded file tokB in this base',
    );
  });

  it.each([
    ['one object is wrapped in a list', PDF, [PDF]],
    ['a token', 'tokB', [{ ...PDF, id: expect.any(String), name: 'tokB' }]],
    [
      'tokens separated by commas',
      'tokA, tokB',
      [
        { ...PNG, id: expect.any(String), name: 'up.png' },
        { ...PDF, id: expect.any(String), name: 'tokB' },
      ],
    ],
    ['bad items and unknown tokens dropped', [PDF, { name: 'x' }, 'tokZ', 1], [PDF]],
    ['nothing usable clears', ['a', 1], undefined],
    ['an empty list clears', [], undefined],
  ])('typecast: %s', (_what, value, expected) => {
    expect(attachment.typecast(value, files, ctx)).toEqual({ value: expected });
  });

  it('names the tokens a written value holds (what the write reads first)', () => {
    expect(tokensOfAttachmentValue([PDF, { token: 'tokA' }, 'tokC, tokD', { name: 'x' }])).toEqual([
      'tokB',
      'tokA',
      'tokC',
      'tokD',
    ]);
  });

  it('JSON fills path, size and mimetype; the download URL is signed where the record is answered', () => {
    const stored = [PNG, { id: 'actOld', name: 'old', token: 'tokOld' }];
    expect(attachment.toJson(stored, files, readCtx)).toEqual([
      { ...PNG, presignedUrl: '' },
      { id: 'actOld', name: 'old', token: 'tokOld', path: '', size: 0, mimetype: '', presignedUrl: '' },
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
