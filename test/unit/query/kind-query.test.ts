/**
 * Field kinds own their query facts (`FieldKind.query`): every kind declares them, the engine's
 * filter kind and operators follow from them, and a computed result without a kind (formula,
 * rollup, later lookups) resolves by its cell value type and multiplicity.
 */
import { describe, expect, it } from 'vitest';
import type { CellValueType, Field, QueryValueClass } from '#shared/fields/field-types.ts';
import { fieldQuery, resultQuery } from '#shared/fields/query-facts.ts';
import { FIELD_KINDS } from '#shared/fields/registry.ts';
import { type FilterKind, filterKindFor, filterKindOf, OPERATORS_BY_KIND } from '#shared/query/filter.ts';
import { makeField, readCtx } from '../fields/support.ts';

const VALUE_CLASSES: readonly QueryValueClass[] = [
  'text',
  'number',
  'boolean',
  'dateTime',
  'select',
  'user',
  'link',
  'attachment',
];

const NUMBER_OPERATORS = [
  'is',
  'isNot',
  'isGreater',
  'isGreaterEqual',
  'isLess',
  'isLessEqual',
  'isEmpty',
  'isNotEmpty',
];

describe('every registered field kind declares its query facts', () => {
  it.each(Object.values(FIELD_KINDS).map((kind) => [kind.type, kind] as const))('%s', (_type, kind) => {
    const { query } = kind;
    expect(VALUE_CLASSES).toContain(query.valueClass);
    expect(typeof query.searchedByDefault).toBe('boolean');
    expect(Number.isInteger(query.searchCost) && query.searchCost >= 0 && query.searchCost <= 5).toBe(true);
    expect(query.groupPrecision === undefined || Number.isInteger(query.groupPrecision)).toBe(true);
    expect(query.textAlphabet === undefined || typeof query.textAlphabet === 'function').toBe(true);
  });

  it.each<[string, unknown, QueryValueClass, boolean, FilterKind]>([
    ['singleLineText', undefined, 'text', false, 'text'],
    ['longText', undefined, 'text', false, 'text'],
    ['number', undefined, 'number', false, 'number'],
    ['rating', undefined, 'number', false, 'number'],
    ['autoNumber', undefined, 'number', false, 'number'],
    ['checkbox', undefined, 'boolean', false, 'checkbox'],
    ['date', undefined, 'dateTime', false, 'date'],
    ['createdTime', undefined, 'dateTime', false, 'date'],
    ['lastModifiedTime', undefined, 'dateTime', false, 'date'],
    ['singleSelect', undefined, 'select', false, 'singleSelect'],
    ['multipleSelect', undefined, 'select', true, 'multipleSelect'],
    ['user', undefined, 'user', false, 'singleUser'],
    ['user', { isMultiple: true }, 'user', true, 'multipleUser'],
    ['createdBy', undefined, 'user', false, 'singleUser'],
    ['lastModifiedBy', undefined, 'user', false, 'singleUser'],
    ['link', { relationship: 'manyOne', foreignTableId: 'tblForeignAAAAAAAAA' }, 'link', false, 'singleLink'],
    ['link', { relationship: 'oneOne', foreignTableId: 'tblForeignAAAAAAAAA' }, 'link', false, 'singleLink'],
    [
      'link',
      { relationship: 'oneMany', foreignTableId: 'tblForeignAAAAAAAAA' },
      'link',
      true,
      'multipleLink',
    ],
    [
      'link',
      { relationship: 'manyMany', foreignTableId: 'tblForeignAAAAAAAAA' },
      'link',
      true,
      'multipleLink',
    ],
    ['attachment', undefined, 'attachment', true, 'attachment'],
  ])(
    '%s %j is class %s (multiple: %s), filter kind %s',
    (type, options, valueClass, isMultiple, filterKind) => {
      const field = makeField(type, options);
      const query = fieldQuery(field);
      expect({ valueClass: query.valueClass, isMultiple: query.isMultiple }).toEqual({
        valueClass,
        isMultiple,
      });
      expect(filterKindOf(field)).toBe(filterKind);
    },
  );

  it('search facts: checkbox and times are left out of a search of all fields, costs order the tests', () => {
    const facts = (type: string) => {
      const q = fieldQuery(makeField(type));
      return [q.searchedByDefault, q.searchCost, q.textAlphabet()];
    };
    expect(facts('checkbox')).toEqual([false, 0, 'true']);
    expect(facts('date')).toEqual([false, 2, '0123456789-/: apm']);
    expect(facts('createdTime')).toEqual([false, 2, '0123456789-/: apm']);
    expect(facts('rating')).toEqual([true, 0, '0123456789-.e+']);
    expect(facts('autoNumber')).toEqual([true, 0, '0123456789-.e+']);
    expect(facts('number')).toEqual([true, 1, '0123456789.,-%$']);
    expect(facts('singleSelect')).toEqual([true, 0, undefined]);
    expect(facts('singleLineText')).toEqual([true, 3, undefined]);
    expect(facts('longText')).toEqual([true, 4, undefined]);
    expect(facts('attachment')).toEqual([true, 5, undefined]);
  });

  it('a number groups to 2 digits without formatting; rating and autoNumber are not rounded', () => {
    expect(fieldQuery(makeField('number')).groupPrecision).toBe(2);
    expect(fieldQuery(makeField('rating')).groupPrecision).toBeUndefined();
    expect(fieldQuery(makeField('autoNumber')).groupPrecision).toBeUndefined();
  });

  it("the text rendering is the kind's toText", () => {
    const field = makeField('number', { formatting: { type: 'currency', precision: 1, symbol: '€' } });
    expect(fieldQuery(field).toText(12.34, field, readCtx)).toBe(
      FIELD_KINDS.number.toText(12.34, field, readCtx),
    );
  });
});

