/**
 * The cells of a converted field (contract `teable-routes.md` "Field", `computed.md` 8): to a
 * plain type, every cell's text form (`cellFormat=text`) is written into the new definition as a
 * typecast write would be (what typecast cannot read becomes empty; unknown select names become
 * choices); to a formula, lookup or rollup, the cells are computed. Dependents, here and in other
 * tables, follow in the same write (`propagate`).
 */

import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ValidationError } from '#shared/core/errors.ts';
import type { Step } from '#shared/db/commit.ts';
import { queryRecords, type RecordItem } from '#shared/entities/records.ts';
import { dbFieldTypeOf } from '#shared/fields/db-field-type.ts';
import { choiceChanges } from '#shared/fields/define.ts';
import { isDerived } from '#shared/fields/dependencies.ts';
import type { Field, ReadContext, StoredCell, WriteContext } from '#shared/fields/field-types.ts';
import { isLinkField } from '#shared/fields/link-options.ts';
import { linkOptions, singleHere, singleThere } from '#shared/schema/link-fields.ts';
import { loadSchema, type TableSchema } from '#shared/schema/schema.ts';
import { convertRecords } from './cells.ts';
import { writeContextFor } from './context.ts';
import { type LinkWrite, linkTitlesFor, resolveLinks, titleIndex } from './link-cells.ts';
import { cellOf, NO_LINKS, renderCell } from './model.ts';
import { propagate, type Seed } from './propagate.ts';
import { recomputeItemSteps } from './recompute.ts';

/**
 * The steps that rewrite every record for the converted field, and the field as it must be stored
 * (with the choices the conversion added). `schema` is the table as it will be, holding `after`.
 */
export const convertedCellSteps = async (
  principal: Principal,
  located: Located,
  schema: TableSchema,
  before: Field,
  after: Field,
  now: Date,
  /** The table as it was (a link's titles are read through it). */
  original: TableSchema = schema,
  /** Computed fields the conversion breaks, of this table or others: their cells are emptied. */
  broken: readonly Broken[] = [],
): Promise<{ steps: Step[]; field: Field; values?: Map<string, StoredCell | undefined> }> => {
  const tableId = schema.table.id;
  const items = await queryRecords(tableId);
  const schemas = new Map([...broken.map((b) => [b.schema.table.id, b.schema] as const), [tableId, schema]]);
  // in creation order: a foreign record's other side lists its records as they were made, and the
  // choices a conversion to a select adds come in the order of the records that name them
  items.sort((a, b) => a.autoNumber - b.autoNumber);
  // a lookup of a link is computed like any lookup (its type is `link`, it holds no links)
  if (isLinkField(after)) {
    const ctx = await writeContextFor(principal, located, schema, false);
    const seeds = await toLinkSeeds(schema, items, before, after, ctx, original);
    const { steps } = await propagate(await withBrokenCells(seeds, broken), now, schemas);
    return { steps, field: after };
  }
  if (isDerived(after)) {
    const here = broken.find((b) => b.schema.table.id === tableId)?.fieldIds ?? [];
    const elsewhere = broken.filter((b) => b.schema.table.id !== tableId);
    const { steps } = await propagate(await withBrokenCells([], elsewhere), now, schemas);
    return {
      steps: [...(await recomputeItemSteps(schema, items, new Set([after.id, ...here]), now)), ...steps],
      field: after,
    };
  }
  const keep = keepsValues(before, after);
  // a select to a select of its kind: its cells follow the choices by id (renamed, removed)
  const choices = sameSelectKind(before, after) ? choiceMapping(before, after) : undefined;
  // else the old cells' text (a link's: its titles), typecast into the new definition
  const converted =
    keep || choices
      ? undefined
      : convertRecords(
          [after],
          textsOf(
            items,
            before,
            before.type === 'link' ? await linkTitlesFor(original, items, new Set([before.id])) : NO_LINKS,
          ).map((text) => ({ [after.id]: text === '' ? null : text })),
          {
            keyType: 'id',
            typecast: true,
            ctx: await writeContextFor(principal, located, schema, after.type === 'user'),
          },
        );
  const field = converted?.changedFields.find((f) => f.id === after.id) ?? after;
  const values = new Map<string, StoredCell | undefined>();
  const seeds = items.flatMap((item, i) => {
    const next = keep
      ? cellOf(item, before)
      : choices
        ? followChoices(cellOf(item, before), choices)
        : converted?.changes[i]?.get(after.id);
    values.set(item.id, next ?? undefined);
    if (after.notNull && (next === undefined || next === null))
      throw new ValidationError(
        `Field "${after.name}" is notNull: record ${item.id} would be empty after the conversion`,
      );
    if (JSON.stringify(next ?? null) === JSON.stringify(item[after.id] ?? null)) return [];
    const copy = structuredClone(item);
    if (next === undefined) delete copy[after.id];
    else copy[after.id] = next;
    return [{ tableId, item: copy, original: item, own: false, changed: new Set([after.id]) }];
  });
  const withField: TableSchema = {
    ...schema,
    fields: schema.fields.map((f) => (f.id === field.id ? field : f)),
  };
  const { steps } = await propagate(
    await withBrokenCells(seeds, broken),
    now,
    schemas.set(tableId, withField),
  );
  return { steps, field, values };
};

