import { describe, expect, it } from 'vitest';
import { keys } from '#shared/db/keys.ts';
import {
  newRecordItem,
  recordNumberItem,
  recordOf,
  recordOrderOf,
  recordPartOf,
  storedCell,
  withCells,
} from '#shared/entities/records.ts';

const user = { id: 'usrA', title: 'Ada', email: 'ada@example.com' };
const now = '2026-11-25T10:00:00.000Z';

describe('record items', () => {
  it('a new record holds its envelope and only its non-empty cells', () => {
    const item = newRecordItem('tblA', {
      id: 'recA',
      autoNumber: 7,
      cells: new Map<string, unknown>([
        ['fldName', 'Ada'],
        ['fldEmpty', ''],
        ['fldNone', undefined],
        ['fldList', []],
        ['fldNum', 0],
      ]) as Map<string, string | number | undefined>,
      user,
      now,
    });
    expect(item).toEqual({
      ...keys.record('tblA', 'recA'),
      type: 'record',
      id: 'recA',
      autoNumber: 7,
      createdTime: now,
      lastModifiedTime: now,
      cb: user,
      mb: user,
      version: 1,
      fldName: 'Ada',
      fldNum: 0,
    });
  });

  it('reads a sound item as itself (no copy: records are read by the thousand)', () => {
    const item = newRecordItem('tblA', { id: 'recA', autoNumber: 1, cells: new Map(), user, now });
    expect(recordOf({ ...item, ord: { viwA: 'a0' } })).toMatchObject({ ord: { viwA: 'a0' } });
    expect(recordOf(item)).toBe(item);
  });

  it('reads a missing or mistyped envelope attribute as its default, keeping the cells', () => {
    const record = recordOf({
      pk: 'RECORDS#tblA',
      sk: 'recA',
      id: 'recA',
      fldA: 'x',
      version: '3',
      ord: 'bad',
    });
    expect(record).toMatchObject({
      id: 'recA',
      autoNumber: 0,
      createdTime: '',
      cb: { id: '', title: '', email: '' },
      version: 1,
      fldA: 'x',
    });
    expect(record.ord).toBeUndefined();
  });

  it('a projected read keeps what was read; its order attributes read with defaults', () => {
    const part = recordPartOf({ id: 'recA', fldA: 'x' });
    expect(part).toEqual({ id: 'recA', fldA: 'x' });
    expect(recordPartOf({ fldA: 'x' }).id).toBe('');
    expect(recordOrderOf(part)).toEqual({ id: 'recA', autoNumber: 0 });
    expect(recordOrderOf({ id: 'recB', autoNumber: 4, ord: { viwA: 'a1' } })).toEqual({
      id: 'recB',
      autoNumber: 4,
      ord: { viwA: 'a1' },
    });
  });

  it('a stored cell is undefined when empty', () => {
    expect(storedCell({ id: 'recA', fldA: '' }, 'fldA')).toBeUndefined();
    expect(storedCell({ id: 'recA', fldA: [] }, 'fldA')).toBeUndefined();
    expect(storedCell({ id: 'recA', fldA: false }, 'fldA')).toBe(false);
  });

  it('the record after a write: written cells set, emptied cells gone, the original untouched', () => {
    const before = newRecordItem('tblA', {
      id: 'recA',
      autoNumber: 1,
      cells: new Map([
        ['fldA', 'a'],
        ['fldB', 'b'],
      ]),
      user,
      now,
    });
    const after = withCells(
      before,
      new Map([
        ['fldA', 'A'],
        ['fldB', undefined],
      ]),
      { lastModifiedTime: 'later' },
    );
    expect(after).toMatchObject({ fldA: 'A', lastModifiedTime: 'later' });
    expect('fldB' in after).toBe(false);
    expect(before).toMatchObject({ fldA: 'a', fldB: 'b', lastModifiedTime: now });
  });

  it('a default-order entry lists the views where the record has a place of its own', () => {
    expect(recordNumberItem('tblA', 3, 'recA')).toEqual({
      ...keys.recordNumber('tblA', 3),
      type: 'recordNumber',
      recordId: 'recA',
    });
    expect(recordNumberItem('tblA', 3, 'recA', { viwA: 'a0' }).pv).toEqual(new Set(['viwA']));
  });
});
