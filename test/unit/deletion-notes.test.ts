import { describe, expect, it } from 'vitest';
import { attributed, removalOf } from '#shared/changes/capture.ts';
import {
  DELETION_NOTE,
  dataVersionOp,
  deletionNoteOf,
  deletionsBy,
  withSchemaDeletionNotes,
} from '#shared/db/data-versions.ts';
import { keys } from '#shared/db/keys.ts';
import { noteActor, withRequestScope, withStamps } from '#shared/db/request-scope.ts';
import type { ChangeDraft } from '#shared/entities/change-log.ts';
import { schemaDeletionNoteIn } from '#shared/entities/schema-items.ts';
import { deletionNoteIn } from '#shared/entities/table-versions.ts';

/** The deletion note (who deleted records, in which request) and its join with removals: pure parts. */

describe('the deletion note on a data-version increment', () => {
  it('names the deleted records with the stamps and the time of the deletion, and clears any note when it deletes nothing', () => {
    const noted = dataVersionOp('tblA', undefined, 2, [], new Map(), {
      recordIds: ['rec1', 'rec2'],
      tx: 'req',
      by: 'usr',
      at: '2026-11-28T10:00:41.123Z',
    });
    const plain = dataVersionOp('tblA', undefined, 2);

    expect(noted).toMatchObject({
      update: {
        update:
          'ADD #c0 :one SET #t = :t, #id = :id, #recordIds = :recordIds, #tx = :tx, #by = :by, #at = :at',
        names: { '#id': 'dn', '#recordIds': 'dl', '#tx': 'dtx', '#by': 'dby', '#at': 'dat' },
        values: {
          ':recordIds': ['rec1', 'rec2'],
          ':tx': 'req',
          ':by': 'usr',
          ':at': '2026-11-28T10:00:41.123Z',
          ':id': expect.any(String),
        },
      },
    });
    expect(plain).toMatchObject({
      update: { update: 'ADD #c0 :one SET #t = :t REMOVE #id, #recordIds, #tx, #by, #at' },
    });
  });

  it('outside a request (no stamps) a note still names the records, and removes the stamps it lacks', () => {
    const op = dataVersionOp('tblA', undefined, 2, [], new Map(), { recordIds: ['rec1'] });
    expect(op).toMatchObject({
      update: { update: 'ADD #c0 :one SET #t = :t, #id = :id, #recordIds = :recordIds REMOVE #tx, #by, #at' },
    });
  });

  it('each write gets a note of its own id', () => {
    const ids = new Set(
      Array.from({ length: 50 }, () => {
        const op = dataVersionOp('tblA', undefined, 1, [], new Map(), { recordIds: ['rec1'] });
        return 'update' in op ? op.update.values?.[':id'] : undefined;
      }),
    );
    expect(ids.size).toBe(50);
  });

  it('finds the records each table loses among operations (record deletes only)', () => {
    expect(
      deletionsBy([
        { delete: keys.record('tblA', 'rec1') },
        { delete: keys.record('tblB', 'rec2') },
        { delete: keys.record('tblA', 'rec3'), condition: 'version = :v' },
        { put: { ...keys.record('tblA', 'rec4'), id: 'rec4' } },
        { delete: keys.recordNumber('tblA', 7) },
      ]),
    ).toEqual(
      new Map([
        ['tblA', ['rec1', 'rec3']],
        ['tblB', ['rec2']],
      ]),
    );
  });

  it('a stream record carries a note only when the write set a new one', () => {
    const shard = { ...keys.dataVersion('tblA', '03'), type: 'dataVersion', v: 1 };
    const noted = {
      ...shard,
      v: 2,
      [DELETION_NOTE.id]: 'n1',
      [DELETION_NOTE.recordIds]: ['rec1'],
      dtx: 'req',
      dby: 'usr',
      dat: '2026-11-28T10:00:41.123Z',
    };

    expect(deletionNoteIn(shard, noted)).toEqual({
      tableId: 'tblA',
      recordIds: ['rec1'],
      tx: 'req',
      by: 'usr',
      at: '2026-11-28T10:00:41.123Z',
    });
    // a later write that kept the attributes (a note is then not new) and any other item: none
    expect(deletionNoteOf(noted, { ...noted, v: 3 })).toBeUndefined();
    expect(
      deletionNoteIn(undefined, { ...keys.record('tblA', 'rec1'), dn: 'x', dl: ['rec1'] }),
    ).toBeUndefined();
    expect(deletionNoteIn(noted, shard)).toBeUndefined();
  });
});

describe('a removal joined with its note', () => {
  const draft: ChangeDraft = {
    sourceId: 'ev9#0',
    type: 'record.deleted',
    baseId: 'bseA',
    tableId: 'tblA',
    recordId: 'rec1',
    actor: { id: 'system' },
    occurredAt: '2026-01-01T00:00:00.000Z',
    txId: 'ev9',
    before: { fldA: 1 },
  };
  const where = { baseId: 'bseA', tableId: 'tblA', itemId: 'rec1' };

  it("takes the note's user and request", () => {
    expect(attributed(where, removalOf(draft), { tx: 'req', by: 'usr' })).toEqual({
      ...draft,
      actor: { id: 'usr' },
      txId: 'req',
    });
  });

  it('without a note (or with empty stamps) is the system’s, with the stream record’s id as txId', () => {
    expect(attributed(where, removalOf(draft), undefined)).toEqual(draft);
    expect(attributed(where, removalOf(draft), {})).toEqual(draft);
  });

  it('keeps that its cells were left out', () => {
    const { before: _b, ...bare } = draft;
    expect(attributed(where, { ...removalOf(bare), cellsOmitted: true }, undefined)).toEqual({
      ...bare,
      cellsOmitted: true,
    });
  });
});

