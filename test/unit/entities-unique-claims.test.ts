import { describe, expect, it } from 'vitest';
import { claimHolder, claimKey, releaseClaim, takeClaim } from '#shared/entities/unique-claims.ts';

describe('unique claims', () => {
  const key = claimKey('tblA', 'fldB', 'ada');

  it("live in the table's claim partition, one per field and value", () => {
    expect(key).toEqual({ pk: 'UNIQ#tblA', sk: 'fldB#ada' });
  });

  it("are taken only while free or already the record's, and undone by a delete", () => {
    expect(takeClaim(key, 'recC')).toEqual({
      op: {
        put: { ...key, type: 'uniqueValue', recordId: 'recC' },
        condition: 'attribute_not_exists(pk) OR recordId = :r',
        values: { ':r': 'recC' },
      },
      undo: { delete: key },
    });
  });

  it('are released only by their holder, and undone by taking them back', () => {
    const { op, undo } = releaseClaim(key, 'recC');
    expect(op).toMatchObject({ delete: key, values: { ':r': 'recC' } });
    expect(undo).toEqual({ put: { ...key, type: 'uniqueValue', recordId: 'recC' } });
  });

  it('name their holder, or none', () => {
    expect(claimHolder({ ...key, recordId: 'recC' })).toBe('recC');
    expect(claimHolder(undefined)).toBeUndefined();
    expect(claimHolder({ ...key })).toBeUndefined();
  });
});
