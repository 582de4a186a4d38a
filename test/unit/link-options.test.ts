import { describe, expect, it } from 'vitest';
import { isMultipleRelationship, linkOptionsOf } from '#shared/fields/link-options.ts';

describe('link options as stored', () => {
  it('reads every option with its type, and only the options it knows', () => {
    const stored = {
      relationship: 'manyOne',
      foreignTableId: 'tblB',
      isOneWay: false,
      symmetricFieldId: 'fldS',
      lookupFieldId: 'fldP',
      filterByViewId: 'viwV',
      visibleFieldIds: ['fldP', 'fldQ'],
      filter: { conjunction: 'and', filterSet: [] },
      fkHostTableName: 'Orders',
      selfKeyName: '__id',
      foreignKeyName: '__fk_fldL',
    };
    expect(linkOptionsOf({ ...stored, dbTableName: 'ignored' })).toEqual(stored);
  });

  it('reads a mistyped option as absent, never as the text "undefined"', () => {
    expect(
      linkOptionsOf({
        relationship: 'sideways',
        foreignTableId: 7,
        symmetricFieldId: null,
        visibleFieldIds: ['fldA', 3],
        isOneWay: 'yes',
      }),
    ).toEqual({ relationship: 'manyMany', foreignTableId: '', visibleFieldIds: ['fldA'] });
  });

  it('the relationships whose cells hold lists', () => {
    expect(['oneOne', 'oneMany', 'manyOne', 'manyMany'].filter(isMultipleRelationship)).toEqual([
      'oneMany',
      'manyMany',
    ]);
  });
});
