import { describe, expect, it } from 'vitest';
import {
  attributed,
  type CaptureFacts,
  draftsOf,
  removalOf,
  type StreamChange,
} from '#shared/changes/capture.ts';

/** Issue 28: a stream record (an item before and after a write) → the change-log drafts. */

const T = 'tblAAAAAAAAAAAAAAAA';
const R = 'recAAAAAAAAAAAAAAAA';
const B = 'bseAAAAAAAAAAAAAAAA';
const AT = '2026-11-28T10:00:00.000Z';
const ADA = { id: 'usrADA0000000000000', title: 'Ada', email: 'ada@example.test' };
const FACTS: CaptureFacts = { baseId: B, computedFields: new Set(['fldFORMULA00000000']) };

const record = (cells: Record<string, unknown>, envelope: Record<string, unknown> = {}) => ({
  pk: `RECORDS#${T}`,
  sk: R,
  type: 'record',
  id: R,
  autoNumber: 1,
  createdTime: AT,
  lastModifiedTime: AT,
  cb: ADA,
  mb: ADA,
  version: 1,
  ...envelope,
  ...cells,
});
const change = (kind: StreamChange['kind'], oldImage?: object, newImage?: object): StreamChange => ({
  eventId: 'ev1',
  kind,
  at: AT,
  ...(oldImage ? { oldImage: oldImage as Record<string, unknown> } : {}),
  ...(newImage ? { newImage: newImage as Record<string, unknown> } : {}),
});

/** A cell of every kind of field, as record items store them. */
const CELLS: [string, unknown][] = [
  ['singleLineText', 'Bolt'],
  ['longText', 'line 1\nline 2'],
  ['number', 12.5],
  ['checkbox', true],
  ['rating', 4],
  ['singleSelect', 'light'],
  ['multipleSelect', ['a', 'b']],
  ['date', '2026-11-28T00:00:00.000Z'],
  ['link', [{ id: 'recBBBBBBBBBBBBBBBB', title: 'Other' }]],
  ['user', { id: ADA.id, title: 'Ada', email: ADA.email }],
  ['attachment', [{ id: 'act1', name: 'a.png', token: 't', size: 3, mimetype: 'image/png', path: 'p' }]],
];

describe('records', () => {
  it.each(CELLS)('a %s cell is carried as stored on create, update and delete', (_, cell) => {
    const created = draftsOf(change('INSERT', undefined, record({ fldX00000000000000: cell })), FACTS);
    const updated = draftsOf(
      change('MODIFY', record({ fldX00000000000000: cell }), record({}, { version: 2 })),
      FACTS,
    );
    const deleted = draftsOf(change('REMOVE', record({ fldX00000000000000: cell })), FACTS);

    expect(created).toEqual([
      {
        sourceId: 'ev1#0',
        type: 'record.created',
        baseId: B,
        tableId: T,
        recordId: R,
        actor: { id: ADA.id, name: 'Ada' },
        occurredAt: AT,
        txId: 'ev1',
        after: { fldX00000000000000: cell },
      },
    ]);
    expect(updated).toMatchObject([
      { type: 'record.updated', before: { fldX00000000000000: cell }, after: {} },
    ]);
    expect(deleted).toMatchObject([
      { type: 'record.deleted', actor: { id: 'system' }, txId: 'ev1', before: { fldX00000000000000: cell } },
    ]);
  });

  it('an update carries only the cells that changed; the request id stamp is the txId', () => {
    const before = record({ fldA00000000000000: 'x', fldB00000000000000: [1, 2] });
    const after = record(
      { fldA00000000000000: 'x', fldB00000000000000: [1, 3] },
      { version: 2, tx: 'req-1' },
    );

    expect(draftsOf(change('MODIFY', before, after), FACTS)).toEqual([
      {
        sourceId: 'ev1#0',
        type: 'record.updated',
        baseId: B,
        tableId: T,
        recordId: R,
        actor: { id: ADA.id, name: 'Ada' },
        occurredAt: AT,
        txId: 'req-1',
        before: { fldB00000000000000: [1, 2] },
        after: { fldB00000000000000: [1, 3] },
      },
    ]);
  });

  it("a computed field's change is a second entry marked computed, in the same request", () => {
    const before = record({ fldA00000000000000: 1, fldFORMULA00000000: 2 });
    const after = record({ fldA00000000000000: 5, fldFORMULA00000000: 10 }, { tx: 'req-2' });

    const drafts = draftsOf(change('MODIFY', before, after), FACTS);

    expect(drafts.map((d) => [d.sourceId, d.computed, d.txId, d.after])).toEqual([
      ['ev1#0', undefined, 'req-2', { fldA00000000000000: 5 }],
      ['ev1#1', true, 'req-2', { fldFORMULA00000000: 10 }],
    ]);
  });

  it('a record written by propagation only (txp) is computed whole', () => {
    const before = record({ fldLINK00000000000: [{ id: 'r1', title: 'a' }] });
    const after = record({}, { tx: 'req-3', txp: true });

    expect(draftsOf(change('MODIFY', before, after), FACTS)).toMatchObject([
      {
        type: 'record.updated',
        computed: true,
        txId: 'req-3',
        before: { fldLINK00000000000: [{ id: 'r1', title: 'a' }] },
        after: {},
      },
    ]);
  });

  it('a write of the envelope alone (a manual order, a version) is no change', () => {
    const before = record({ fldA00000000000000: 1 });
    const after = record(
      { fldA00000000000000: 1 },
      { version: 9, ord: { viwA: 'a0' }, lastModifiedTime: 'later' },
    );

    expect(draftsOf(change('MODIFY', before, after), FACTS)).toEqual([]);
  });

  it('a removal is the system’s until the processor joins its deletion note; in a table in the trash (its purge) it is nothing', () => {
    const gone = change('REMOVE', record({ fldA00000000000000: 'last' }));

    expect(draftsOf(gone, FACTS)).toEqual([
      expect.objectContaining({
        type: 'record.deleted',
        actor: { id: 'system' },
        txId: 'ev1',
        before: { fldA00000000000000: 'last' },
      }),
    ]);
    expect(draftsOf(gone, { ...FACTS, trashed: true })).toEqual([]);
  });

  it('cells equal but for the order of a map’s keys are no change', () => {
    const before = record({ fldU00000000000000: { id: 'u', title: 'T', email: 'e' } });
    const after = record({ fldU00000000000000: { email: 'e', title: 'T', id: 'u' } });
    expect(draftsOf(change('MODIFY', before, after), FACTS)).toEqual([]);
  });
});

