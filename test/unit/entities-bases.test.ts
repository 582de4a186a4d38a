import { describe, expect, it } from 'vitest';
import {
  type BaseItem,
  baseOf,
  baseRefOf,
  moveBaseOp,
  stampSpaceOp,
  toBaseItem,
  toBaseRefItem,
} from '#shared/entities/bases.ts';

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
      spaceStamps: 3,
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

  it('makes a write that stamps the space conditional on the base being live there, and counts it', () => {
    expect(stampSpaceOp(base.id, base.spaceId)).toEqual({
      update: {
        key: { pk: 'BASE#bseAAAAAAAAAAAAAAAA', sk: 'BASE' },
        update: 'ADD spaceStamps :one',
        condition: 'attribute_exists(pk) AND attribute_not_exists(deletedTime) AND spaceId = :space',
        values: { ':one': 1, ':space': 'spcAAAAAAAAAAAAAAAA' },
      },
    });
  });

  it.each([
    ['never stamped', undefined, 'attribute_not_exists(spaceStamps)', {}],
    ['stamped 4 times', 4, 'spaceStamps = :stamps', { ':stamps': 4 }],
  ])('moves a base only while its stamps are as read (%s)', (_, spaceStamps, stampCondition, stampValue) => {
    const seen: BaseItem = spaceStamps === undefined ? base : { ...base, spaceStamps };
    expect(moveBaseOp(seen, 'spcBBBBBBBBBBBBBBBB', new Date('2026-11-02T00:00:00.000Z'))).toEqual({
      update: {
        key: { pk: 'BASE#bseAAAAAAAAAAAAAAAA', sk: 'BASE' },
        update: 'SET spaceId = :space, lastModifiedTime = :now',
        condition: `attribute_exists(pk) AND attribute_not_exists(deletedTime) AND spaceId = :from AND ${stampCondition}`,
        values: {
          ':space': 'spcBBBBBBBBBBBBBBBB',
          ':from': 'spcAAAAAAAAAAAAAAAA',
          ':now': '2026-11-02T00:00:00.000Z',
          ...stampValue,
        },
      },
    });
  });
});