/** Types whose cells a conversion to them always rewrites (their values name choices or users). */
const REWRITTEN = new Set(['singleSelect', 'multipleSelect', 'user', 'rating']);

/**
 * Whether a conversion keeps the stored values as they are, as Teable's does: the value type is
 * the same (a number stays a number, a date stays a date, text stays text), one value each, not
 * stored as JSON, and the cells need no rewrite for the new type. So a number converted to a
 * number with another precision keeps all its digits, and a date converted to a date without a
 * time keeps its time. Long text to text is rewritten (its line breaks become spaces). Pure.
 */
export const keepsValues = (before: Field, after: Field): boolean =>
  // an attachment stays an attachment (its text form names files, it cannot be read back)
  (before.type === 'attachment' && after.type === 'attachment' && !before.isLookup && !after.isLookup) ||
  (!after.isComputed &&
    before.type !== 'longText' &&
    !REWRITTEN.has(after.type) &&
    before.cellValueType === after.cellValueType &&
    !before.isMultipleCellValue &&
    !after.isMultipleCellValue &&
    dbFieldTypeOf(before) !== 'JSON' &&
    dbFieldTypeOf(before) === dbFieldTypeOf(after));

const isSelect = (f: Field) => f.type === 'singleSelect' || f.type === 'multipleSelect';

/** A select converted to a select of the same kind (neither a lookup). Pure. */
const sameSelectKind = (before: Field, after: Field): boolean =>
  isSelect(after) && before.type === after.type && !before.isLookup && !after.isLookup;

/**
 * What each old choice name becomes in a select converted to one of its kind, as Teable follows
 * choices by id: renamed to the choice of its id, kept under a name still listed, else removed
 * (undefined). Pure.
 */
const choiceMapping = (before: Field, after: Field): Map<string, string | undefined> => {
  const { renamed, removed } = choiceChanges(before, after);
  return new Map<string, string | undefined>([
    ...renamed.map((r) => [r.from, r.to] as const),
    ...removed.map((name) => [name, undefined] as const),
  ]);
};

/** A select cell with its choices followed (`choiceMapping`); undefined when none is left. Pure. */
const followChoices = (cell: StoredCell | undefined, mapping: Map<string, string | undefined>) => {
  const follow = (name: string) => (mapping.has(name) ? mapping.get(name) : name);
  if (typeof cell === 'string') return follow(cell);
  if (!Array.isArray(cell)) return undefined;
  const names = [...new Set(cell.filter((v): v is string => typeof v === 'string').map(follow))].filter(
    (n): n is string => n !== undefined,
  );
  return names.length ? names : undefined;
};

/** Computed fields of one table that a conversion breaks (`hasError`), with the table as it will be. */
export interface Broken {
  schema: TableSchema;
  fieldIds: ReadonlySet<string>;
}

/**
 * The seeds with every record that holds a cell of a broken field computing it anew (a broken
 * field computes to nothing): a record already seeded gets it in its seed, others a seed of
 * their own, so each record is written once.
 */
const withBrokenCells = async (seeds: Seed[], broken: readonly Broken[]): Promise<Seed[]> => {
  const byRecord = new Map(seeds.map((seed) => [`${seed.tableId}/${seed.item.id}`, seed]));
  for (const { schema, fieldIds } of broken) {
    const tableId = schema.table.id;
    for (const item of await queryRecords(tableId)) {
      const filled = [...fieldIds].filter((id) => item[id] !== undefined);
      if (filled.length === 0) continue;
      const key = `${tableId}/${item.id}`;
      const seed = byRecord.get(key);
      const compute = new Set([...(seed?.compute ?? []), ...filled]);
      if (seed) byRecord.set(key, { ...seed, compute });
      else
        byRecord.set(key, {
          tableId,
          item: structuredClone(item),
          original: item,
          own: false,
          changed: new Set(),
          compute,
        });
    }
  }
  return [...byRecord.values()];
};

