import { describe, expect, it } from 'vitest';
import { withoutRepeatedDeletes } from '#shared/db/commit.ts';
import { putRecordCountBaseOp } from '#shared/entities/record-counts.ts';
import {
  bumpSchemaVersionOp,
  createTableOps,
  isSchemaVersionBump,
  oneBumpPerTable,
  type Table,
  tableOf,
  tableRefOf,
  toTableItem,
  toTableRefItem,
  touchSchemaVersionOp,
  updateTableOps,
} from '#shared/entities/tables.ts';

const table: Table = {
  id: 'tblAAAAAAAAAAAAAAAA',
  name: 'Tasks',
  dbTableName: 'Tasks',
  description: null,
  icon: '📋',
  baseId: 'bseAAAAAAAAAAAAAAAA',
  spaceId: 'spcAAAAAAAAAAAAAAAA',
  order: 2,
  schemaVersion: 7,
  autoNumber: 41,
  createdTime: '2026-11-01T00:00:00.000Z',
  createdBy: 'usrAAAAAAAAAAAAAAAA',
  lastModifiedTime: '2026-11-02T00:00:00.000Z',
};

describe('table entity', () => {
  it('reads back what it writes, with its trash marks', () => {
    expect(tableOf(toTableItem(table))).toEqual(table);
    const trashed = { ...table, deletedTime: '2026-11-03T00:00:00.000Z', deletedBy: 'usrB', trashId: 'trsC' };
    expect(tableOf(toTableItem(trashed))).toEqual(trashed);
  });

  it('writes the item as stored today: keys, type and attributes', () => {
    expect(toTableItem(table)).toEqual({
      pk: 'TABLE#tblAAAAAAAAAAAAAAAA',
      sk: 'TABLE',
      type: 'table',
      ...table,
    });
    expect(toTableRefItem(table)).toEqual({
      pk: 'BASE#bseAAAAAAAAAAAAAAAA',
      sk: 'TABLE#tblAAAAAAAAAAAAAAAA',
      type: 'baseTable',
      tableId: table.id,
      name: 'Tasks',
      icon: '📋',
      order: 2,
    });
  });

  it('reads an item written before schemaVersion, autoNumber, description or icon existed', () => {
    const { schemaVersion: _v, autoNumber: _n, description: _d, icon: _i, ...older } = table;
    expect(tableOf({ pk: 'TABLE#x', sk: 'TABLE', type: 'table', ...older })).toEqual({
      ...older,
      schemaVersion: 0,
      autoNumber: 0,
      description: null,
      icon: null,
    });
  });

  it('reads a base reference, trashed or not', () => {
    expect(tableRefOf(toTableRefItem(table))).toEqual({ tableId: table.id, name: 'Tasks', order: 2 });
    expect(tableRefOf({ ...toTableRefItem(table), deletedTime: 't' })).toMatchObject({ deletedTime: 't' });
  });

  it('creates a table: its item (only when its id is free), its base reference, its count at 0', () => {
    expect(createTableOps(table)).toEqual([
      { put: toTableItem(table), condition: 'attribute_not_exists(pk)' },
      { put: toTableRefItem(table) },
    ]);
    expect(putRecordCountBaseOp(table.id)).toEqual({
      put: { pk: 'TABLE#tblAAAAAAAAAAAAAAAA', sk: 'COUNT#base', type: 'recordCount', n: 0 },
    });
  });

  it('tells a schema version bump from any other update of the table', () => {
    expect(isSchemaVersionBump(bumpSchemaVersionOp(table.id, 7))).toBe(true);
    expect(isSchemaVersionBump(touchSchemaVersionOp(table.id))).toBe(false);
    expect(updateTableOps(table.baseId, table.id, { name: 'x' }).some(isSchemaVersionBump)).toBe(false);
    expect(isSchemaVersionBump(createTableOps(table)[0])).toBe(false);
  });

  it('keeps one schema version bump per table, the first, and every other operation', () => {
    const other = { ...table, id: 'tblBBBBBBBBBBBBBBBB' };
    const touch = touchSchemaVersionOp(table.id);
    const ops = [
      bumpSchemaVersionOp(table.id, 7),
      touch,
      bumpSchemaVersionOp(other.id, 2),
      bumpSchemaVersionOp(table.id, 8),
      touch,
    ];
    expect(oneBumpPerTable(ops)).toEqual([ops[0], touch, ops[2], touch]);
  });

  it('keeps the first delete of an item and drops its repeats', () => {
    const a = { delete: { pk: 'TABLE#tblA', sk: 'FIELD#fldA' } };
    const b = { delete: { pk: 'TABLE#tblA', sk: 'FIELD#fldB' }, condition: 'attribute_exists(pk)' };
    const put = putRecordCountBaseOp(table.id);
    expect(withoutRepeatedDeletes([a, put, b, { ...a }, put])).toEqual([a, put, b, put]);
  });
});