describe('schema items', () => {
  const table = (extra: Record<string, unknown> = {}) => ({
    pk: `TABLE#${T}`,
    sk: 'TABLE',
    type: 'table',
    id: T,
    name: 'Parts',
    baseId: B,
    createdBy: ADA.id,
    autoNumber: 3,
    schemaVersion: 1,
    ...extra,
  });
  const field = (options: Record<string, unknown>) => ({
    pk: `TABLE#${T}`,
    sk: 'FIELD#fldA00000000000000',
    type: 'field',
    order: 1,
    field: { id: 'fldA00000000000000', name: 'A', type: 'number', options },
  });

  it.each([
    ['created', change('INSERT', undefined, table()), 'table.created', ADA.id],
    ['renamed', change('MODIFY', table(), table({ name: 'Bolts' })), 'table.updated', 'system'],
    [
      'trashed',
      change('MODIFY', table(), table({ deletedTime: AT, deletedBy: 'usrBOB0000000000000' })),
      'table.deleted',
      'usrBOB0000000000000',
    ],
    ['restored', change('MODIFY', table({ deletedTime: AT }), table()), 'table.created', 'system'],
    ['removed for good without the trash', change('REMOVE', table()), 'table.deleted', 'system'],
  ])('a table %s is %s', (_, c, type, actor) => {
    expect(draftsOf(c, FACTS)).toMatchObject([{ type, tableId: T, baseId: B, actor: { id: actor } }]);
  });

  it('a table whose counters or schema version alone move, or that is purged from the trash, gives nothing', () => {
    expect(draftsOf(change('MODIFY', table(), table({ autoNumber: 9, schemaVersion: 4 })), FACTS)).toEqual(
      [],
    );
    expect(draftsOf(change('REMOVE', table({ deletedTime: AT })), FACTS)).toEqual([]);
  });

  it('a field created, changed and deleted, with the field before and after', () => {
    const a = field({ precision: 2 });
    const b = field({ precision: 0 });

    expect(draftsOf(change('INSERT', undefined, a), FACTS)).toMatchObject([
      { type: 'field.created', fieldId: 'fldA00000000000000', after: a.field },
    ]);
    expect(draftsOf(change('MODIFY', a, b), FACTS)).toMatchObject([
      { type: 'field.updated', before: a.field, after: b.field },
    ]);
    expect(draftsOf(change('MODIFY', a, { ...a, order: 5 }), FACTS)).toEqual([]);
    expect(draftsOf(change('REMOVE', b), FACTS)).toMatchObject([{ type: 'field.deleted', before: b.field }]);
  });

  it('a view changed is view.updated with its id', () => {
    const v = (name: string) => ({
      pk: `TABLE#${T}`,
      sk: 'VIEW#viwA',
      type: 'view',
      view: { id: 'viwA', name },
    });
    expect(draftsOf(change('MODIFY', v('a'), v('b')), FACTS)).toMatchObject([
      { type: 'view.updated', viewId: 'viwA', before: { name: 'a' }, after: { name: 'b' } },
    ]);
  });
});

