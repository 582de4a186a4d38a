import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChangeEntry, changesAfter } from '#shared/entities/change-log.ts';
import { queryRecords } from '#shared/entities/records.ts';
import { type CallResult, call } from '#test/support/invoke.ts';
import { useStreamPoller } from '#test/support/stream-poller.ts';
import { newWorkspace } from '#test/support/workspace.ts';

/**
 * Issue 28, the replay property: after a random sequence of record writes made through the
 * routes (create, update, batch update, delete, batch delete, duplicate; text, number, checkbox,
 * singleSelect and a link between two tables, with a formula and a lookup kept current by
 * propagation) on a fresh base, applying the base's change log from empty — every record entry,
 * the computed ones included — gives exactly the records the tables hold, as stored and as listed.
 * Along the way every `before` of the log must be what the replay held at that point, so an entry
 * missing or out of order is caught even when a later write hides it from the end state.
 */

const poller = useStreamPoller();

type TableKey = 'A' | 'B';
type Cells = Record<string, unknown>;

/** The cells a write gives a record: each own field set, cleared (null) or left alone (absent). */
interface CellsSpec {
  text?: string | null;
  num?: number | null;
  flag?: true | null;
  choice?: 'a' | 'b' | 'c' | null;
  /** Positions (modulo) among the other table's live records; none clears the link. */
  links?: number[];
}

type Op =
  | { kind: 'create'; table: TableKey; records: CellsSpec[] }
  | { kind: 'update'; table: TableKey; at: number; cells: CellsSpec }
  | { kind: 'updateMany'; table: TableKey; rows: { at: number; cells: CellsSpec }[] }
  | { kind: 'delete'; table: TableKey; at: number }
  | { kind: 'deleteMany'; table: TableKey; at: number[] }
  | { kind: 'duplicate'; table: TableKey; at: number };

/** One table of the world: its id, the ids of its fields, and the records live now (as the writes answered). */
interface WorldTable {
  tableId: string;
  fields: { text: string; num: string; flag: string; choice: string; link: string };
  /** Link fields among all the table's fields, whose listed cells are `{id, title}` objects. */
  linkFields: string[];
  live: string[];
}

