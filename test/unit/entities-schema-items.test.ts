import { describe, expect, it } from 'vitest';
import {
  type Dependent,
  dependentItem,
  dependentOf,
  fieldEntryOf,
  fieldItem,
  isDependentItem,
  isFieldItem,
  isViewItem,
  putDependentOp,
  putFieldOp,
  putViewOp,
  type View,
  viewIdOf,
  viewItem,
  viewOf,
} from '#shared/entities/schema-items.ts';
import type { Field } from '#shared/fields/field-types.ts';

const field = {
  id: 'fldA',
  name: 'Name',
  type: 'singleLineText',
  options: {},
  cellValueType: 'string',
  dbFieldType: 'TEXT',
} as unknown as Field;
const view: View = {
  id: 'viwB',
  name: 'Grid',
  type: 'grid',
  order: 1,
  filter: null,
  sort: null,
  group: null,
  columnMeta: {},
  options: {},
  createdBy: 'usrC',
  createdTime: '2026-11-25T00:00:00.000Z',
  lastModifiedTime: '2026-11-25T00:00:00.000Z',
};

describe('schema items', () => {
  it('a field item keeps the field and its order number', () => {
    const item = fieldItem('tblT', field, 3);
    expect(isFieldItem(item) && !isViewItem(item)).toBe(true);
    expect(fieldEntryOf(item)).toEqual({ field, order: 3 });
  });

  it('a field stored before dbFieldType was kept reads back with it', () => {
    const { dbFieldType: _, ...older } = field;
    expect(fieldEntryOf(fieldItem('tblT', older as Field, 3))).toEqual({ field, order: 3 });
    const count = { ...older, type: 'autoNumber', cellValueType: 'number' } as Field;
    expect(fieldEntryOf(fieldItem('tblT', count, 1)).field.dbFieldType).toBe('INTEGER');
  });

  it('a view item keeps the view; its id reads from a projected item too', () => {
    const item = viewItem('tblT', view);
    expect(isViewItem(item)).toBe(true);
    expect(viewOf(item)).toEqual(view);
    expect(viewIdOf({ pk: item.pk, sk: item.sk, view: { id: 'viwB' } })).toBe('viwB');
  });

  it('a dependent item reads back as written, with or without a second link', () => {
    const near: Dependent = { tableId: 'tblX', fieldId: 'fldY', linkFieldId: 'fldL', inputs: ['fldA'] };
    const far: Dependent = { ...near, via: { tableId: 'tblM', linkFieldId: 'fldM' } };
    for (const d of [near, far]) {
      const item = dependentItem('tblT', d);
      expect(isDependentItem(item)).toBe(true);
      expect(dependentOf(item)).toEqual(d);
    }
    // an attribute of the wrong type reads as absent, never as the text "undefined"
    expect(dependentOf({ pk: 'p', sk: 's', type: 'dependent', inputs: [1] })).toEqual({
      tableId: '',
      fieldId: '',
      linkFieldId: '',
      inputs: [],
    });
  });

  it('the plain puts write the item whatever is stored: no condition', () => {
    expect(putFieldOp('tblT', field, 3)).toEqual({ put: fieldItem('tblT', field, 3) });
    expect(putViewOp('tblT', view)).toEqual({ put: viewItem('tblT', view) });
    const d: Dependent = { tableId: 'tblX', fieldId: 'fldY', linkFieldId: 'fldL', inputs: ['fldA'] };
    expect(putDependentOp('tblT', d)).toEqual({
      put: {
        pk: 'TABLE#tblT',
        sk: 'DEP#tblX#fldY#fldL',
        type: 'dependent',
        ...d,
      },
    });
    expect(putDependentOp('tblT', d)).toEqual({ put: dependentItem('tblT', d) });
  });
});