describe("an entry's time (hardening item 10): the write's own, to the millisecond", () => {
  // the stream's time: DynamoDB Local rounds it to the minute, the cloud to the second
  const STREAM = AT;
  const WRITE = '2026-11-28T10:00:41.123Z';
  const EARLIER = '2026-11-28T09:59:12.456Z';
  const schemaItem = (kind: 'table' | 'field' | 'view', extra: Record<string, unknown> = {}) =>
    kind === 'table'
      ? { pk: `TABLE#${T}`, sk: 'TABLE', type: 'table', id: T, name: 'Parts', baseId: B, ...extra }
      : kind === 'field'
        ? {
            pk: `TABLE#${T}`,
            sk: 'FIELD#fldA00000000000000',
            type: 'field',
            field: { id: 'fldA00000000000000', name: 'A', type: 'number' },
            ...extra,
          }
        : { pk: `TABLE#${T}`, sk: 'VIEW#viwA', type: 'view', view: { id: 'viwA', name: 'Grid' }, ...extra };
  const times = (c: StreamChange, facts: CaptureFacts = FACTS) => draftsOf(c, facts).map((d) => d.occurredAt);

  it("a caller's record write: its lastModifiedTime, for the caller's entry and for its computed one", () => {
    const before = record({ fldA00000000000000: 1, fldFORMULA00000000: 2 });
    const after = record({ fldA00000000000000: 5, fldFORMULA00000000: 10 }, { lastModifiedTime: WRITE });

    expect(times(change('MODIFY', before, after))).toEqual([WRITE, WRITE]);
    expect(times(change('INSERT', undefined, after))).toEqual([WRITE]);
  });

  it('a record written by propagation alone (txp): the `at` its write stamped, not the edit time it leaves', () => {
    const before = record({ fldA00000000000000: 1 });
    const after = record({ fldA00000000000000: 2 }, { lastModifiedTime: EARLIER, txp: true, at: WRITE });

    expect(times(change('MODIFY', before, after))).toEqual([WRITE]);
  });

  it.each([
    ['table created', change('INSERT', undefined, schemaItem('table', { at: WRITE }))],
    [
      'table renamed',
      change(
        'MODIFY',
        schemaItem('table', { at: EARLIER }),
        schemaItem('table', { name: 'Bolts', at: WRITE }),
      ),
    ],
    [
      'table moved to the trash',
      change('MODIFY', schemaItem('table'), schemaItem('table', { deletedTime: EARLIER, at: WRITE })),
    ],
    [
      'table restored',
      change('MODIFY', schemaItem('table', { deletedTime: EARLIER }), schemaItem('table', { at: WRITE })),
    ],
    ['field created', change('INSERT', undefined, schemaItem('field', { at: WRITE }))],
    [
      'field changed',
      change(
        'MODIFY',
        schemaItem('field', { at: EARLIER }),
        schemaItem('field', { field: { id: 'fldA00000000000000', name: 'B', type: 'number' }, at: WRITE }),
      ),
    ],
    ['view created', change('INSERT', undefined, schemaItem('view', { at: WRITE }))],
    [
      'view changed',
      change(
        'MODIFY',
        schemaItem('view'),
        schemaItem('view', { view: { id: 'viwA', name: 'Renamed' }, at: WRITE }),
      ),
    ],
  ])('a %s: the `at` its write stamped', (_, c) => {
    expect(times(c)).toEqual([WRITE]);
  });

  it("a removal: the stream's until the processor joins it with its deletion note, whose time it then takes", () => {
    const removed = draftsOf(
      change('REMOVE', record({ fldA00000000000000: 1 }, { lastModifiedTime: EARLIER })),
      FACTS,
    );
    const fieldRemoved = draftsOf(change('REMOVE', schemaItem('field', { at: EARLIER })), FACTS);
    const where = { baseId: B, tableId: T, itemId: R };

    expect([...removed, ...fieldRemoved].map((d) => d.occurredAt)).toEqual([STREAM, STREAM]);
    const draft = removed[0] as (typeof removed)[number];
    expect(attributed(where, removalOf(draft), { tx: 'req', by: 'usr', at: WRITE }).occurredAt).toBe(WRITE);
    // a note written before notes had a time, or none at all: the removal's stream time
    expect(attributed(where, removalOf(draft), { tx: 'req' }).occurredAt).toBe(STREAM);
    expect(attributed(where, removalOf(draft), undefined).occurredAt).toBe(STREAM);
  });

  it("an item that carries no time of the write (written outside a request, or before stamps had one): the stream's", () => {
    expect(times(change('INSERT', undefined, schemaItem('field')))).toEqual([STREAM]);
    expect(times(change('MODIFY', schemaItem('table'), schemaItem('table', { name: 'Bolts' })))).toEqual([
      STREAM,
    ]);
    expect(
      times(
        change('MODIFY', record({ fldA00000000000000: 1 }), record({ fldA00000000000000: 2 }, { txp: true })),
      ),
    ).toEqual([STREAM]);
  });

  it("a time older than the one the write replaced (an undo putting an item back as read) is not the write's: the stream's", () => {
    const undoneField = change(
      'MODIFY',
      schemaItem('field', { field: { id: 'fldA00000000000000', name: 'New', type: 'number' }, at: WRITE }),
      schemaItem('field', { at: EARLIER }),
    );
    const undoneRecord = change(
      'MODIFY',
      record({ fldA00000000000000: 2 }, { lastModifiedTime: WRITE }),
      record({ fldA00000000000000: 1 }, { lastModifiedTime: EARLIER }),
    );

    expect(times(undoneField)).toEqual([STREAM]);
    expect(times(undoneRecord)).toEqual([STREAM]);
  });
});

