/**
 * Keeping computed cells current across tables (computed.md 6). A write hands in the records it
 * changes (its own, and the other sides of its links); this follows the dependency graph from
 * them: formulas, lookups and rollups of the same record, then, through each table's
 * `dependents` (part of its schema), the records of other tables that read a changed cell
 * through a link — transitively, until nothing changes. Everything it changes lands in the
 * write's own commit, so a write and its recomputation are one atomic call.
 *
 * Reads: the records that depend on a changed cell (their ids come from the changed record's
 * link cells, so no query), and the foreign records their lookups read. A record nothing depends
 * on costs no read.
 */

import type { Step } from '#shared/db/commit.ts';
import {
  propagatedRecordOp,
  putRecordOp,
  queryRecordParts,
  type RecordItem,
  recordsByRefs,
} from '#shared/entities/records.ts';
import { computeOrder, foreignInputs, isDerived, sameTableInputs } from '#shared/fields/dependencies.ts';
import type { Field, ReadContext, StoredCell } from '#shared/fields/field-types.ts';
import { compileFieldFormula } from '#shared/fields/formula-resolve.ts';
import { isLinkLookup } from '#shared/fields/link-options.ts';
import { compileRollup, lookupIds } from '#shared/fields/lookup.ts';
import { fieldKind } from '#shared/fields/registry.ts';
import { cellBytes } from '#shared/fields/size.ts';
import type { CompiledFormula, FormulaRow } from '#shared/formula/compile.ts';
import type { EvalContext, Value } from '#shared/formula/formula-types.ts';
import { linkOptions } from '#shared/schema/link-fields.ts';
import { loadForeignSchema, primaryField, type TableSchema } from '#shared/schema/schema.ts';
import type { CellChanges } from './cells.ts';
import { formulaValue } from './formula-values.ts';
import { assertRecordFits, cellsBytes, cellsOfItem } from './limits.ts';
import { cellOf, NO_LINKS } from './model.ts';
import { groupCountSteps, type RecordMove, withEntrySteps } from './view-indexes/upkeep.ts';

/** One record a write starts from. */
export interface Seed {
  tableId: string;
  /** The record as it will be stored (a deleted record: as it was). */
  item: RecordItem;
  /** As read before the write; undefined for a record the write creates. */
  original: RecordItem | undefined;
  /** The write's own record: its computed cells join the write's own operation. */
  own: boolean;
  deleted?: boolean;
  /** Cells the write changed (written cells, link cells of the other side). */
  changed: ReadonlySet<string>;
  /** Computed fields to compute whatever changed (a backfill, a new record's). */
  compute?: ReadonlySet<string>;
}

/** What following the graph gives. */
export interface Propagation {
  /** Computed cells of the write's own records that changed, by record id. */
  own: Map<string, CellChanges>;
  /** Conditional puts of every other record that changed (link other sides and dependents). */
  steps: Step[];
  /** Records read to recompute (for the figures). */
  reads: number;
}

interface Tracked {
  tableId: string;
  item: RecordItem;
  original: RecordItem | undefined;
  own: boolean;
  deleted: boolean;
  /** Computed fields to compute in this record. */
  pending: Set<string>;
  /** Cells changed since their dependents were last followed. */
  fresh: Set<string>;
  /** Every cell changed by the write or its recomputation. */
  changed: Set<string>;
}

const refOf = (tableId: string, recordId: string) => `${tableId}/${recordId}`;

const idsOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** Safety bound: the graph is acyclic, so the loop ends long before this. */
const MAX_ROUNDS = 100;

/** Compiled expressions of a table, per field (compiled once per call). */
type Compiled = Map<string, CompiledFormula | undefined>;

/**
 * Follows the dependency graph from `seeds` and answers what else the write must store.
 * `schemas` overrides stored schemas (a schema change not yet stored: its backfill).
 */