const ok = (res: CallResult, what: string): CallResult => {
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

const OWN_FIELDS = [
  { name: 'Name', type: 'singleLineText' },
  { name: 'Num', type: 'number' },
  { name: 'Flag', type: 'checkbox' },
  {
    name: 'Choice',
    type: 'singleSelect',
    options: { choices: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
  },
];

/**
 * A fresh base with tables Alpha (A) and Beta (B), each with the own fields above and a record or
 * two; a manyMany link A.Parts ⇄ B.Alpha; on A a formula over Num, on B a lookup of A's Name
 * through the link (so writes to A recompute B).
 */
const newWorld = async () => {
  const ws = await newWorkspace();
  const token = ws.owner.auth;
  const table = async (name: string, records: Cells[]) =>
    ok(
      await call('create-table', {
        token,
        params: { baseId: ws.baseId },
        body: { name, fields: OWN_FIELDS, records: records.map((fields) => ({ fields })) },
      }),
      'create-table',
    ).body as { id: string; fields: { id: string; name: string }[]; records: { id: string }[] };
  const alpha = await table('Alpha', [{ Name: 'a0', Num: 1, Flag: true, Choice: 'a' }, {}]);
  const beta = await table('Beta', [{ Name: 'b0', Num: 2 }]);
  const field = async (tableId: string, body: Record<string, unknown>) =>
    ok(await call('create-field', { token, params: { tableId }, body }), 'create-field').body as {
      id: string;
      options: { symmetricFieldId?: string };
    };
  const link = await field(alpha.id, {
    type: 'link',
    name: 'Parts',
    options: { relationship: 'manyMany', foreignTableId: beta.id },
  });
  const own = (t: typeof alpha) => (name: string) => t.fields.find((f) => f.name === name)?.id as string;
  const [ownA, ownB] = [own(alpha), own(beta)];
  await field(alpha.id, { type: 'formula', name: 'Twice', options: { expression: `{${ownA('Num')}} * 2` } });
  const symmetric = link.options.symmetricFieldId as string;
  await field(beta.id, {
    type: 'singleLineText',
    isLookup: true,
    lookupOptions: { foreignTableId: alpha.id, linkFieldId: symmetric, lookupFieldId: ownA('Name') },
  });
  const worldTable = (t: typeof alpha, of: (name: string) => string, linkId: string): WorldTable => ({
    tableId: t.id,
    fields: { text: of('Name'), num: of('Num'), flag: of('Flag'), choice: of('Choice'), link: linkId },
    linkFields: [linkId],
    live: t.records.map((r) => r.id),
  });
  return {
    token,
    baseId: ws.baseId,
    tables: { A: worldTable(alpha, ownA, link.id), B: worldTable(beta, ownB, symmetric) },
  };
};
type World = Awaited<ReturnType<typeof newWorld>>;

const other = (table: TableKey): TableKey => (table === 'A' ? 'B' : 'A');
const pickFrom = (ids: readonly string[], at: number): string | undefined => ids[at % ids.length];

/** The body cells (by field id) of a spec, on a table of the world as it is now. */
const cellsOf = (world: World, table: TableKey, spec: CellsSpec): Cells => {
  const { fields } = world.tables[table];
  const cells: Cells = {};
  if (spec.text !== undefined) cells[fields.text] = spec.text;
  if (spec.num !== undefined) cells[fields.num] = spec.num;
  if (spec.flag !== undefined) cells[fields.flag] = spec.flag;
  if (spec.choice !== undefined) cells[fields.choice] = spec.choice;
  if (spec.links !== undefined) {
    const foreign = world.tables[other(table)].live;
    const ids = foreign.length ? [...new Set(spec.links.map((at) => pickFrom(foreign, at) as string))] : [];
    // a link is cleared with null (an empty list is a 400)
    cells[fields.link] = ids.length ? ids.map((id) => ({ id })) : null;
  }
  return cells;
};

/** Makes one write through its route and keeps the world's live ids in step; a write with no record to act on is skipped. */
const apply = async (world: World, op: Op): Promise<void> => {
  const t = world.tables[op.table];
  const { token } = world;
  const params = { tableId: t.tableId };
  switch (op.kind) {
    case 'create': {
      const res = ok(
        await call('create-records', {
          token,
          params,
          body: {
            fieldKeyType: 'id',
            records: op.records.map((r) => ({ fields: cellsOf(world, op.table, r) })),
          },
        }),
        'create-records',
      );
      t.live.push(...(res.body.records as { id: string }[]).map((r) => r.id));
      return;
    }
    case 'update': {
      const recordId = pickFrom(t.live, op.at);
      if (!recordId) return;
      ok(
        await call('update-record', {
          token,
          params: { ...params, recordId },
          body: { fieldKeyType: 'id', record: { fields: cellsOf(world, op.table, op.cells) } },
        }),
        'update-record',
      );
      return;
    }
    case 'updateMany': {
      if (!t.live.length) return;
      const rows = new Map(op.rows.map((r) => [pickFrom(t.live, r.at) as string, r.cells]));
      ok(
        await call('update-records', {
          token,
          params,
          body: {
            fieldKeyType: 'id',
            records: [...rows].map(([id, cells]) => ({ id, fields: cellsOf(world, op.table, cells) })),
          },
        }),
        'update-records',
      );
      return;
    }
    case 'delete': {
      const recordId = pickFrom(t.live, op.at);
      if (!recordId) return;
      ok(await call('delete-record', { token, params: { ...params, recordId } }), 'delete-record');
      t.live = t.live.filter((id) => id !== recordId);
      return;
    }
    case 'deleteMany': {
      if (!t.live.length) return;
      const recordIds = [...new Set(op.at.map((at) => pickFrom(t.live, at) as string))];
      ok(await call('delete-records', { token, params, body: { recordIds } }), 'delete-records');
      t.live = t.live.filter((id) => !recordIds.includes(id));
      return;
    }
    case 'duplicate': {
      const recordId = pickFrom(t.live, op.at);
      if (!recordId) return;
      const res = ok(
        await call('duplicate-record', { token, params: { ...params, recordId } }),
        'duplicate-record',
      );
      t.live.push((res.body.records as { id: string }[])[0]?.id as string);
      return;
    }
  }
};

/** The base's whole log, in seq order. */
const wholeLog = async (baseId: string): Promise<ChangeEntry[]> => {
  const log: ChangeEntry[] = [];
  for (;;) {
    const page = await changesAfter(baseId, log.at(-1)?.seq ?? 0, 1000);
    log.push(...page);
    if (page.length < 1000) return log;
  }
};

/**
 * The records the log's record entries build from empty, by table and record id; `anomalies`
 * names every entry that does not fit what the replay held when it came (a create of a record
 * already there, an update or delete of one not there, a `before` that is not the cells held).
 * Pure.
 */
const replay = (log: readonly ChangeEntry[]) => {
  const tables = new Map<string, Map<string, Cells>>();
  const anomalies: string[] = [];
  for (const e of log) {
    if (!e.type.startsWith('record.')) continue;
    const at = `seq ${e.seq} ${e.type} ${e.recordId}`;
    if (e.cellsOmitted) anomalies.push(`${at}: cells omitted`);
    const records = tables.get(e.tableId) ?? new Map<string, Cells>();
    tables.set(e.tableId, records);
    const id = e.recordId ?? '';
    const held = records.get(id);
    if (e.type === 'record.created') {
      if (held) anomalies.push(`${at}: created again`);
      records.set(id, { ...e.after });
      continue;
    }
    if (!held) {
      anomalies.push(`${at}: no such record`);
      continue;
    }
    if (e.type === 'record.deleted') {
      if (!isDeepStrictEqual(e.before ?? {}, held)) anomalies.push(`${at}: before is not the cells held`);
      records.delete(id);
      continue;
    }
    const before = e.before ?? {};
    const after = e.after ?? {};
    for (const f of new Set([...Object.keys(before), ...Object.keys(after)]))
      if (!isDeepStrictEqual(before[f], held[f]))
        anomalies.push(`${at}: before of ${f} is not the cell held`);
    for (const f of Object.keys(before)) if (!(f in after)) delete held[f];
    Object.assign(held, after);
  }
  return { tables, anomalies };
};

/** A table's records as stored: each record's cells of the table's fields, by id. */
const storedRecords = async (tableId: string, fieldIds: readonly string[]) =>
  Object.fromEntries(
    (await queryRecords(tableId)).map((r) => [
      r.id,
      Object.fromEntries(fieldIds.filter((f) => r[f] !== undefined).map((f) => [f, r[f]])),
    ]),
  );

/** A table's records as listed (`fieldKeyType=id`), link cells as the ids they name. */
const listedRecords = async (world: World, t: WorldTable) => {
  const res = ok(
    await call('list-records', {
      token: world.token,
      params: { tableId: t.tableId },
      query: 'fieldKeyType=id&take=1000',
    }),
    'list-records',
  );
  return Object.fromEntries(
    (res.body.records as { id: string; fields: Cells }[]).map((r) => [
      r.id,
      Object.fromEntries(
        Object.entries(r.fields).map(([f, v]) => [
          f,
          t.linkFields.includes(f) ? (v as { id: string }[]).map((l) => l.id) : v,
        ]),
      ),
    ]),
  );
};

const fieldIdsOf = async (world: World, tableId: string): Promise<string[]> =>
  (
    ok(await call('list-fields', { token: world.token, params: { tableId } }), 'list-fields').body as {
      id: string;
    }[]
  ).map((f) => f.id);

const tableKey = fc.constantFrom<TableKey>('A', 'B');
const position = fc.nat(50);
const cellsSpec: fc.Arbitrary<CellsSpec> = fc.record(
  {
    text: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    num: fc.option(
      // whole and decimal numbers (DynamoDB refuses magnitudes under 1e-130: a 400, not a write)
      fc.oneof(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 1000),
      ),
      { nil: null },
    ),
    // a checkbox takes true or null (false only with typecast)
    flag: fc.option(fc.constant(true), { nil: null }),
    choice: fc.option(fc.constantFrom<'a' | 'b' | 'c'>('a', 'b', 'c'), { nil: null }),
    links: fc.array(position, { maxLength: 3 }),
  },
  { requiredKeys: [] },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    table: tableKey,
    records: fc.array(cellsSpec, { minLength: 1, maxLength: 1 }),
  }),
  fc.record({
    kind: fc.constant('create' as const),
    table: tableKey,
    records: fc.array(cellsSpec, { minLength: 2, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('update' as const), table: tableKey, at: position, cells: cellsSpec }),
  fc.record({
    kind: fc.constant('updateMany' as const),
    table: tableKey,
    rows: fc.array(fc.record({ at: position, cells: cellsSpec }), { minLength: 2, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), table: tableKey, at: position }),
  fc.record({
    kind: fc.constant('deleteMany' as const),
    table: tableKey,
    at: fc.array(position, { minLength: 2, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('duplicate' as const), table: tableKey, at: position }),
);

describe('replaying the change log', () => {
  it('after random record writes on two linked tables, the log applied from empty gives every record as stored and as listed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const world = await newWorld();
        for (const o of ops) await apply(world, o);
        await poller.caughtUp();

        const log = await wholeLog(world.baseId);
        const { tables, anomalies } = replay(log);

        expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
        expect(anomalies).toEqual([]);
        for (const t of Object.values(world.tables)) {
          const replayed = Object.fromEntries(tables.get(t.tableId) ?? []);
          const fieldIds = await fieldIdsOf(world, t.tableId);
          expect(replayed).toEqual(await storedRecords(t.tableId, fieldIds));
          expect(replayed).toEqual(await listedRecords(world, t));
          expect(Object.keys(replayed).sort()).toEqual([...t.live].sort());
        }
      }),
      { numRuns: 15 },
    );
  }, 120_000);
});
