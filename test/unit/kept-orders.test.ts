import { describe, expect, it } from 'vitest';
import type { TransactOp } from '#shared/db/client.ts';
import {
  attributesOfUpdate,
  bucketOf,
  counterOf,
  dataVersionOp,
  entryCountsBy,
  maintainedBy,
  tablesToBump,
  tablesTouched,
  tablesWritten,
  unmaintainedWrites,
  VERSION_BUCKETS,
  versionChanges,
  WHOLE,
} from '#shared/db/data-versions.ts';
import { keys } from '#shared/db/keys.ts';
import { chunksCovering, ORDER_CHUNK, writeKeptOrder } from '#shared/entities/query-orders.ts';
import type { Field } from '#shared/fields/field-types.ts';
import { isKeepable, keptOrderKey, signatureOf } from '#shared/listing/kept-orders.ts';
import type { ListParams } from '#shared/listing/params.ts';
import type { ListPlan } from '#shared/listing/resolve.ts';
import type { Query } from '#shared/query/query-types.ts';
import type { TableSchema } from '#shared/schema/schema.ts';

const record = (tableId: string, id: string) => keys.record(tableId, id);

describe('data versions: which writes move which table', () => {
  it('names each table whose records are put, updated or deleted, once; not checks or other items', () => {
    const ops: TransactOp[] = [
      { put: { ...record('tblA', 'rec1'), id: 'rec1' } },
      { update: { key: record('tblA', 'rec2'), update: 'SET x = :x', values: { ':x': 1 } } },
      { delete: record('tblB', 'rec3') },
      { check: record('tblC', 'rec4'), condition: 'attribute_exists(pk)' },
      { put: { ...keys.table('tblD'), id: 'tblD' } },
    ];
    expect(tablesWritten(ops)).toEqual(['tblA', 'tblB']);
    expect([...tablesToBump(ops).keys()]).toEqual(['tblA', 'tblB']);
    expect([...(tablesToBump(ops).get('tblA') ?? [])]).toEqual([WHOLE, 's:x']);
    expect(keys.tableOfDataVersionKey(keys.dataVersion('tblA', '03'))).toBe('tblA');
    expect(keys.tableOfDataVersionKey(record('tblA', 'rec1'))).toBeUndefined();
  });

  it("names the tables a journaled write's head lists: those whose records change; any table for index items alone", () => {
    const entry = keys.viewIndexEntry('viwA:h1', 'k1');
    const group = keys.viewGroupCounter('viwA:h1', 'g1', '00');
    expect(
      tablesTouched([
        { delete: record('tblA', 'rec1') },
        { put: { ...entry, recordId: 'rec1' } },
        { update: { key: group, update: 'ADD c :one' } },
      ]),
    ).toEqual(['tblA']);
    expect(tablesTouched([{ put: { ...keys.table('tblD'), id: 'tblD' } }])).toEqual([]);
    // entries or counts with no record write: whose table is not known, so every table's
    expect(tablesTouched([{ delete: entry }])).toBeUndefined();
    expect(tablesTouched([{ update: { key: group, update: 'ADD c :one' } }])).toBeUndefined();
  });

  it('moves the whole-table counter for puts and deletes, the buckets of the named attributes for updates', () => {
    const update = {
      key: record('tblA', 'rec2'),
      update: 'SET #f0 = :f0, lastModifiedTime = :now, ord.#o1 = :o1 ADD version :one REMOVE #f2',
      names: { '#f0': 'fldX', '#o1': 'viwA', '#f2': 'fldY' },
    };
    expect(attributesOfUpdate(update)?.sort()).toEqual([
      'fldX',
      'fldY',
      'lastModifiedTime',
      'ord',
      'version',
      'viwA',
    ]);
    expect(attributesOfUpdate({ ...update, names: { '#f0': 'fldX' } })).toBeUndefined();
    const changes = versionChanges([
      { update },
      { delete: record('tblB', 'rec3') },
      { update: { key: record('tblC', 'rec4'), update: 'SET #x = :x', names: {} } },
    ]);
    expect([...(changes.get('tblA') ?? [])].sort()).toEqual(
      [...new Set(['fldX', 'fldY', 'lastModifiedTime', 'ord', 'version', 'viwA'].map(counterOf))].sort(),
    );
    expect([...(changes.get('tblB') ?? [])]).toEqual([WHOLE]);
    expect([...(changes.get('tblC') ?? [])]).toEqual([WHOLE]); // a placeholder without a name
    expect(counterOf('fldX')).toMatch(/^b\d\d$/);
    expect(counterOf('lastModifiedTime')).toBe('s:lastModifiedTime');
    expect(new Set(Array.from({ length: 2000 }, (_, i) => bucketOf(`fld${i}`))).size).toBe(VERSION_BUCKETS);
  });

  it('moves the whole-table counter when told no counter', () => {
    expect(dataVersionOp('tblA', [], 1)).toMatchObject({
      update: {
        update: 'ADD #c0 :one SET #t = :t REMOVE #id, #recordIds, #tx, #by, #at',
        names: { '#c0': WHOLE },
      },
    });
  });

  it('adds nothing for a table whose version the operations already move', () => {
    const ops: TransactOp[] = [{ delete: record('tblA', 'rec1') }, dataVersionOp('tblA', undefined, 3)];
    expect(tablesToBump(ops).size).toBe(0);
  });

  it('adds 1 to one of 16 shards', () => {
    const op = dataVersionOp('tblA', undefined, 7);
    expect(op).toMatchObject({ update: { key: { pk: 'TABLE#tblA', sk: 'DVER#07' }, values: { ':one': 1 } } });
    const shards = new Set(
      Array.from({ length: 400 }, () => {
        const random = dataVersionOp('tblA');
        return 'update' in random ? random.update.key.sk : '';
      }),
    );
    expect(shards.size).toBe(16);
  });
});

