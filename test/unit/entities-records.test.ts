import { describe, expect, it } from 'vitest';
import { keys } from '#shared/db/keys.ts';
import {
  newRecordItem,
  orderGuardOf,
  propagatedRecordOp,
  putRecordOp,
  recordNumberItem,
  recordOf,
  recordOrderOf,
  recordPartOf,
  storedCell,
  updateCellsOp,
  withCells,
  withOrderGuard,
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

describe('record writes built as data', () => {
  const record = { id: 'recA', version: 4 };

  it('writes only the written cells, empties them by removal, and moves the envelope on', () => {
    const op = updateCellsOp(
      'tblA',
      record,
      {
        cells: new Map([
          ['fldName', 'Ada'],
          ['fldGone', undefined],
        ]),
        by: user,
        at: now,
      },
      false,
    );
    expect(op).toEqual({
      update: {
        key: keys.record('tblA', 'recA'),
        update: 'SET version = version + :one, lastModifiedTime = :now, mb = :mb, #f0 = :f0 REMOVE txp, #f1',
        condition: 'attribute_exists(pk)',
        names: { '#f0': 'fldName', '#f1': 'fldGone' },
        values: { ':one': 1, ':now': now, ':mb': user, ':f0': 'Ada' },
      },
    });
  });

  it('at the version read: the condition names it; else only the record being there', () => {
    const at = updateCellsOp('tblA', record, { cells: new Map(), by: user, at: now }, true);
    expect(at).toMatchObject({ update: { condition: 'version = :v', values: { ':v': 4 } } });
  });

  it('sets paths into an ord map that is there, and the whole map where none is', () => {
    const ord = { viwA: 'k1', viwB: 'k2' };
    const into = updateCellsOp(
      'tblA',
      { ...record, ord: { viwA: 'k0' } },
      { cells: new Map(), by: user, at: now, ord },
      false,
    );
    expect(into).toMatchObject({
      update: {
        update:
          'SET version = version + :one, lastModifiedTime = :now, mb = :mb, ord.#o0 = :o0, ord.#o1 = :o1 REMOVE txp',
        names: { '#o0': 'viwA', '#o1': 'viwB' },
      },
    });
    const whole = updateCellsOp('tblA', record, { cells: new Map(), by: user, at: now, ord }, false);
    expect(whole).toMatchObject({
      update: {
        update: 'SET version = version + :one, lastModifiedTime = :now, mb = :mb, ord = :ord REMOVE txp',
        names: undefined,
        values: { ':ord': ord },
      },
    });
  });

  it('a placement guards a record by its key as read, added to the update it joins', () => {
    expect(orderGuardOf({}, 'viwA')).toEqual({
      condition: 'attribute_not_exists(ord)',
      names: {},
      values: {},
    });
    expect(orderGuardOf({ ord: { viwB: 'k' } }, 'viwA').condition).toBe('attribute_not_exists(ord.#pv)');
    expect(orderGuardOf({ ord: { viwA: 'k' } }, 'viwA')).toEqual({
      condition: 'ord.#pv = :pv',
      names: { '#pv': 'viwA' },
      values: { ':pv': 'k' },
    });
    const update = updateCellsOp('tblA', record, { cells: new Map(), by: user, at: now }, true);
    expect(withOrderGuard(update, orderGuardOf({ ord: { viwA: 'k' } }, 'viwA'))).toMatchObject({
      update: {
        condition: '(version = :v) AND ord.#pv = :pv',
        names: { '#pv': 'viwA' },
        values: { ':v': 4, ':pv': 'k' },
      },
    });
    expect(withOrderGuard(putRecordOp(recordOf({ id: 'recA' })), orderGuardOf({}, 'viwA'))).toBeUndefined();
  });

  it("a record written by propagation: the next version, marked, stamped with the write's time, at the version read", () => {
    const original = recordOf({ ...keys.record('tblA', 'recA'), id: 'recA', version: 2 });
    const op = propagatedRecordOp({ ...original, fldLink: ['recB'] }, original, '2026-11-28T10:00:41.123Z');
    expect(op).toMatchObject({
      put: { id: 'recA', version: 3, txp: true, at: '2026-11-28T10:00:41.123Z', fldLink: ['recB'] },
      condition: 'version = :v',
      values: { ':v': 2 },
    });
  });
});