export const propagate = async (
  seeds: readonly Seed[],
  now: Date,
  schemas: ReadonlyMap<string, TableSchema> = new Map(),
): Promise<Propagation> => {
  const schemaOf = (tableId: string) =>
    schemas.get(tableId) ? Promise.resolve(schemas.get(tableId) as TableSchema) : loadForeignSchema(tableId);
  const tracked = new Map<string, Tracked>();
  const foreign = new Map<string, RecordItem | null>();
  const compiled = new Map<string, Compiled>();
  // one-way links: the linking table read once per call, as a map from linked id to holders
  const reverse = new Map<string, Promise<Map<string, string[]>>>();
  let reads = 0;

  for (const seed of seeds) {
    const schema = await schemaOf(seed.tableId);
    const compute = new Set(seed.compute ?? []);
    if (!seed.original && !seed.deleted) for (const f of schema.fields) if (isDerived(f)) compute.add(f.id);
    tracked.set(refOf(seed.tableId, seed.item.id), {
      tableId: seed.tableId,
      item: seed.item,
      original: seed.original,
      own: seed.own,
      deleted: seed.deleted === true,
      pending: seed.deleted ? new Set() : compute,
      fresh: new Set(seed.changed),
      changed: new Set(seed.changed),
    });
  }

  /** A record of any table as this write leaves it (tracked), or as stored. */
  const current = (tableId: string, id: string): RecordItem | undefined => {
    const t = tracked.get(refOf(tableId, id));
    if (t) return t.deleted ? undefined : t.item;
    return foreign.get(refOf(tableId, id)) ?? undefined;
  };

  const load = async (refs: Iterable<string>) => {
    const missing = [...new Set(refs)].filter((r) => !tracked.has(r) && !foreign.has(r));
    if (missing.length === 0) return;
    reads += missing.length;
    const pairs = missing.map((r) => r.split('/') as [string, string]);
    const got = await recordsByRefs(pairs);
    for (const [i, record] of got.entries()) foreign.set(missing[i] as string, record ?? null);
  };

  for (let round = 0; ; round++) {
    if (round > MAX_ROUNDS) throw new Error('computed fields did not settle');
    // 1. follow fresh changes: same-record dependents, and holders in other tables
    const holders: { ref: string; fieldId: string }[] = [];
    for (const t of tracked.values()) {
      if (t.fresh.size === 0) continue;
      const schema = await schemaOf(t.tableId);
      const fresh = t.fresh;
      t.fresh = new Set();
      if (!t.deleted)
        for (const f of schema.fields)
          if (isDerived(f) && sameTableInputs(f).some((id) => fresh.has(id))) t.pending.add(f.id);
      for (const d of schema.dependents) {
        // a new record is linked from nothing yet but its own link cells' other sides (seeds)
        if (!t.original || !d.inputs.some((id) => fresh.has(id))) continue;
        const there = await schemaOf(d.tableId).catch(() => undefined);
        const link = there?.fields.find((f) => f.id === d.linkFieldId);
        if (!there || !link || !there.fields.some((f) => f.id === d.fieldId)) continue; // gone since
        // two links away: first the records of the middle table that hold this one
        let held: { item: RecordItem; original: RecordItem | undefined }[] = [t];
        if (d.via) {
          const middle = await schemaOf(d.via.tableId).catch(() => undefined);
          const farLink = middle?.fields.find((f) => f.id === d.via?.linkFieldId);
          if (!middle || !farLink) continue;
          const ids = await holdersOf(farLink, middle.table.id, t, reverse);
          await load(ids.map((id) => refOf(middle.table.id, id)));
          held = ids.flatMap((id) => {
            const item = current(middle.table.id, id);
            return item ? [{ item, original: item }] : [];
          });
        }
        for (const h of held)
          for (const id of await holdersOf(link, d.tableId, h, reverse))
            holders.push({ ref: refOf(d.tableId, id), fieldId: d.fieldId });
      }
    }
    await load(holders.map((h) => h.ref));
    for (const h of holders) {
      let t = tracked.get(h.ref);
      if (!t) {
        const item = foreign.get(h.ref);
        if (!item) continue;
        t = {
          tableId: h.ref.split('/')[0] as string,
          item: structuredClone(item),
          original: item,
          own: false,
          deleted: false,
          pending: new Set(),
          fresh: new Set(),
          changed: new Set(),
        };
        tracked.set(h.ref, t);
      }
      if (!t.deleted) t.pending.add(h.fieldId);
    }

    const work = [...tracked.values()].filter((t) => t.pending.size > 0);
    if (work.length === 0) break;

    // 2. read the foreign records the pending lookups, rollups and link formulas need
    const needed: string[] = [];
    for (const t of work) {
      const schema = await schemaOf(t.tableId);
      for (const f of schema.fields) {
        if (!t.pending.has(f.id)) continue;
        for (const reach of foreignInputs(f, schema.fields))
          for (const id of idsOf(t.item[reach.linkFieldId])) needed.push(refOf(reach.readTableId, id));
      }
    }
    await load(needed);
    // titles two links away: of the records a rolled-up link field links, of a looked-up link
    const far: string[] = [];
    for (const t of work) {
      const schema = await schemaOf(t.tableId);
      for (const f of schema.fields)
        if (t.pending.has(f.id)) far.push(...(await titleRefs(f, schema, t.item, current, schemaOf)));
    }
    await load(far);

    // 3. compute, in each table's dependency order
    for (const t of work) {
      const schema = await schemaOf(t.tableId);
      let exprs = compiled.get(t.tableId);
      if (!exprs) {
        exprs = new Map();
        compiled.set(t.tableId, exprs);
      }
      for (const field of computeOrder(schema.fields)) {
        if (!t.pending.has(field.id)) continue;
        t.pending.delete(field.id);
        const value = await computeCell(field, t, schema, exprs, current, schemaOf, now);
        if (same(t.item[field.id], value)) continue;
        if (value === undefined) delete t.item[field.id];
        else t.item[field.id] = value;
        t.changed.add(field.id);
        t.fresh.add(field.id);
        for (const g of schema.fields)
          if (isDerived(g) && sameTableInputs(g).includes(field.id)) t.pending.add(g.id);
      }
    }
  }

  const own = new Map<string, CellChanges>();
  const steps: Step[] = [];
  // the records changed here, per table, for the view indexes' group counts
  const moved = new Map<string, { schema: TableSchema; moves: RecordMove[] }>();
  for (const t of tracked.values()) {
    if (t.deleted || t.changed.size === 0) continue;
    if (t.own) {
      const schema = await schemaOf(t.tableId);
      const cells: CellChanges = new Map();
      for (const f of schema.fields)
        if (isDerived(f) && t.changed.has(f.id)) cells.set(f.id, t.item[f.id] as StoredCell | undefined);
      if (cells.size) own.set(t.item.id, cells);
      continue;
    }
    // Only records this request creates have no original, and they are its own.
    if (!t.original) continue;
    const put = await versionedPut(t, t.original, schemaOf, now);
    const schema = await schemaOf(t.tableId).catch(() => undefined);
    if (!schema) {
      steps.push(put); // a table gone: nothing to keep
      continue;
    }
    // the record's index entries move with it (joined), so the write keeps that table's indexes
    const move = { before: t.original, after: t.item };
    steps.push(...withEntrySteps(schema, move, [put]));
    const table = moved.get(t.tableId) ?? { schema, moves: [] };
    table.moves.push(move);
    moved.set(t.tableId, table);
  }
  for (const { schema, moves } of moved.values()) steps.push(...groupCountSteps(schema, moves, 'propagated'));
  return { own, steps, reads };
};

