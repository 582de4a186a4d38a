/**
 * What recomputes computed cells (computed.md 6) over HTTP on DynamoDB Local: every record write
 * (create, update, delete, duplicate, links from either side, a looked-up record changed or
 * deleted in another table), every schema change (create backfill, expression and lookupOptions
 * changes, formatting only, delete), cycles, ignored writes to computed cells, and atomicity of a
 * fan-out write interrupted mid-commit. Each check reads the write's own answer where it returns
 * records, then a listing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getItems } from '#shared/db/client.ts';
import { injectChunkFault } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import { invalid } from '#test/support/answers.ts';
import { type Cells, type FieldAnswer, newBase } from '#test/support/computed.ts';
import { call } from '#test/support/invoke.ts';

afterEach(() => injectChunkFault(undefined));

/**
 * Parts (P1 Cost 5, P2 Cost 7, P3 Cost 11; Code c1..c3) and Orders (O1 Qty 2, O2 Qty 3), linked
 * manyMany both ways (Orders.Parts ↔ Parts.Orders); O1 → [P1, P2].
 * Orders: Total = sum(Cost), PartNames = lookup Name, Calc = {Qty} * {Total}.
 * Parts: OrderNames = lookup of Orders' Name, OrderQty = sum(Qty), Plus = {Cost} + 1.
 */
const shop = async () => {
  const b = await newBase();
  const parts = await b.table(
    'Parts',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Cost' },
      { type: 'singleLineText', name: 'Code' },
      { type: 'number', name: 'Weight' },
    ],
    [
      { Name: 'P1', Cost: 5, Code: 'c1', Weight: 1 },
      { Name: 'P2', Cost: 7, Code: 'c2', Weight: 2 },
      { Name: 'P3', Cost: 11, Code: 'c3', Weight: 3 },
    ],
  );
  const orders = await b.table(
    'Orders',
    [
      { type: 'singleLineText', name: 'Name' },
      { type: 'number', name: 'Qty' },
    ],
    [
      { Name: 'O1', Qty: 2 },
      { Name: 'O2', Qty: 3 },
    ],
  );
  const link = await b.link(orders.id, parts.id, 'manyMany', 'Parts');
  const back = await b.getField(parts.id, link.options.symmetricFieldId as string);
  await b.update(orders.id, orders.r('O1'), { Parts: [{ id: parts.r('P1') }, { id: parts.r('P2') }] });
  const total = await b.rollup(orders.id, link, parts.f('Cost'), 'sum({values})', { name: 'Total' });
  const partNames = await b.lookup(orders.id, link, parts.f('Name'), 'singleLineText', { name: 'PartNames' });
  const calc = await b.field(orders.id, {
    type: 'formula',
    name: 'Calc',
    options: { expression: `{${orders.f('Qty')}} * {${total.id}}` },
  });
  const orderNames = await b.lookup(parts.id, back, orders.f('Name'), 'singleLineText', {
    name: 'OrderNames',
  });
  const orderQty = await b.rollup(parts.id, back, orders.f('Qty'), 'sum({values})', { name: 'OrderQty' });
  const plus = await b.field(parts.id, {
    type: 'formula',
    name: 'Plus',
    options: { expression: `{${parts.f('Cost')}} + 1` },
  });
  /** Orders' computed cells by record name. */
  const orderCells = async () => byName(await b.list(orders.id));
  const partCells = async () => byName(await b.list(parts.id));
  return {
    b,
    parts,
    orders,
    link,
    back,
    total,
    partNames,
    calc,
    orderNames,
    orderQty,
    plus,
    orderCells,
    partCells,
  };
};

const byName = (res: { body: { records: { name: string; fields: Cells }[] } }) =>
  Object.fromEntries(res.body.records.map((r) => [r.name, r.fields]));

/** The computed cells of a record answer. */
const pick = (fields: Cells, names: string[]) =>
  Object.fromEntries(names.filter((n) => n in fields).map((n) => [n, fields[n]]));

