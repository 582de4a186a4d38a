import { describe, expect, it } from 'vitest';
import { assertPrimaryAllowed, choiceChanges, defineField, updateField } from '#shared/fields/define.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { newId } from '#shared/ids.ts';
import { choiceIds, TABLE_ID, validationError } from './support.ts';

const define = (input: Record<string, unknown>, existing: Field[] = []) =>
  defineField(input, { existing, newChoiceId: choiceIds() });

/** A table with a primary text field `Name` and a number field `Count`. */
const table = (): Field[] => {
  const name = define({ type: 'singleLineText', name: 'Name' });
  return [name, define({ type: 'number', name: 'Count' }, [name])];
};

describe('defineField', () => {
  it('builds a full field from a bare type; the first field of a table is primary', () => {
    const field = define({ type: 'singleLineText' });
    expect(field).toEqual({
      id: expect.stringMatching(/^fld[0-9A-Za-z]{16}$/),
      name: 'Label',
      type: 'singleLineText',
      options: {},
      dbFieldName: 'Label',
      isPrimary: true,
      cellValueType: 'string',
      dbFieldType: 'TEXT',
    });
  });

  it('a later field is not primary and gets a unique default name and dbFieldName', () => {
    const first = define({ type: 'number' });
    const second = define({ type: 'number' }, [first]);
    expect(second).toMatchObject({ name: 'Number 2', dbFieldName: 'Number_2', cellValueType: 'number' });
    expect(second.isPrimary).toBeUndefined();
  });

  it('derives dbFieldName from the name, made unique with _2', () => {
    const fields = table();
    const other = { ...define({ type: 'number', name: 'Other' }, fields), dbFieldName: 'First_Name' };
    const field = define({ type: 'longText', name: ' First Name ' }, [...fields, other]);
    expect(field).toMatchObject({ name: 'First Name', dbFieldName: 'First_Name_2' });
  });

  it('keeps a given id, description, dbFieldName, notNull and unique', () => {
    const field = define(
      {
        type: 'number',
        id: 'fldGivenAAAAAAAAAAA',
        name: 'Price',
        description: 'in euro',
        dbFieldName: 'price_eur',
        notNull: true,
        unique: true,
        options: { formatting: { type: 'currency', precision: 2, symbol: '€' } },
      },
      table(),
    );
    expect(field).toEqual({
      id: 'fldGivenAAAAAAAAAAA',
      name: 'Price',
      type: 'number',
      description: 'in euro',
      options: { formatting: { type: 'currency', precision: 2, symbol: '€' } },
      dbFieldName: 'price_eur',
      notNull: true,
      unique: true,
      cellValueType: 'number',
      dbFieldType: 'REAL',
    });
  });

  it('sets the derived flags: multiple cells, computed', () => {
    const fields = table();
    expect(define({ type: 'multipleSelect' }, fields)).toMatchObject({
      isMultipleCellValue: true,
      cellValueType: 'string',
    });
    expect(define({ type: 'user', options: { isMultiple: true } }, fields).isMultipleCellValue).toBe(true);
    expect(define({ type: 'user' }, fields).isMultipleCellValue).toBeUndefined();
    expect(define({ type: 'autoNumber' }, fields)).toMatchObject({
      isComputed: true,
      cellValueType: 'number',
      name: 'ID',
    });
    expect(
      define({ type: 'link', options: { relationship: 'oneMany', foreignTableId: TABLE_ID } }, fields),
    ).toMatchObject({
      isMultipleCellValue: true,
      name: 'Link',
    });
  });

  it("answers every type's dbFieldType as Teable maps it", () => {
    const fields = table();
    const link = { relationship: 'manyOne', foreignTableId: TABLE_ID };
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'singleLineText' }, 'TEXT'],
      [{ type: 'longText' }, 'TEXT'],
      [{ type: 'number' }, 'REAL'],
      [{ type: 'rating' }, 'REAL'],
      [{ type: 'checkbox' }, 'BOOLEAN'],
      [{ type: 'date' }, 'DATETIME'],
      [{ type: 'createdTime' }, 'DATETIME'],
      [{ type: 'lastModifiedTime' }, 'DATETIME'],
      [{ type: 'autoNumber' }, 'INTEGER'],
      [{ type: 'singleSelect' }, 'TEXT'],
      [{ type: 'multipleSelect' }, 'JSON'],
      [{ type: 'attachment' }, 'JSON'],
      [{ type: 'user' }, 'JSON'],
      [{ type: 'user', options: { isMultiple: true } }, 'JSON'],
      [{ type: 'createdBy' }, 'JSON'],
      [{ type: 'lastModifiedBy' }, 'JSON'],
      [{ type: 'link', options: link }, 'JSON'],
      [{ type: 'formula', options: { expression: '1 + 1' } }, 'REAL'],
      [{ type: 'formula', options: { expression: '"a"' } }, 'TEXT'],
    ];
    for (const [input, dbFieldType] of cases)
      expect(define(input, fields), JSON.stringify(input)).toMatchObject({ dbFieldType });
  });

  it('names a field after ctx.defaultName when given (a link after its foreign table)', () => {
    const field = defineField(
      { type: 'link', options: { relationship: 'manyOne', foreignTableId: TABLE_ID } },
      { existing: table(), defaultName: 'Projects' },
    );
    expect(field).toMatchObject({ name: 'Projects', dbFieldName: 'Projects' });
  });

  it('normalises options, giving choices ids from newChoiceId', () => {
    const field = define(
      { type: 'singleSelect', options: { choices: [{ name: 'light' }, { name: 'heavy' }] } },
      table(),
    );
    expect(field.options.choices).toEqual([
      { id: 'cho0000000000000001', name: 'light', color: expect.any(String) },
      { id: 'cho0000000000000002', name: 'heavy', color: expect.any(String) },
    ]);
  });

  it.each([
    ['no type', {}, 'type is required'],
    [
      'an unknown type',
      { type: 'button' },
      expect.stringMatching(/^Unknown field type "button"; expected one of /),
    ],
    [
      'a rollup without lookupOptions',
      { type: 'rollup', options: { expression: 'sum({values})' } },
      'lookupOptions is required',
    ],
    [
      'a rollup without options',
      {
        type: 'rollup',
        lookupOptions: { foreignTableId: 'tblX', linkFieldId: 'fldX', lookupFieldId: 'fldY' },
      },
      'rollup field options is required',
    ],
    [
      'lookupOptions on a plain field',
      {
        type: 'number',
        lookupOptions: { foreignTableId: 'tblX', linkFieldId: 'fldX', lookupFieldId: 'fldY' },
      },
      'lookupOptions is not allowed when isLookup is not true.',
    ],
    [
      'a lookup through a field that is not a link of the table',
      {
        type: 'number',
        isLookup: true,
        lookupOptions: { foreignTableId: 'tblX', linkFieldId: 'fldNOPE', lookupFieldId: 'fldY' },
      },
      'linkFieldId fldNOPE is invalid',
    ],
    [
      'a formula without expression',
      { type: 'formula', options: {} },
      'Invalid options for a formula field: expression is required',
    ],
    [
      'a formula that does not parse',
      { type: 'formula', options: { expression: 'SUM(1' } },
      expect.stringMatching(/^expression parse error: /),
    ],
    ['a taken name', { type: 'number', name: 'Count' }, 'A field named "Count" already exists in this table'],
    ['a name too long', { type: 'number', name: 'x'.repeat(256) }, 'name must be at most 255 characters'],
    ['a name that is not text', { type: 'number', name: 5 }, 'name must be text'],
    [
      'an invalid dbFieldName',
      { type: 'number', dbFieldName: '1st' },
      'dbFieldName "1st" must match ^[A-Za-z_]\\w{0,62}$ (letters, digits, _)',
    ],
    [
      'a taken dbFieldName',
      { type: 'number', dbFieldName: 'Count' },
      'dbFieldName "Count" is already used in this table',
    ],
    ['a bad id', { type: 'number', id: 'abc' }, 'id must be a field id (fld…)'],
    ['notNull not a boolean', { type: 'number', notNull: 'yes' }, 'notNull must be true or false'],
    [
      'a computed field with notNull',
      { type: 'createdTime', notNull: true },
      'A createdTime field is computed and cannot be notNull or unique',
    ],
    ['a second primary field', { type: 'number', isPrimary: true }, 'The table already has a primary field'],
    [
      'a lookup without lookupOptions',
      { type: 'number', isLookup: true },
      'lookupOptions is required when isLookup is true.',
    ],
    [
      'bad options',
      { type: 'rating', options: { max: 20 } },
      'Invalid options for a rating field: max must be an integer from 1 to 10',
    ],
  ])('%s is a 400', (_what, input, message) => {
    expect(validationError(() => define(input, table())).message).toEqual(message);
  });

  it('an id already in the table is a 400', () => {
    const fields = table();
    const id = fields[0]?.id;
    expect(validationError(() => define({ type: 'number', id }, fields)).message).toBe(
      `A field with id ${id} already exists in this table`,
    );
  });

  it.each(['checkbox', 'attachment'])('a %s as the first field is a 400', (type) => {
    expect(validationError(() => define({ type })).message).toBe(
      `A ${type} field cannot be the primary field (field "${type === 'checkbox' ? 'Done' : 'Attachments'}")`,
    );
  });

  it('a checkbox that is not the first field is fine', () => {
    expect(define({ type: 'checkbox' }, table())).toMatchObject({ name: 'Done', cellValueType: 'boolean' });
  });

  it('an explicit isPrimary: false in an empty table is respected', () => {
    expect(define({ type: 'checkbox', isPrimary: false }).isPrimary).toBeUndefined();
  });
});