/**
 * The records of `tableId` whose link field `link` holds a record `t` (before or after the write):
 * the other side's cell when the link is two-way. A one-way link has no other side: its table is
 * read once per call (id and link cell only) into `reverse`, a map from linked id to holders.
 */
const holdersOf = async (
  link: Field,
  tableId: string,
  t: Pick<Tracked, 'item' | 'original'>,
  reverse: Map<string, Promise<Map<string, string[]>>>,
): Promise<string[]> => {
  const sym = linkOptions(link).symmetricFieldId;
  if (typeof sym === 'string') return [...new Set([...idsOf(t.item[sym]), ...idsOf(t.original?.[sym])])];
  const key = `${tableId}/${link.id}`;
  if (!reverse.has(key))
    reverse.set(
      key,
      queryRecordParts(tableId, [link.id]).then((items) => {
        const map = new Map<string, string[]>();
        for (const item of items)
          for (const id of idsOf(item[link.id])) map.set(id, [...(map.get(id) ?? []), item.id]);
        return map;
      }),
    );
  return (await reverse.get(key))?.get(t.item.id) ?? [];
};

/**
 * The records two links away whose titles computing `field` for `item` reads: for a rollup of a
 * link field, the records that field holds in the linked records; for a formula, the records its
 * referenced lookups of links hold.
 */
