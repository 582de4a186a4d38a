import { describe, expect, it } from 'vitest';
import type { Item, ItemLookup } from '#shared/db/client.ts';
import { LIVE } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { withRequestScope } from '#shared/db/request-scope.ts';
import { asLoaded, keepForRequest, valueReadEarlier } from '#shared/entities/batch-read.ts';
import { markPurgedOp, markResourcePurgedOp } from '#shared/entities/jobs.ts';
import { keepRecordsForRequest, recordLookup, recordReadEarlier } from '#shared/entities/records.ts';
import { savedQueryLookup } from '#shared/entities/saved-queries.ts';
import { spaceLookup } from '#shared/entities/spaces.ts';
import { clearTrashMarkOps, trashParentsLiveChecks } from '#shared/entities/trash-items.ts';

const SPACE = 'spcAAAAAAAAAAAAAAAA';
const BASE = 'bseAAAAAAAAAAAAAAAA';
const TABLE = 'tblAAAAAAAAAAAAAAAA';

/** A Map-backed `ItemLookup`, as the client's batch read answers: `asked` keys were read. */
const lookup = (asked: readonly Key[], ...items: Item[]): ItemLookup => {
  const byKey = new Map(items.map((i) => [`${String(i.pk)}|${String(i.sk)}`, i]));
  const read = new Set(asked.map((k) => `${k.pk}|${k.sk}`));
  return {
    get: (k: Key) => byKey.get(`${k.pk}|${k.sk}`),
    requested: (k: Key) => read.has(`${k.pk}|${k.sk}`),
    size: byKey.size,
  };
};

/** A space as stored. */
const SPACE_ITEM = {
  ...keys.space(SPACE),
  id: SPACE,
  name: 'Ops',
  ownerCount: 1,
  createdTime: 't',
  createdBy: 'u',
};

describe('batch reads by typed lookups', () => {
  it('answers the domain value of a lookup found, undefined for one not stored, and what was read', () => {
    const found = spaceLookup(SPACE);
    const missing = spaceLookup('spcBBBBBBBBBBBBBBBB');
    const item = SPACE_ITEM;
    const loaded = asLoaded(lookup([found.key, missing.key], item));

    expect(loaded.valueFor(found)).toEqual({
      id: SPACE,
      name: 'Ops',
      ownerCount: 1,
      createdTime: 't',
      createdBy: 'u',
    });
    expect(loaded.valueFor(missing)).toBeUndefined();
    expect(loaded.wasRead(missing)).toBe(true);
    expect(loaded.wasRead(spaceLookup('spcCCCCCCCCCCCCCCCC'))).toBe(false);
    // the stored items stay behind it: readers above the data layer get domain values only
    expect(Object.keys(loaded).sort()).toEqual(['valueFor', 'wasRead']);
  });

  it('keeps what a batch found for the rest of the request, and nothing outside one', async () => {
    const space = spaceLookup(SPACE);
    const record = recordLookup(TABLE, 'recAAAAAAAAAAAAAAAA');
    const item = SPACE_ITEM;
    const loaded = asLoaded(lookup([space.key, record.key], item));

    await withRequestScope(1_000, async () => {
      expect(valueReadEarlier(space)).toBeUndefined();
      keepForRequest(loaded, [space, record]);
      expect(valueReadEarlier(space)?.name).toBe('Ops');
      expect(valueReadEarlier(record)).toBeUndefined();
    });
    // another request starts with nothing kept
    await withRequestScope(1_000, async () => expect(valueReadEarlier(space)).toBeUndefined());
  });

  it('keeps records read by a write for the same request, as read', async () => {
    const recordItem = {
      ...keys.record(TABLE, 'recAAAAAAAAAAAAAAAA'),
      id: 'recAAAAAAAAAAAAAAAA',
      fldTitle: 'Alpha',
    };
    await withRequestScope(1_000, async () => {
      keepRecordsForRequest(
        TABLE,
        ['recAAAAAAAAAAAAAAAA', 'recBBBBBBBBBBBBBBBB'],
        new Map([['recAAAAAAAAAAAAAAAA', recordItem]]),
      );
      expect(recordReadEarlier(TABLE, 'recAAAAAAAAAAAAAAAA')).toEqual(recordItem);
      expect(recordReadEarlier(TABLE, 'recBBBBBBBBBBBBBBBB')).toBeUndefined();
      expect(recordReadEarlier('tblBBBBBBBBBBBBBBBB', 'recAAAAAAAAAAAAAAAA')).toBeUndefined();
    });
  });

  it('wraps a plain ItemLookup (every object has a valueOf: it is not taken for a Loaded)', () => {
    const found = savedQueryLookup('qryAAAAAAAAAAAAAAAA');
    const item = { ...found.key, params: { take: '2' }, createdBy: 'usr', createdTime: 't', expiresAt: 9 };

    expect(asLoaded(lookup([found.key], item)).valueFor(found)).toEqual({
      id: 'qryAAAAAAAAAAAAAAAA',
      params: { take: '2' },
      createdBy: 'usr',
      createdTime: 't',
      expiresAt: 9,
    });
  });
});

describe('operations built apart from sending', () => {
  it('marks a space, base or table purged by kind and id as by key', () => {
    const now = new Date('2026-11-28T00:00:00.000Z');
    expect(markResourcePurgedOp('table', TABLE, 'usr', now)).toEqual(
      markPurgedOp(keys.table(TABLE), 'usr', now),
    );
    expect(markResourcePurgedOp('space', SPACE, 'usr', now)).toEqual(
      markPurgedOp(keys.space(SPACE), 'usr', now),
    );
  });

  it('restores a trashed base: its item and the space reference, while its space is live', () => {
    const entry = {
      id: 'trsAAAAAAAAAAAAAAAA',
      resourceId: BASE,
      resourceType: 'base' as const,
      deletedTime: 't',
      deletedBy: 'usr',
      spaceId: SPACE,
    };
    expect(clearTrashMarkOps(entry).map((op) => ('update' in op ? op.update.key : undefined))).toEqual([
      keys.base(BASE),
      keys.spaceBase(SPACE, BASE),
    ]);
    expect(trashParentsLiveChecks(entry)).toEqual([{ check: keys.space(SPACE), condition: LIVE }]);
  });
});