describe('assertPrimaryAllowed', () => {
  it.each([
    ['singleLineText', true],
    ['longText', true],
    ['number', true],
    ['rating', true],
    ['singleSelect', true],
    ['multipleSelect', true],
    ['date', true],
    ['user', true],
    ['autoNumber', true],
    ['createdTime', true],
    ['lastModifiedTime', true],
    ['createdBy', true],
    ['lastModifiedBy', true],
    ['checkbox', false],
    ['attachment', false],
    ['link', false],
  ] as const)('%s allowed: %s', (type, allowed) => {
    const act = () => assertPrimaryAllowed({ type, name: 'F' });
    if (allowed) expect(act).not.toThrow();
    else expect(validationError(act).message).toBe(`A ${type} field cannot be the primary field (field "F")`);
  });
});

describe('updateField', () => {
  // real random ids: a counter restarting at 1 would hand out the ids of the stored choices again
  const patch = (field: Field, body: Record<string, unknown>, existing: Field[]) =>
    updateField(field, body, { existing, newChoiceId: () => newId('choice') });

  it('renames and changes description and dbFieldName', () => {
    const fields = table();
    const count = fields[1] as Field;
    const next = patch(count, { name: ' Total ', description: 'all of them', dbFieldName: 'total' }, fields);
    expect(next).toEqual({ ...count, name: 'Total', description: 'all of them', dbFieldName: 'total' });
    expect(patch(next, { description: null }, fields).description).toBeUndefined();
  });

  it('keeping its own name or dbFieldName is fine', () => {
    const fields = table();
    const count = fields[1] as Field;
    expect(patch(count, { name: 'Count', dbFieldName: 'Count', type: 'number' }, fields)).toEqual(count);
  });

  it.each([
    ['a name taken by another field', { name: 'Name' }, 'A field named "Name" already exists in this table'],
    ['an empty name', { name: ' ' }, 'name must not be empty'],
    ['a taken dbFieldName', { dbFieldName: 'Name' }, 'dbFieldName "Name" is already used in this table'],
    [
      'an invalid dbFieldName',
      { dbFieldName: 'a b' },
      'dbFieldName "a b" must match ^[A-Za-z_]\\w{0,62}$ (letters, digits, _)',
    ],
    [
      'another type',
      { type: 'singleLineText' },
      "Changing a field's type (number to singleLineText) is not supported",
    ],
    ['options not an object', { options: [] }, 'options must be an object'],
    [
      'bad options',
      { options: { formatting: { precision: 9 } } },
      'Invalid options for a number field: formatting.precision must be an integer from 0 to 5',
    ],
  ])('%s is a 400', (_what, body, message) => {
    const fields = table();
    expect(validationError(() => patch(fields[1] as Field, body, fields)).message).toBe(message);
  });

  it('merges options over the stored ones', () => {
    const fields = table();
    const count = {
      ...(fields[1] as Field),
      options: { formatting: { type: 'decimal', precision: 2 }, defaultValue: 1 },
    };
    expect(
      patch(count, { options: { formatting: { type: 'percent', precision: 1 } } }, fields).options,
    ).toEqual({
      formatting: { type: 'percent', precision: 1 },
      defaultValue: 1,
    });
  });

  it('recomputes isMultipleCellValue when a user field becomes multiple and back', () => {
    const fields = table();
    const owner = define({ type: 'user' }, fields);
    const multiple = patch(owner, { options: { isMultiple: true } }, fields);
    expect(multiple.isMultipleCellValue).toBe(true);
    expect(patch(multiple, { options: { isMultiple: false } }, fields).isMultipleCellValue).toBeUndefined();
  });

  it('a link keeps its relationship and foreign table; changing them is a 400', () => {
    const fields = table();
    const options = {
      relationship: 'manyMany',
      foreignTableId: TABLE_ID,
      symmetricFieldId: 'fldSymAAAAAAAAAAAAA',
    };
    const linkField = define({ type: 'link', options }, fields);
    expect(patch(linkField, { options: { relationship: 'manyMany' } }, fields).options).toEqual(options);
    expect(
      validationError(() => patch(linkField, { options: { relationship: 'oneMany' } }, fields)).message,
    ).toBe('options.relationship of a link field cannot be changed');
  });

  it('reports renamed and removed choices', () => {
    const fields = table();
    const before = define(
      { type: 'singleSelect', options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
      fields,
    );
    const [a, , c] = before.options.choices as { id: string; name: string }[];
    const after = patch(before, { options: { choices: [{ ...a, name: 'A' }, c, { name: 'd' }] } }, fields);
    expect((after.options.choices as { id: string }[])[0]?.id).toBe(a?.id);
    expect(choiceChanges(before, after)).toEqual({ renamed: [{ from: 'a', to: 'A' }], removed: ['b'] });
  });
});