const titleRefs = async (
  field: Field,
  schema: TableSchema,
  item: RecordItem,
  current: (tableId: string, id: string) => RecordItem | undefined,
  schemaOf: (tableId: string) => Promise<TableSchema>,
): Promise<string[]> => {
  if (field.type === 'formula' && !field.isLookup)
    return sameTableInputs(field).flatMap((id) => {
      const ref = schema.fields.find((f) => f.id === id && isLinkLookup(f));
      return ref ? idsOf(item[ref.id]).map((r) => refOf(linkOptions(ref).foreignTableId, r)) : [];
    });
  const reach = field.type === 'rollup' ? lookupIds(field) : undefined;
  if (!reach) return [];
  const there = await schemaOf(reach.foreignTableId).catch(() => undefined);
  const farLink = there?.fields.find((f) => f.id === reach.lookupFieldId && f.type === 'link');
  if (!farLink) return [];
  return idsOf(item[reach.linkFieldId]).flatMap((id) => {
    const middle = current(reach.foreignTableId, id);
    return middle ? idsOf(middle[farLink.id]).map((r) => refOf(linkOptions(farLink).foreignTableId, r)) : [];
  });
};

/** The titles of records a link formula reads (the foreign primary field's text). */
const titleContext = async (
  fields: readonly Field[],
  current: (tableId: string, id: string) => RecordItem | undefined,
  schemaOf: (tableId: string) => Promise<TableSchema>,
): Promise<ReadContext> => {
  const primaries = new Map<string, { tableId: string; primary: Field }>();
  for (const f of fields) {
    // a link, or a lookup of one (its options are the looked-up link's)
    if (f.type !== 'link') continue;
    const tableId = linkOptions(f).foreignTableId;
    const schema = await schemaOf(tableId).catch(() => undefined);
    if (schema) primaries.set(f.id, { tableId, primary: primaryField(schema) });
  }
  return {
    linkTitle: (fieldId, recordId) => {
      const p = primaries.get(fieldId);
      const item = p ? current(p.tableId, recordId) : undefined;
      if (!p || !item) return undefined;
      const v = cellOf(item, p.primary);
      return v === undefined ? '' : fieldKind(p.primary.type).toText(v, p.primary, NO_LINKS);
    },
  };
};

/** One computed cell of a tracked record. */
const computeCell = async (
  field: Field,
  t: Tracked,
  schema: TableSchema,
  exprs: Compiled,
  current: (tableId: string, id: string) => RecordItem | undefined,
  schemaOf: (tableId: string) => Promise<TableSchema>,
  now: Date,
): Promise<StoredCell | undefined> => {
  if (field.hasError) return undefined;
  const ctx: EvalContext = {
    timeZone: zoneOf(field),
    now,
    record: {
      id: t.item.id,
      autoNumber: t.item.autoNumber,
      createdTime: t.item.createdTime,
      lastModifiedTime: t.item.lastModifiedTime,
    },
  };
  if (field.type === 'formula' && !field.isLookup) {
    if (!exprs.has(field.id))
      exprs.set(
        field.id,
        tryCompile(() => compileFieldFormula(field, schema.fields)),
      );
    const formula = exprs.get(field.id);
    if (!formula) return undefined;
    const byId = new Map(schema.fields.map((f) => [f.id, f]));
    const titles = await titleContext(
      formula.refs.map((id) => byId.get(id)).filter((f): f is Field => f !== undefined),
      current,
      schemaOf,
    );
    const row: FormulaRow = {
      value: (id) => {
        const f = byId.get(id);
        return f ? formulaValue(f, cellOf(t.item, f), titles) : null;
      },
      dateText: (id, iso) => {
        const f = byId.get(id);
        return f ? fieldKind(f.type).toText(iso, f, NO_LINKS) : iso;
      },
    };
    return formula.run(row, ctx) as StoredCell | undefined;
  }
  const reach = lookupIds(field);
  if (!reach) return undefined;
  const there = await schemaOf(reach.foreignTableId).catch(() => undefined);
  const lookedUp = there?.fields.find((f) => f.id === reach.lookupFieldId);
  const link = schema.fields.find((f) => f.id === reach.linkFieldId);
  if (!there || !lookedUp || !link) return undefined;
  const linked = idsOf(t.item[link.id])
    .map((id) => current(reach.foreignTableId, id))
    .filter((i): i is RecordItem => i !== undefined);
  if (field.isLookup) return lookupValue(field, lookedUp, linked);
  return rollupValue(
    field,
    lookedUp,
    link,
    linked,
    exprs,
    ctx,
    await titleContext([lookedUp], current, schemaOf),
  );
};