describe('items that are not captured', () => {
  it.each([
    ['a default-order entry', { pk: `RECNUM#${T}`, sk: '00000001', type: 'recordNumber' }],
    ['a record count shard', { pk: `TABLE#${T}`, sk: 'COUNT#03', type: 'recordCount', n: 1 }],
    ['a data version shard', { pk: `TABLE#${T}`, sk: 'DVER#03', v: 4 }],
    ['a manual order entry', { pk: 'VORDER#viwA', sk: 'a0#rec', type: 'viewOrder' }],
    ['a dependent', { pk: `TABLE#${T}`, sk: 'DEP#tblB#fld#fld', type: 'dependent' }],
    ['a journal entry', { pk: 'TXN#x', sk: '1', type: 'journal' }],
    ['a change-log entry itself', { pk: `LOG#${B}`, sk: 'SEQ#000000000001', type: 'changeEntry' }],
  ])('%s gives nothing', (_, item) => {
    expect(draftsOf(change('INSERT', undefined, item), FACTS)).toEqual([]);
    expect(draftsOf(change('REMOVE', item), FACTS)).toEqual([]);
  });

  it('an item of a table whose base is no longer known gives nothing', () => {
    expect(
      draftsOf(change('INSERT', undefined, record({ fldA00000000000000: 1 })), {
        ...FACTS,
        baseId: undefined,
      }),
    ).toEqual([]);
  });
});

describe('history items (data-flow.md 2)', () => {
  it("one per field of a caller's update, with the field's meta; none for creates, deletes, computed changes or fields gone", async () => {
    const { historyOf } = await import('#shared/changes/processor.ts');
    const meta = { name: 'A', type: 'number', cellValueType: 'number', options: {} };
    const facts = new Map([[T, { fields: new Map([['fldA00000000000000', meta]]) }]]);
    const drafts = [
      ...draftsOf(
        change(
          'MODIFY',
          record({ fldA00000000000000: 1, fldGONE0000000000: 1 }),
          record({ fldA00000000000000: 2 }),
        ),
        FACTS,
      ),
      ...draftsOf(change('INSERT', undefined, record({ fldA00000000000000: 1 })), FACTS),
      ...draftsOf(
        change('MODIFY', record({ fldA00000000000000: 1 }), record({ fldA00000000000000: 5 }, { txp: true })),
        FACTS,
      ),
    ];

    expect(historyOf(drafts, facts)).toEqual([
      {
        id: expect.stringMatching(/^evt/),
        tableId: T,
        recordId: R,
        fieldId: 'fldA00000000000000',
        before: { meta, data: 1 },
        after: { meta, data: 2 },
        createdTime: AT,
        createdBy: ADA.id,
      },
    ]);
  });
});