describe('a computed result without a kind resolves by its cell value type', () => {
  it.each<[CellValueType, boolean, QueryValueClass, FilterKind]>([
    ['string', false, 'text', 'text'],
    ['string', true, 'text', 'text'],
    ['number', false, 'number', 'number'],
    ['number', true, 'number', 'number'],
    ['boolean', false, 'boolean', 'checkbox'],
    ['boolean', true, 'boolean', 'checkbox'],
    ['dateTime', false, 'dateTime', 'date'],
    ['dateTime', true, 'dateTime', 'date'],
  ])(
    'cellValueType %s (multiple: %s) is class %s, filter kind %s',
    (cellValueType, isMultiple, valueClass, kind) => {
      const query = resultQuery(cellValueType, isMultiple);
      expect({ valueClass: query.valueClass, isMultiple: query.isMultiple }).toEqual({
        valueClass,
        isMultiple,
      });
      expect(filterKindFor(query)).toBe(kind);
    },
  );

  it('a multiple number result (cellValueType number, isMultipleCellValue true) takes the number operators', () => {
    const formula: Field = {
      ...makeField('singleLineText'),
      type: 'formula',
      cellValueType: 'number',
      isMultipleCellValue: true,
    };
    const query = fieldQuery(formula);
    expect(query.valueClass).toBe('number');
    expect(query.isMultiple).toBe(true);
    expect(filterKindOf(formula)).toBe('number');
    expect(OPERATORS_BY_KIND[filterKindOf(formula)]).toEqual(NUMBER_OPERATORS);
  });

  it('renders as generic text, is searched last, and a time result is left out of a search of all fields', () => {
    const rollup: Field = { ...makeField('singleLineText'), type: 'rollup', cellValueType: 'string' };
    const query = fieldQuery(rollup);
    expect(query.toText(['a', 'b'], rollup, readCtx)).toBe('a, b');
    expect([query.searchedByDefault, query.searchCost, query.textAlphabet()]).toEqual([true, 5, undefined]);
    expect(fieldQuery({ ...rollup, cellValueType: 'dateTime' }).searchedByDefault).toBe(false);
    expect(resultQuery('dateTime', false).searchedByDefault).toBe(false);
  });

  it('an unknown cell value type reads as text', () => {
    expect(resultQuery('bogus' as CellValueType, false).valueClass).toBe('text');
  });
});