const tryCompile = (fn: () => CompiledFormula): CompiledFormula | undefined => {
  try {
    return fn();
  } catch {
    return undefined; // a broken definition (a field it reads is gone): its cells stay empty
  }
};

const zoneOf = (field: Field): string => {
  const zone = field.options.timeZone;
  if (typeof zone !== 'string') return 'UTC';
  return zone.toLowerCase() === 'utc' ? 'UTC' : zone;
};

/** A lookup's value (4): the looked-up cells in link order, lists flattened, empties removed. */
const lookupValue = (field: Field, lookedUp: Field, linked: RecordItem[]): StoredCell | undefined => {
  const items: unknown[] = [];
  for (const record of linked) {
    const cell = cellOf(record, lookedUp);
    if (cell === undefined) continue;
    if (Array.isArray(cell)) items.push(...cell.filter((v) => v !== null && v !== undefined && v !== ''));
    else if (cell !== '') items.push(cell);
  }
  if (items.length === 0) return undefined;
  return (field.isMultipleCellValue ? items : items[0]) as StoredCell;
};

/** A rollup's value (5): its expression over the linked values, empties kept. */
const rollupValue = (
  field: Field,
  lookedUp: Field,
  link: Field,
  linked: RecordItem[],
  exprs: Compiled,
  ctx: EvalContext,
  titles: ReadContext,
): StoredCell | undefined => {
  if (linked.length === 0) return undefined;
  const values: Value[] = [];
  for (const record of linked) {
    const v = formulaValue(lookedUp, cellOf(record, lookedUp), titles);
    if (Array.isArray(v)) values.push(...v);
    else values.push(v);
  }
  const several = link.isMultipleCellValue === true || lookedUp.isMultipleCellValue === true;
  if (!several && (values[0] === null || values[0] === undefined)) return undefined;
  if (!exprs.has(field.id))
    exprs.set(
      field.id,
      tryCompile(() =>
        compileRollup(field.options.expression, {
          cellValueType: lookedUp.cellValueType,
          isMultipleCellValue: several,
        }),
      ),
    );
  const rollup = exprs.get(field.id);
  if (!rollup) return undefined;
  const row: FormulaRow = {
    value: (id) => (id === 'values' ? (several ? values : (values[0] ?? null)) : null),
    dateText: (_id, iso) => iso,
  };
  return rollup.run(row, ctx) as StoredCell | undefined;
};

/**
 * The put of a record this write changes besides its own: on the condition that nobody changed it
 * since it was read; undo puts it back. A cell grown by the change (a symmetric link cell) must
 * still fit the record. Stamped with the write's time (`now`, the time its own records take).
 */
const versionedPut = async (
  t: Tracked,
  original: RecordItem,
  schemaOf: (tableId: string) => Promise<TableSchema>,
  now: Date,
): Promise<Step> => {
  const schema = await schemaOf(t.tableId).catch(() => undefined);
  const was = new Map(cellsOfItem(original));
  const after = cellsOfItem(t.item);
  assertRecordFits(
    `Record ${t.item.id} of table ${t.tableId}`,
    after,
    (id) => schema?.fields.find((f) => f.id === id),
    {
      written: new Set(after.filter(([id, v]) => cellBytes(v) > cellBytes(was.get(id))).map(([id]) => id)),
      bytesBefore: cellsBytes(was),
    },
  );
  return {
    // written by propagation alone: the change log marks its changes computed
    op: propagatedRecordOp(t.item, original, now.toISOString()),
    undo: putRecordOp(original),
  };
};