const ORDER = ['Total', 'PartNames', 'Calc'];
const PART = ['OrderNames', 'OrderQty', 'Plus'];

describe('record writes recompute their own cells and every dependent (section 6)', () => {
  it('the shop starts consistent (backfill at field create)', async () => {
    const s = await shop();
    const o = await s.orderCells();
    expect(pick(o.O1 as Cells, ORDER)).toEqual({ Total: 12, PartNames: ['P1', 'P2'], Calc: 24 });
    expect(pick(o.O2 as Cells, ORDER)).toEqual({ Calc: 0 });
    const p = await s.partCells();
    expect(pick(p.P1 as Cells, PART)).toEqual({ OrderNames: ['O1'], OrderQty: 2, Plus: 6 });
    expect(pick(p.P3 as Cells, PART)).toEqual({ Plus: 12 });
  });

  it('create: the answer holds the new record computed; the linked records elsewhere follow', async () => {
    const s = await shop();
    const [o3] = await s.b.create(s.orders.id, [
      { Name: 'O3', Qty: 10, Parts: [{ id: s.parts.r('P2') }, { id: s.parts.r('P3') }] },
    ]);
    expect(pick(o3?.fields as Cells, ORDER)).toEqual({ Total: 18, PartNames: ['P2', 'P3'], Calc: 180 });
    const p = await s.partCells();
    expect(pick(p.P2 as Cells, PART)).toEqual({ OrderNames: ['O1', 'O3'], OrderQty: 12, Plus: 8 });
    expect(pick(p.P3 as Cells, PART)).toEqual({ OrderNames: ['O3'], OrderQty: 10, Plus: 12 });

    // from the other side: a new part linked to O2
    const [p4] = await s.b.create(s.parts.id, [
      { Name: 'P4', Cost: 100, [s.back.name]: [{ id: s.orders.r('O2') }] },
    ]);
    expect(pick(p4?.fields as Cells, PART)).toEqual({ OrderNames: ['O2'], OrderQty: 3, Plus: 101 });
    const o = await s.orderCells();
    expect(pick(o.O2 as Cells, ORDER)).toEqual({ Total: 100, PartNames: ['P4'], Calc: 300 });
  });

  it('update: own formulas in the answer, dependents in the other table', async () => {
    const s = await shop();
    const res = await s.b.update(s.orders.id, s.orders.r('O1'), { Qty: 4 });
    expect(pick(res.fields, ORDER)).toEqual({ Total: 12, PartNames: ['P1', 'P2'], Calc: 48 });
    const p = await s.partCells();
    expect((p.P1 as Cells).OrderQty).toBe(4);
    expect((p.P2 as Cells).OrderQty).toBe(4);
    // the answer of a bulk update too
    const bulk = await call('update-records', {
      token: s.b.token,
      params: { tableId: s.parts.id },
      body: {
        records: [
          { id: s.parts.r('P1'), fields: { Cost: 1 } },
          { id: s.parts.r('P2'), fields: { Name: 'P2x' } },
        ],
      },
    });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(bulk.body.map((r: { fields: Cells }) => r.fields.Plus)).toEqual([2, 8]);
    const o = await s.orderCells();
    expect(pick(o.O1 as Cells, ORDER)).toEqual({ Total: 8, PartNames: ['P1', 'P2x'], Calc: 32 });
  });

  it('delete: records of either table drop out of the dependents', async () => {
    const s = await shop();
    await s.b.update(s.orders.id, s.orders.r('O2'), { Parts: [{ id: s.parts.r('P1') }] });
    expect((await s.partCells()).P1).toMatchObject({ OrderNames: ['O1', 'O2'], OrderQty: 5 });
    const delOrder = await call('delete-record', {
      token: s.b.token,
      params: { tableId: s.orders.id, recordId: s.orders.r('O1') },
    });
    expect(delOrder.status).toBe(200);
    const p = await s.partCells();
    expect(pick(p.P1 as Cells, PART)).toEqual({ OrderNames: ['O2'], OrderQty: 3, Plus: 6 });
    expect(pick(p.P2 as Cells, PART)).toEqual({ Plus: 8 });

    const delPart = await call('delete-records', {
      token: s.b.token,
      params: { tableId: s.parts.id },
      query: `recordIds[]=${s.parts.r('P1')}`,
    });
    expect(delPart.status, JSON.stringify(delPart.body)).toBe(200);
    const o = await s.orderCells();
    expect(pick(o.O2 as Cells, ORDER)).toEqual({ Calc: 0 });
  });

  it('duplicate: the copy is answered computed and its links reach the other table', async () => {
    const s = await shop();
    const res = await call('duplicate-record', {
      token: s.b.token,
      params: { tableId: s.orders.id, recordId: s.orders.r('O1') },
      body: {},
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [copy] = res.body.records as { id: string; fields: Cells }[];
    expect(copy?.id).not.toBe(s.orders.r('O1'));
    expect(pick(copy?.fields as Cells, ORDER)).toEqual({ Total: 12, PartNames: ['P1', 'P2'], Calc: 24 });
    const p = await s.partCells();
    expect(pick(p.P1 as Cells, PART)).toEqual({ OrderNames: ['O1', 'O1'], OrderQty: 4, Plus: 6 });
    expect((await s.b.record(s.orders.id, copy?.id as string)).Calc).toBe(24);
  });

  it('a link added or removed from either side recomputes both sides, in the answer too', async () => {
    const s = await shop();
    // added from the Orders side
    const added = await s.b.update(s.orders.id, s.orders.r('O2'), {
      Parts: [{ id: s.parts.r('P3') }, { id: s.parts.r('P1') }],
    });
    expect(pick(added.fields, ORDER)).toEqual({ Total: 16, PartNames: ['P3', 'P1'], Calc: 48 });
    let p = await s.partCells();
    expect(pick(p.P3 as Cells, PART)).toEqual({ OrderNames: ['O2'], OrderQty: 3, Plus: 12 });
    expect(pick(p.P1 as Cells, PART)).toEqual({ OrderNames: ['O1', 'O2'], OrderQty: 5, Plus: 6 });
    // removed from the Parts side: P1 leaves O1
    const removed = await s.b.update(s.parts.id, s.parts.r('P1'), {
      [s.back.name]: [{ id: s.orders.r('O2') }],
    });
    expect(pick(removed.fields, PART)).toEqual({ OrderNames: ['O2'], OrderQty: 3, Plus: 6 });
    let o = await s.orderCells();
    expect(pick(o.O1 as Cells, ORDER)).toEqual({ Total: 7, PartNames: ['P2'], Calc: 14 });
    // removed from the Orders side: O1 keeps nothing
    const cleared = await s.b.update(s.orders.id, s.orders.r('O1'), { Parts: null });
    expect(pick(cleared.fields, ORDER)).toEqual({ Calc: 0 });
    p = await s.partCells();
    expect(pick(p.P2 as Cells, PART)).toEqual({ Plus: 8 });
    // added from the Parts side
    const back = await s.b.update(s.parts.id, s.parts.r('P2'), { [s.back.name]: [{ id: s.orders.r('O1') }] });
    expect(pick(back.fields, PART)).toEqual({ OrderNames: ['O1'], OrderQty: 2, Plus: 8 });
    o = await s.orderCells();
    expect(pick(o.O1 as Cells, ORDER)).toEqual({ Total: 7, PartNames: ['P2'], Calc: 14 });
  });

  it('a formula over a link sees current titles', async () => {
    const s = await shop();
    await s.b.field(s.orders.id, {
      type: 'formula',
      name: 'Titles',
      options: { expression: `{${s.link.id}} & "!"` },
    });
    expect((await s.orderCells()).O1?.Titles).toBe('P1,P2!');
    await s.b.update(s.parts.id, s.parts.r('P2'), { Name: 'Q2' });
    expect((await s.orderCells()).O1?.Titles).toBe('P1,Q2!');
  });

  it('writes to computed cells are ignored, the rest of the write applies (typecast or not)', async () => {
    const s = await shop();
    for (const typecast of [true, false]) {
      const res = await s.b.update(
        s.orders.id,
        s.orders.r('O1'),
        { Total: 99, PartNames: ['x'], Calc: 1, Qty: typecast ? 5 : 6 },
        typecast,
      );
      const qty = typecast ? 5 : 6;
      expect(pick(res.fields, [...ORDER, 'Qty'])).toEqual({
        Total: 12,
        PartNames: ['P1', 'P2'],
        Calc: 12 * qty,
        Qty: qty,
      });
    }
    const [created] = await s.b.create(
      s.parts.id,
      [{ Name: 'P9', Cost: 1, OrderNames: ['zz'], Plus: 50 }],
      false,
    );
    expect(pick(created?.fields as Cells, PART)).toEqual({ Plus: 2 });
    expect(pick((await s.orderCells()).O1 as Cells, ORDER)).toEqual({
      Total: 12,
      PartNames: ['P1', 'P2'],
      Calc: 72,
    });
  });
});

describe('schema changes recompute (section 6)', () => {
  it('a rollup expression changed by PATCH recomputes it and its dependents', async () => {
    const s = await shop();
    const res = await s.b.patchField(s.orders.id, s.total.id, { options: { expression: 'max({values})' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.options.expression).toBe('max({values})');
    const o = await s.orderCells();
    expect(pick(o.O1 as Cells, ORDER)).toEqual({ Total: 7, PartNames: ['P1', 'P2'], Calc: 14 });
  });

  it('a rollup expression PATCHed to a text result drops the misfitting formatting and recomputes', async () => {
    const s = await shop();
    const res = await s.b.patchField(s.orders.id, s.total.id, {
      options: { expression: 'array_join({values})' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ cellValueType: 'string', dbFieldType: 'TEXT' });
    expect(res.body.options).not.toHaveProperty('formatting');
    expect((await s.orderCells()).O1?.Total).toBe('5, 7');
    // formatting given in the PATCH itself must fit
    const bad = await s.b.patchField(s.orders.id, s.total.id, {
      options: { expression: 'concatenate({values})', formatting: { type: 'decimal', precision: 1 } },
    });
    expect(bad.status).toBe(400);
  });

  it('lookupOptions of a rollup changed by PATCH: it reads the new field', async () => {
    const s = await shop();
    const rollup = await s.b.patchField(s.orders.id, s.total.id, {
      lookupOptions: {
        foreignTableId: s.parts.id,
        linkFieldId: s.link.id,
        lookupFieldId: s.parts.f('Weight'),
      },
    });
    expect(rollup.status, JSON.stringify(rollup.body)).toBe(200);
    expect(rollup.body.lookupOptions).toMatchObject({
      lookupFieldId: s.parts.f('Weight'),
      relationship: 'manyMany',
    });
    expect(pick((await s.orderCells()).O1 as Cells, ORDER)).toEqual({
      Total: 3,
      PartNames: ['P1', 'P2'],
      Calc: 6,
    });
    // the new looked-up field now drives it, the old one no longer
    await s.b.update(s.parts.id, s.parts.r('P1'), { Weight: 10, Cost: 1000 });
    expect(pick((await s.orderCells()).O1 as Cells, ORDER)).toEqual({
      Total: 12,
      PartNames: ['P1', 'P2'],
      Calc: 24,
    });
  });

  it('lookupOptions of a lookup changed by PATCH: its cells read the new field', async () => {
    const s = await shop();
    const res = await s.b.patchField(s.orders.id, s.partNames.id, {
      lookupOptions: { foreignTableId: s.parts.id, linkFieldId: s.link.id, lookupFieldId: s.parts.f('Code') },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await s.orderCells()).O1?.PartNames).toEqual(['c1', 'c2']);
  });

  it('a formatting-only or name-only change recomputes nothing (no record rewritten)', async () => {
    const s = await shop();
    const stored = async () => {
      const got = await getItems([...s.orders.ids.map((id) => keys.record(s.orders.id, id))]);
      return s.orders.ids.map((id) => got.get(keys.record(s.orders.id, id))?.version);
    };
    const before = await stored();
    const res = await s.b.patchField(s.orders.id, s.total.id, {
      name: 'Sum',
      options: { formatting: { type: 'currency', precision: 0, symbol: '€' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.options).toMatchObject({
      expression: 'sum({values})',
      formatting: { type: 'currency', precision: 0, symbol: '€' },
    });
    const calc = await s.b.patchField(s.orders.id, s.calc.id, {
      options: { formatting: { type: 'percent', precision: 1 } },
    });
    expect(calc.status, JSON.stringify(calc.body)).toBe(200);
    const lookup = await s.b.patchField(s.parts.id, s.orderQty.id, { name: 'Q' });
    expect(lookup.status, JSON.stringify(lookup.body)).toBe(200);
    expect(await stored()).toEqual(before);
    expect(await s.b.cells(s.orders.id, 'Sum', 'cellFormat=text')).toEqual(['€12', undefined]);
    expect(await s.b.cells(s.orders.id, 'Calc', 'cellFormat=text')).toEqual(['2400.0%', '0.0%']);
  });

  it('field delete: the formula over it breaks; lookups lose their link or looked-up field', async () => {
    const s = await shop();
    const code = await s.b.lookup(s.orders.id, s.link, s.parts.f('Code'), 'singleLineText', {
      name: 'Codes',
    });
    expect((await s.orderCells()).O1?.Codes).toEqual(['c1', 'c2']);
    // the looked-up field in the other table is deleted
    await s.b.deleteField(s.parts.id, s.parts.f('Code'));
    expect((await s.b.getField(s.orders.id, code.id)).hasError).toBe(true);
    expect((await s.orderCells()).O1?.Codes).toBeUndefined();
    // a rollup's looked-up field: the rollup breaks, the formula over it recomputes from empty
    await s.b.deleteField(s.parts.id, s.parts.f('Cost'));
    expect((await s.b.getField(s.orders.id, s.total.id)).hasError).toBe(true);
    expect((await s.b.getField(s.parts.id, s.plus.id)).hasError).toBe(true);
    let o = await s.orderCells();
    expect(pick(o.O1 as Cells, ORDER)).toEqual({ PartNames: ['P1', 'P2'], Calc: 0 });
    expect(pick((await s.partCells()).P1 as Cells, PART)).toEqual({ OrderNames: ['O1'], OrderQty: 2 });
    // the link itself: lookups on both sides break and empty
    await s.b.deleteField(s.orders.id, s.link.id);
    expect((await s.b.getField(s.orders.id, s.partNames.id)).hasError).toBe(true);
    expect((await s.b.getField(s.parts.id, s.orderNames.id)).hasError).toBe(true);
    expect((await s.b.getField(s.parts.id, s.orderQty.id)).hasError).toBe(true);
    o = await s.orderCells();
    expect(pick(o.O1 as Cells, ORDER)).toEqual({ Calc: 0 });
    expect(pick((await s.partCells()).P1 as Cells, PART)).toEqual({});
    // a broken field is answered with hasError in the listing of fields too
    const fields = await call('list-fields', { token: s.b.token, params: { tableId: s.parts.id } });
    expect(
      fields.body
        .filter((f: FieldAnswer) => f.hasError)
        .map((f: FieldAnswer) => f.name)
        .sort(),
    ).toEqual(['OrderNames', 'OrderQty', 'Plus']);
  });

  it('a cycle is refused at update naming it, and nothing changes', async () => {
    const s = await shop();
    const a = await s.b.field(s.orders.id, {
      type: 'formula',
      name: 'A',
      options: { expression: `{${s.calc.id}} + 1` },
    });
    const res = await s.b.patchField(s.orders.id, s.calc.id, { options: { expression: `{${a.id}} * 2` } });
    expect(res).toMatchObject(invalid(/^field reference has cycle/));
    expect(res.body.message).toContain('A');
    expect(res.body.message).toContain('Calc');
    expect((await s.b.getField(s.orders.id, s.calc.id)).options.expression).toBe(
      `{${s.orders.f('Qty')}} * {${s.total.id}}`,
    );
    expect(pick((await s.orderCells()).O1 as Cells, [...ORDER, 'A'])).toEqual({
      Total: 12,
      PartNames: ['P1', 'P2'],
      Calc: 24,
      A: 25,
    });
  });

  it('a cycle through lookups across two tables is refused too', async () => {
    const s = await shop();
    // Orders.G = "x"; Parts.M = lookup of G; Parts.F = {M}; Orders.L = lookup of F; then G = {L}
    const g = await s.b.field(s.orders.id, { type: 'formula', name: 'G', options: { expression: '"x"' } });
    const m = await s.b.lookup(s.parts.id, s.back, g.id, 'formula', { name: 'M' });
    const f = await s.b.field(s.parts.id, {
      type: 'formula',
      name: 'F',
      options: { expression: `{${m.id}} & ""` },
    });
    const l = await s.b.lookup(s.orders.id, s.link, f.id, 'formula', { name: 'L' });
    expect((await s.orderCells()).O1?.L).toEqual(['x', 'x']);
    const res = await s.b.patchField(s.orders.id, g.id, { options: { expression: `{${l.id}} & "y"` } });
    expect(res).toMatchObject(invalid(/^field reference has cycle/));
    expect((await s.orderCells()).O1?.G).toBe('x');
  });
});

describe('atomicity of a fan-out write', () => {
  it('a fault mid-commit leaves the source record and every dependent as they were', async () => {
    const b = await newBase();
    const src = await b.table(
      'Src',
      [
        { type: 'singleLineText', name: 'Name' },
        { type: 'number', name: 'Num' },
      ],
      [{ Name: 'S1', Num: 1 }],
    );
    const host = await b.table('Host', [{ type: 'singleLineText', name: 'Name' }], []);
    const link = await b.link(host.id, src.id, 'manyOne', 'Src');
    const s1 = src.r('S1');
    const n = 150;
    const created = await b.create(
      host.id,
      Array.from({ length: n }, (_, i) => ({ Name: `h${i}`, Src: { id: s1 } })),
    );
    expect(created).toHaveLength(n);
    await b.lookup(host.id, link, src.f('Name'), 'singleLineText', { name: 'SrcName' });
    await b.rollup(host.id, link, src.f('Num'), 'sum({values})', { name: 'SrcNum' });
    const listAll = async () =>
      (await b.list(host.id, 'take=1000')).body.records.map((r: { fields: Cells }) => [
        r.fields.SrcName,
        r.fields.SrcNum,
      ]);
    expect(await listAll()).toEqual(Array.from({ length: n }, () => ['S1', 1]));

    const started: number[] = [];
    injectChunkFault((unit) => {
      started.push(unit);
      if (unit === 1) throw new Error('injected');
    });
    const failed = await b.tryUpdate(src.id, s1, { Name: 'S1x', Num: 2 });
    injectChunkFault(undefined);
    expect(failed.status, JSON.stringify(failed.body)).toBe(500);
    expect(started).toContain(1);
    expect(await b.record(src.id, s1)).toMatchObject({ Name: 'S1', Num: 1 });
    expect(await listAll()).toEqual(Array.from({ length: n }, () => ['S1', 1]));

    // and without the fault the same write lands whole
    const done = await b.update(src.id, s1, { Name: 'S1x', Num: 2 });
    expect(done.fields).toMatchObject({ Name: 'S1x', Num: 2 });
    expect(await listAll()).toEqual(Array.from({ length: n }, () => ['S1x', 2]));
  });
});