describe('data versions: view indexes kept by writes', () => {
  it('a table keeps an index only when every one of its record operations names it', () => {
    const ops: TransactOp[] = [
      { delete: record('tblA', 'rec1'), maintains: ['m:x', 'm:y'], counts: { 'n:x': -1 } },
      { put: { ...record('tblA', 'rec2'), id: 'rec2' }, maintains: ['m:x'], counts: { 'n:x': 1, 'n:y': 1 } },
      { delete: record('tblB', 'rec3') },
      { put: { pk: 'VIDX#x', sk: 'k', id: 'rec2' } },
    ];
    expect(maintainedBy(ops)).toEqual(
      new Map([
        ['tblA', ['m:x']],
        ['tblB', []],
      ]),
    );
    // counts that sum to nothing move nothing
    expect(entryCountsBy(ops)).toEqual(new Map([['tblA', new Map([['n:y', 1]])]]));
  });

  it('adds to a kept index as much as to the table, so unmaintained writes alone move the difference', () => {
    const op = dataVersionOp('tblA', ['v', 'b01', 's:ord'], 2, ['m:x'], new Map([['n:x', -1]]));
    expect(op).toMatchObject({
      update: {
        update:
          'ADD #c0 :one, #c1 :one, #c2 :one, #m0 :n, #k0 :k0 SET #t = :t REMOVE #id, #recordIds, #tx, #by, #at',
        names: { '#m0': 'm:x', '#k0': 'n:x' },
        values: { ':n': 3, ':k0': -1 },
      },
    });
    const counters = new Map([
      ['v', 10],
      ['b01', 4],
      ['s:ord', 2],
      ['m:x', 13],
      ['n:x', 99],
    ]);
    expect(unmaintainedWrites(counters, 'm:x')).toBe(3);
    expect(unmaintainedWrites(counters, 'm:other')).toBe(16);
  });
});

