import { describe, expect, it } from 'vitest';
import { FIELD_TYPES } from '#shared/fields/field-types.ts';
import { FIELD_KINDS, fieldKind, isFieldType, PRIMARY_FIELD_TYPES } from '#shared/fields/registry.ts';
import { validationError } from './support.ts';

const BUILT = [...FIELD_TYPES];

describe('fieldKind', () => {
  it.each(BUILT)('%s has its kind', (type) => {
    expect(fieldKind(type).type).toBe(type);
  });

  it('every built type is in FIELD_KINDS and nothing else', () => {
    expect(Object.keys(FIELD_KINDS).sort()).toEqual([...BUILT].sort());
  });

  it.each(['text', '', '__proto__', 'toString', 'SingleLineText'])(
    'unknown type %j is a 400 listing the types',
    (type) => {
      const error = validationError(() => fieldKind(type));
      expect(error.status).toBe(400);
      expect(error.message).toBe(`Unknown field type "${type}"; expected one of ${BUILT.join(', ')}`);
    },
  );

  it('isFieldType knows the contract types, built or not', () => {
    expect(isFieldType('formula')).toBe(true);
    expect(isFieldType('number')).toBe(true);
    expect(isFieldType('button')).toBe(false);
    expect(isFieldType(3)).toBe(false);
  });
});

describe('types per fields.md', () => {
  it.each([
    ['singleLineText', 'string', 'Label'],
    ['longText', 'string', 'Notes'],
    ['number', 'number', 'Number'],
    ['rating', 'number', 'Rating'],
    ['checkbox', 'boolean', 'Done'],
    ['singleSelect', 'string', 'Select'],
    ['multipleSelect', 'string', 'Tags'],
    ['date', 'dateTime', 'Date'],
    ['user', 'string', 'Collaborator'],
    ['attachment', 'string', 'Attachments'],
    ['link', 'string', 'Link'],
    ['autoNumber', 'number', 'ID'],
    ['createdTime', 'dateTime', 'Created Time'],
    ['lastModifiedTime', 'dateTime', 'Last Modified Time'],
    ['createdBy', 'string', 'Created By'],
    ['lastModifiedBy', 'string', 'Last Modified By'],
  ])('%s: cellValueType %s, default name %s', (type, cellValueType, defaultName) => {
    const kind = fieldKind(type);
    expect(kind.cellValueType({ relationship: 'manyMany' })).toBe(cellValueType);
    expect(kind.defaultName).toBe(defaultName);
  });

  it('primary types are those of "The primary field"', () => {
    expect([...PRIMARY_FIELD_TYPES].sort()).toEqual(
      [
        'singleLineText',
        'longText',
        'user',
        'singleSelect',
        'multipleSelect',
        'date',
        'number',
        'rating',
        'formula',
        'autoNumber',
        'createdTime',
        'lastModifiedTime',
        'createdBy',
        'lastModifiedBy',
      ].sort(),
    );
  });
});
