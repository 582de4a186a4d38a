import { describe, expect, it } from 'vitest';
import { link } from '#shared/fields/kinds/link.ts';
import { isId } from '#shared/ids.ts';
import {
  makeField,
  REC_1,
  REC_2,
  REC_DELETED,
  readCtx,
  TABLE_ID,
  validationError,
  writeCtx,
} from './support.ts';

const ctx = writeCtx();
const many = makeField('link', { relationship: 'manyMany', foreignTableId: TABLE_ID });
const one = makeField('link', { relationship: 'manyOne', foreignTableId: TABLE_ID });

describe('link options', () => {
  it('fixture ids are well-formed', () => {
    expect([REC_1, REC_2, REC_DELETED].every((id) => isId('record', id))).toBe(true);
    expect(isId('table', TABLE_ID)).toBe(true);
  });

  it('keep relationship, foreignTableId, isOneWay and the ids the schema layer sets', () => {
    const options = {
      relationship: 'oneMany',
      foreignTableId: TABLE_ID,
      isOneWay: false,
      symmetricFieldId: 'fldSymmetricAAAAAAA',
      lookupFieldId: 'fldLookupAAAAAAAAAA',
      fkHostTableName: 'x',
    };
    expect(link.normalizeOptions(options, ctx)).toEqual({
      relationship: 'oneMany',
      foreignTableId: TABLE_ID,
      isOneWay: false,
      symmetricFieldId: 'fldSymmetricAAAAAAA',
      lookupFieldId: 'fldLookupAAAAAAAAAA',
    });
  });

  it.each([
    [
      'no relationship',
      { foreignTableId: TABLE_ID },
      'relationship must be one of oneOne, oneMany, manyOne, manyMany',
    ],
    [
      'an unknown relationship',
      { relationship: 'many', foreignTableId: TABLE_ID },
      'relationship must be one of oneOne, oneMany, manyOne, manyMany',
    ],
    ['no foreign table', { relationship: 'oneOne' }, 'foreignTableId must be a table id (tbl…)'],
    [
      'a foreign id of another kind',
      { relationship: 'oneOne', foreignTableId: REC_1 },
      'foreignTableId must be a table id (tbl…)',
    ],
    [
      'a bad symmetric field id',
      { relationship: 'oneOne', foreignTableId: TABLE_ID, symmetricFieldId: 'x' },
      'symmetricFieldId must be a field id (fld…)',
    ],
    [
      'isOneWay not a boolean',
      { relationship: 'oneOne', foreignTableId: TABLE_ID, isOneWay: 1 },
      'isOneWay must be true or false',
    ],
  ])('%s is a 400', (_what, options, message) => {
    expect(validationError(() => link.normalizeOptions(options, ctx)).message).toBe(
      `Invalid options for a link field: ${message}`,
    );
  });

  it.each([
    ['oneOne', false],
    ['manyOne', false],
    ['oneMany', true],
    ['manyMany', true],
  ])('%s holds a list: %s', (relationship, multiple) => {
    expect(link.isMultipleCellValue({ relationship })).toBe(multiple);
    expect(link.cellValueType({ relationship })).toBe('string');
  });
});

describe('link cells', () => {
  it.each([
    ['a list of {id}', [{ id: REC_1 }, { id: REC_2 }], [REC_1, REC_2]],
    ['bare record ids', [REC_2, REC_1], [REC_2, REC_1]],
    ['one {id}', { id: REC_1 }, [REC_1]],
    ['one bare id', REC_1, [REC_1]],
    ['null clears', null, undefined],
  ])('validate manyMany: %s', (_what, value, expected) => {
    expect(link.validate(value, many, ctx)).toEqual({ value: expected });
  });

  it('validate manyOne: one record in a list or not', () => {
    expect(link.validate([{ id: REC_1 }], one, ctx)).toEqual({ value: [REC_1] });
    expect(link.validate({ id: REC_1, title: 'x' }, one, ctx)).toEqual({ value: [REC_1] });
  });

  it.each([
    ['an empty list', many, [], 'expected a non-empty list of {id} of records'],
    ['a title', many, ['Alpha'], 'expected a non-empty list of {id} of records'],
    ['an id of another kind', many, [{ id: TABLE_ID }], 'expected a non-empty list of {id} of records'],
    ['a number', one, 5, 'expected {id} of a record'],
    ['two records in a single link', one, [{ id: REC_1 }, { id: REC_2 }], 'expected one record, got 2'],
    [
      'the same record twice (as Teable refuses it)',
      many,
      [{ id: REC_1 }, REC_1],
      `the same record twice: ${REC_1}`,
    ],
  ])('validate: %s is a 400 naming the field', (_what, field, value, message) => {
    expect(validationError(() => link.validate(value, field, ctx)).message).toBe(
      `Field "Name" (${field.id}): ${message}`,
    );
  });

  it.each([
    ['an id and a title in text', `${REC_1}, Alpha`, { value: [REC_1], linkTitles: ['Alpha'] }],
    ['titles only', 'Alpha, Beta', { value: undefined, linkTitles: ['Alpha', 'Beta'] }],
    [
      'a quoted title holding a comma',
      '"Smith, J", Beta',
      { value: undefined, linkTitles: ['Smith, J', 'Beta'] },
    ],
    [
      'a list of texts and objects',
      ['Alpha', { title: 'Beta' }, { id: REC_2 }, REC_1],
      { value: [REC_2, REC_1], linkTitles: ['Alpha', 'Beta'] },
    ],
    ['a number is a title', 7, { value: undefined, linkTitles: ['7'] }],
    ['duplicates dropped', [REC_1, REC_1, 'A', 'A'], { value: [REC_1], linkTitles: ['A'] }],
    ['empty text', '', { value: undefined }],
    ['an object without id or title', { x: 1 }, { value: undefined }],
  ])('typecast manyMany: %s', (_what, value, expected) => {
    expect(link.typecast(value, many, ctx)).toEqual(expected);
  });

  it.each([
    ['the first title only', 'Alpha, Beta', { value: undefined, linkTitles: ['Alpha'] }],
    ['the first id only', [REC_1, REC_2], { value: [REC_1] }],
  ])('typecast manyOne: %s', (_what, value, expected) => {
    expect(link.typecast(value, one, ctx)).toEqual(expected);
  });

  it('JSON is {id, title} items; records without a title (deleted) are left out', () => {
    expect(link.toJson([REC_1, REC_DELETED, REC_2], many, readCtx)).toEqual([
      { id: REC_1, title: 'Alpha' },
      { id: REC_2, title: 'Beta' },
    ]);
    expect(link.toJson([REC_2], one, readCtx)).toEqual({ id: REC_2, title: 'Beta' });
  });

  it('JSON is undefined (no cell) when no linked record is left', () => {
    expect(link.toJson([REC_DELETED], many, readCtx)).toBeUndefined();
    expect(link.toJson([REC_DELETED], one, readCtx)).toBeUndefined();
  });

  it('text is the titles joined by ", "', () => {
    expect(link.toText([REC_1, REC_DELETED, REC_2], many, readCtx)).toBe('Alpha, Beta');
  });

  it('asks for titles with the field id', () => {
    const asked: string[] = [];
    link.toText([REC_1], many, {
      linkTitle: (fieldId, recordId) => {
        asked.push(`${fieldId}/${recordId}`);
        return 'x';
      },
    });
    expect(asked).toEqual([`${many.id}/${REC_1}`]);
  });
});