describe('kept orders: keys, signatures, chunks', () => {
  const field = (id: string, type: string, options: Record<string, unknown> = {}) =>
    ({ id, name: id, type, options }) as unknown as Field;
  const schema = {
    table: { id: 'tblA' },
    fields: [
      field('fldName', 'singleLineText'),
      field('fldLink', 'link', { foreignTableId: 'tblB', relationship: 'manyOne' }),
      field('fldDate', 'date'),
    ],
  } as unknown as TableSchema;
  const query = (over: Partial<Query> = {}): Query => ({
    filter: null,
    groupBy: [],
    sort: [{ fieldId: 'fldName', order: 'asc' }],
    collapsedGroupIds: [],
    search: null,
    skip: 0,
    take: 100,
    ...over,
  });
  const plan = (over: Partial<Query> = {}, viewId = 'viwA') =>
    ({ query: query(over), view: { id: viewId } }) as unknown as Pick<ListPlan, 'query' | 'view'>;
  const now = new Date('2026-11-26T10:00:00Z');
  const hash = (p = plan(), user = 'usrA', at = now, s = schema) => keptOrderKey(s, p, user, at).hash;

  it('is the same for the same query at any page, and differs when anything deciding the order does', () => {
    expect(hash(plan({ skip: 500, take: 10 }))).toBe(hash());
    expect(hash(plan({ sort: [{ fieldId: 'fldName', order: 'desc' }] }))).not.toBe(hash());
    expect(hash(plan({}, 'viwB'))).not.toBe(hash());
    expect(hash(plan({ collapsedGroupIds: ['x'] }))).not.toBe(hash());
    const renamed = {
      ...schema,
      fields: [field('fldName', 'longText'), ...schema.fields.slice(1)],
    } as TableSchema;
    expect(hash(plan(), 'usrA', now, renamed)).not.toBe(hash());
  });

  it('depends on the caller only for a filter that may name "Me"', () => {
    expect(hash(plan(), 'usrB')).toBe(hash());
    const mine = plan({
      filter: { conjunction: 'and', filterSet: [{ fieldId: 'fldName', operator: 'is', value: 'me' }] },
    });
    expect(hash(mine, 'usrB')).not.toBe(hash(mine));
  });

  it('depends on the minute only for a filter on dates relative to now', () => {
    const later = new Date(now.getTime() + 120_000);
    expect(hash(plan(), 'usrA', later)).toBe(hash());
    const relative = plan({
      filter: {
        conjunction: 'and',
        filterSet: [{ fieldId: 'fldDate', operator: 'is', value: { mode: 'today', timeZone: 'UTC' } }],
      },
    });
    expect(hash(relative, 'usrA', later)).not.toBe(hash(relative));
  });

  it('is signed by the versions of the table and of the tables whose titles the query uses', () => {
    expect(keptOrderKey(schema, plan(), 'usrA', now).tables).toEqual(['tblA']);
    const byLink = keptOrderKey(schema, plan({ sort: [{ fieldId: 'fldLink', order: 'asc' }] }), 'usrA', now);
    expect(byLink.tables).toEqual(['tblA', 'tblB']);
    expect(signatureOf(byLink, new Map([['tblA', new Map([['v', 4]])]]))).toBe('tblA:4,tblB:0');
    // of the table itself, only the whole counter and the buckets of what the query reads count
    const byName = keptOrderKey(schema, plan(), 'usrA', now);
    const unrelated = [...Array(VERSION_BUCKETS).keys()]
      .map((i) => `b${String(i).padStart(2, '0')}`)
      .find((b) => !byName.counters?.includes(b)) as string;
    const base = new Map([['tblA', new Map([['v', 4]])]]);
    const edited = new Map([
      [
        'tblA',
        new Map([
          ['v', 4],
          [unrelated, 9],
        ]),
      ],
    ]);
    const renamed = new Map([
      [
        'tblA',
        new Map([
          ['v', 4],
          [bucketOf('fldName'), 1],
        ]),
      ],
    ]);
    expect(signatureOf(byName, edited)).toBe(signatureOf(byName, base));
    expect(signatureOf(byName, renamed)).not.toBe(signatureOf(byName, base));
    // a link to the table itself: titles are any record's primary cell, so every counter counts
    const selfSchema = {
      ...schema,
      fields: [
        ...schema.fields,
        field('fldSelf', 'link', { foreignTableId: 'tblA', relationship: 'manyOne' }),
      ],
    } as TableSchema;
    const bySelf = keptOrderKey(
      selfSchema,
      plan({ sort: [{ fieldId: 'fldSelf', order: 'asc' }] }),
      'usrA',
      now,
    );
    expect(bySelf.counters).toBeUndefined();
    expect(signatureOf(bySelf, edited)).not.toBe(signatureOf(bySelf, base));
  });

  it('keeps the general path only: not the view order, the pickers or selected records', () => {
    const general = { viewOrderOnly: false } as ListPlan;
    expect(isKeepable({} as ListParams, general)).toBe(true);
    expect(isKeepable({} as ListParams, { viewOrderOnly: true } as ListPlan)).toBe(false);
    expect(isKeepable({ selectedRecordIds: ['rec1'] } as ListParams, general)).toBe(false);
    expect(isKeepable({ filterLinkCellCandidate: ['fld', 'rec'] } as unknown as ListParams, general)).toBe(
      false,
    );
  });

  it('reads the chunks a page spans, and writes whole chunks only (but the last of the table)', async () => {
    expect(chunksCovering(0, 100)).toEqual([0]);
    expect(chunksCovering(ORDER_CHUNK - 10, ORDER_CHUNK + 10)).toEqual([0, 1]);
    expect(chunksCovering(3 * ORDER_CHUNK, 3 * ORDER_CHUNK)).toEqual([]); // a count: the header alone
    const header = { signature: 's', total: 10_000, groupPoints: null };
    await expect(writeKeptOrder('tblA', 'h', header, 10, ['rec1'])).rejects.toThrow(/whole chunks/);
    await expect(writeKeptOrder('tblA', 'h', header, 0, ['rec1'])).rejects.toThrow(/whole chunks/);
  });
});