/** Each record's cell as text (`cellFormat=text`), `""` when empty. */
const textsOf = (items: readonly RecordItem[], field: Field, ctx: ReadContext): string[] =>
  items.map((item) => {
    const value = cellOf(item, field);
    return value === undefined ? '' : String(renderCell(value, field, 'text', ctx) ?? '');
  });

/**
 * The seeds of a conversion to a link. From a link of the same foreign table, each cell keeps its
 * records; else each cell's text (a link's: its titles) names foreign records by id or by title
 * (the foreign primary field's text, exact then ignoring case; comma-separated), as a typecast
 * write does; names that match nothing are dropped. A link to one record keeps the first, and a
 * foreign record only one record may link stays with the first record (in creation order) that
 * names it. The other side (the symmetric cells of the named records) is written as a link write
 * writes it. `schema` is the table as it will be (holding `after`, with its symmetric field id).
 */
const toLinkSeeds = async (
  schema: TableSchema,
  items: readonly RecordItem[],
  before: Field,
  after: Field,
  ctx: WriteContext,
  /** The table as it was (a link's titles are read through it). */
  original: TableSchema,
): Promise<Seed[]> => {
  const tableId = schema.table.id;
  const opts = linkOptions(after);
  const fromLink = isLinkField(before);
  const sameTable = fromLink && linkOptions(before).foreignTableId === opts.foreignTableId;
  // the other side kept (same symmetric field): the old cells are what it holds now
  const keptSide =
    sameTable && !!opts.symmetricFieldId && linkOptions(before).symmetricFieldId === opts.symmetricFieldId;
  const foreign = opts.foreignTableId === tableId ? schema : await loadSchema(opts.foreignTableId);
  const index = await titleIndex(foreign);
  // a link of another table: its cells' titles name the new table's records
  const texts = textsOf(
    items,
    before,
    fromLink && !sameTable ? await linkTitlesFor(original, items, new Set([before.id])) : NO_LINKS,
  );
  const converted = convertRecords(
    [after],
    texts.map((text) => ({ [after.id]: text === '' ? null : text })),
    { keyType: 'id', typecast: true, ctx },
  );
  // a foreign record one record only may link goes to the first (in creation order) that names it
  const taken = new Set<string>();
  const writes: LinkWrite[] = items.map((item, i) => {
    const named = sameTable
      ? idsOf(item[before.id])
      : [
          ...idsOf(converted.changes[i]?.get(after.id)),
          ...(converted.linkTitles[i]?.get(after.id) ?? []).flatMap((t) => index.find(t) ?? []),
        ];
    let ids = [...new Set(named.filter((id) => index.ids.has(id)))];
    if (singleThere(opts.relationship)) ids = ids.filter((id) => !taken.has(id));
    if (singleHere(opts.relationship)) ids = ids.slice(0, 1);
    for (const id of ids) taken.add(id);
    // unless its other side is kept, the record links nothing through the new field before
    const was: RecordItem = { ...item };
    if (!keptSide) delete was[after.id];
    return {
      recordId: item.id,
      before: was,
      cells: new Map([[after.id, ids.length ? ids : undefined]]),
    };
  });
  const { touched } = await resolveLinks(schema, schema.fields, writes);
  const seeds: Seed[] = items.flatMap((item, i) => {
    const w = writes[i] as LinkWrite;
    const copy = structuredClone(item);
    const changed = new Set<string>();
    for (const [fieldId, value] of w.cells) {
      // from a link, every linked record is rewritten: what reads through it may read it anew
      const same = JSON.stringify(value ?? null) === JSON.stringify(item[fieldId] ?? null);
      if (same && !(fromLink && fieldId === after.id && value !== undefined)) continue;
      if (value === undefined) delete copy[fieldId];
      else copy[fieldId] = value;
      changed.add(fieldId);
    }
    return changed.size ? [{ tableId, item: copy, original: item, own: false, changed }] : [];
  });
  for (const t of touched) seeds.push({ ...t, own: false });
  return seeds;
};

const idsOf = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];