describe('the schema deletion note on the table item', () => {
  const bump = {
    update: {
      key: keys.table('tblA'),
      update: 'SET schemaVersion = :next, lastModifiedTime = :now',
      values: { ':next': 2, ':now': 'now' },
    },
  };

  it('is added to the update of the table item whose fields and views the transaction deletes', () => {
    const [del, , other, table] = withSchemaDeletionNotes(
      [
        { delete: keys.field('tblA', 'fldX') },
        { delete: keys.view('tblA', 'viwY') },
        { update: { key: keys.table('tblB'), update: 'ADD schemaVersion :one', values: { ':one': 1 } } },
        bump,
      ],
      { tx: 'req', by: 'usr', at: '2026-11-28T10:00:41.123Z' },
    );

    expect(del).toEqual({ delete: keys.field('tblA', 'fldX') });
    expect(other).toEqual({
      update: { key: keys.table('tblB'), update: 'ADD schemaVersion :one', values: { ':one': 1 } },
    });
    expect(table).toMatchObject({
      update: {
        update:
          'SET #sdn_id = :sdn_id, #sdn_ids = :sdn_ids, #sdn_tx = :sdn_tx, #sdn_by = :sdn_by, #sdn_at = :sdn_at, schemaVersion = :next, lastModifiedTime = :now',
        names: {
          '#sdn_id': 'sdn',
          '#sdn_ids': 'sdl',
          '#sdn_tx': 'sdtx',
          '#sdn_by': 'sdby',
          '#sdn_at': 'sdat',
        },
        values: {
          ':sdn_ids': ['fldX', 'viwY'],
          ':sdn_tx': 'req',
          ':sdn_by': 'usr',
          ':sdn_at': '2026-11-28T10:00:41.123Z',
          ':next': 2,
        },
      },
    });
  });

  it('an ADD-only update gains a SET clause; a transaction that deletes no field or view is left as it was', () => {
    const [, added] = withSchemaDeletionNotes(
      [
        { delete: keys.field('tblB', 'fldX') },
        { update: { key: keys.table('tblB'), update: 'ADD schemaVersion :one', values: { ':one': 1 } } },
      ],
      {},
    );
    expect(added).toMatchObject({
      update: { update: 'ADD schemaVersion :one SET #sdn_id = :sdn_id, #sdn_ids = :sdn_ids' },
    });
    expect(withSchemaDeletionNotes([bump], { tx: 'req' })).toEqual([bump]);
  });

  it("a table item's stream record carries the note only when its write set a new one", () => {
    const table = { ...keys.table('tblA'), type: 'table', id: 'tblA' };
    const noted = {
      ...table,
      sdn: 'n1',
      sdl: ['fldX'],
      sdtx: 'req',
      sdby: 'usr',
      sdat: '2026-11-28T10:00:41.123Z',
    };

    expect(schemaDeletionNoteIn(table, noted)).toEqual({
      tableId: 'tblA',
      ids: ['fldX'],
      tx: 'req',
      by: 'usr',
      at: '2026-11-28T10:00:41.123Z',
    });
    expect(schemaDeletionNoteIn(noted, { ...noted, name: 'renamed' })).toBeUndefined();
    expect(
      schemaDeletionNoteIn(undefined, { ...keys.field('tblA', 'fldX'), type: 'field', sdn: 'x', sdl: [] }),
    ).toBeUndefined();
  });
});

describe('stamps on an updated item', () => {
  it("sets the request's id and user and the time of the write, and outside a request removes stale ones", async () => {
    const from = new Date().toISOString();
    const inside = await withRequestScope(
      1000,
      async () => {
        noteActor('usr1');
        return withStamps(['a = :a'], ['b']);
      },
      'req-9',
    );
    const to = new Date().toISOString();

    expect(inside).toEqual({
      update: 'SET a = :a, #stamp_tx = :stamp_tx, #stamp_by = :stamp_by, #stamp_at = :stamp_at REMOVE b',
      names: { '#stamp_tx': 'tx', '#stamp_by': 'by', '#stamp_at': 'at' },
      values: { ':stamp_tx': 'req-9', ':stamp_by': 'usr1', ':stamp_at': expect.any(String) },
    });
    const at = inside.values[':stamp_at'] as string;
    expect(at >= from && at <= to).toBe(true);
    expect(withStamps([], ['b'])).toEqual({
      update: 'REMOVE b, #stamp_tx, #stamp_by, #stamp_at',
      names: { '#stamp_tx': 'tx', '#stamp_by': 'by', '#stamp_at': 'at' },
      values: {},
    });
  });
});
