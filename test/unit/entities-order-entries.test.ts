import { describe, expect, it } from 'vitest';
import { keys } from '#shared/db/keys.ts';
import { placeOfNumberEntry, placeOfViewEntry } from '#shared/entities/order-entries.ts';
import { defaultOrderKey } from '#shared/ordering/order-keys.ts';

describe('order entries', () => {
  it('a manual-order entry holds its record at its order key', () => {
    const entry = { ...keys.viewOrderEntry('viwA', 'a0V', 'recB'), type: 'viewOrder', recordId: 'recB' };
    expect(placeOfViewEntry(entry)).toEqual({ id: 'recB', key: 'a0V' });
  });

  it('a default-order entry holds its record at the default key of its autoNumber', () => {
    const entry = { ...keys.recordNumber('tblA', 42), recordId: 'recC' };
    expect(placeOfNumberEntry(entry)).toEqual({ id: 'recC', key: defaultOrderKey(42) });
  });
});
