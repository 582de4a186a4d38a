import { describe, expect, it } from 'vitest';
import { type BaseItem, baseOf, baseRefOf, toBaseItem, toBaseRefItem } from '#shared/entities/bases.ts';

const base: BaseItem = {
  id: 'bseAAAAAAAAAAAAAAAA',
  name: 'Launch',
  icon: null,
  spaceId: 'spcAAAAAAAAAAAAAAAA',
  createdTime: '2026-11-01T00:00:00.000Z',
  createdBy: 'usrAAAAAAAAAAAAAAAA',
};

describe('base entity', () => {
  it('reads back what it writes, with its later marks', () => {
    expect(baseOf(toBaseItem(base))).toEqual(base);
    const marked = {
      ...base,
      lastModifiedTime: 'm',
      deletedTime: 'd',
      deletedBy: 'u',
      trashId: 't',
      purgeTime: 'p',
    };
    expect(baseOf(toBaseItem(marked))).toEqual(marked);
  });

  it('writes the items as stored today', () => {
    expect(toBaseItem(base)).toEqual({ pk: 'BASE#bseAAAAAAAAAAAAAAAA', sk: 'BASE', type: 'base', ...base });
    expect(toBaseRefItem(base)).toEqual({
      pk: 'SPACE#spcAAAAAAAAAAAAAAAA',
      sk: 'BASE#bseAAAAAAAAAAAAAAAA',
      type: 'spaceBase',
      baseId: base.id,
      name: 'Launch',
      icon: null,
      createdTime: base.createdTime,
    });
  });

  it("reads a space's reference, trashed or not; a missing icon is null", () => {
    const { icon: _icon, ...ref } = toBaseRefItem(base);
    expect(baseRefOf(ref)).toEqual({
      baseId: base.id,
      name: 'Launch',
      icon: null,
      createdTime: base.createdTime,
    });
    expect(baseRefOf({ ...ref, deletedTime: 'd' })).toMatchObject({ deletedTime: 'd' });
  });
});
