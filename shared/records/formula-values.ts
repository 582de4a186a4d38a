/**
 * Computed cells of a table's own records (computed.md 6): formulas evaluated over a record's
 * cells after a write, in dependency order, so the stored values and the write's answer are
 * current. The formula engine is pure; this module feeds it records and collects the changes.
 */
import { formatDate } from '#shared/core/format.ts';
import { computeOrder } from '#shared/fields/dependencies.ts';
import { dateFormattingOf } from '#shared/fields/kinds/date.ts';
import { compileFieldFormula } from '#shared/fields/kinds/formula.ts';
import { resultText } from '#shared/fields/result-options.ts';
import type { Field, ReadContext, StoredCell } from '#shared/fields/types.ts';
import type { CompiledFormula, FormulaRow, StoredValue } from '#shared/formula/compile.ts';
import type { EvalContext, Value } from '#shared/formula/types.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import type { CellChanges } from './cells.ts';
import { linkTitlesFor } from './links.ts';
import { cellOf, type RecordItem } from './model.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** An item's text as a formula sees it: a user's title, an attachment's name, a link item's title. */
const itemText = (item: unknown): Value => {
  if (isObject(item)) {
    if (typeof item.title === 'string') return item.title;
    if (typeof item.name === 'string') return item.name;
    return null;
  }
  return item as Value;
};

/** A stored cell as the formula sees it (computed.md 1.3). */
export const formulaValue = (field: Field, cell: StoredCell | undefined, ctx: ReadContext): Value => {
  if (cell === undefined) return null;
  if (field.type === 'link' && !field.isLookup) {
    const titles = (Array.isArray(cell) ? cell : [cell])
      .map((id) => ctx.linkTitle(field.id, String(id)))
      .filter((t): t is string => t !== undefined);
    if (field.isMultipleCellValue) return titles;
    return titles[0] ?? null;
  }
  if (Array.isArray(cell)) return (cell as unknown[]).map(itemText);
  return itemText(cell);
};

/** A date field's text under its formatting (what `{Due} & ""` gives). */
const dateTextOf = (field: Field | undefined, iso: string): string => {
  if (!field) return iso;
  if (field.type === 'formula' || field.type === 'rollup') return resultText(iso, field);
  return formatDate(iso, dateFormattingOf(field));
};

/** The formulas of a table, compiled once per write; a broken one (hasError) computes nothing. */
export interface TableFormulas {
  ordered: { field: Field; compiled: CompiledFormula | undefined }[];
  /** Link fields whose titles a formula reads. */
  linkInputs: Set<string>;
}

/** The table's formulas in compute order, compiled. */
export const tableFormulas = (schema: TableSchema): TableFormulas => {
  const byId = new Map(schema.fields.map((f) => [f.id, f]));
  const ordered = computeOrder(schema.fields)
    .filter((f) => f.type === 'formula')
    .map((field) => {
      let compiled: CompiledFormula | undefined;
      try {
        compiled = field.hasError ? undefined : compileFieldFormula(field, schema.fields);
      } catch {
        compiled = undefined; // a reference to a deleted field: the cells stay empty
      }
      return { field, compiled };
    });
  const linkInputs = new Set(
    ordered.flatMap((o) => o.compiled?.refs ?? []).filter((id) => byId.get(id)?.type === 'link'),
  );
  return { ordered, linkInputs };
};

const sameValue = (a: unknown, b: unknown): boolean =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Evaluates the table's formulas over records as they will be stored (`items`, each with its new
 * cells applied), in dependency order: each record's item gets the new values, and the answer
 * lists, per record id, the formula cells that changed (undefined clears one).
 */
export const computeFormulas = async (
  schema: TableSchema,
  items: RecordItem[],
  now: Date,
  formulas: TableFormulas = tableFormulas(schema),
): Promise<Map<string, CellChanges>> => {
  const changes = new Map<string, CellChanges>();
  if (formulas.ordered.length === 0 || items.length === 0) return changes;
  const byId = new Map(schema.fields.map((f) => [f.id, f]));
  const titles = formulas.linkInputs.size
    ? await linkTitlesFor(schema, items, formulas.linkInputs)
    : undefined;
  const readCtx: ReadContext = titles ?? { linkTitle: () => undefined };
  for (const item of items) {
    const row: FormulaRow = {
      value: (id) => {
        const field = byId.get(id);
        return field ? formulaValue(field, cellOf(item, field), readCtx) : null;
      },
      dateText: (id, iso) => dateTextOf(byId.get(id), iso),
    };
    const ctx: EvalContext = {
      timeZone: 'UTC',
      now,
      record: {
        id: item.id,
        autoNumber: item.autoNumber,
        createdTime: item.createdTime,
        lastModifiedTime: item.lastModifiedTime,
      },
    };
    const changed: CellChanges = new Map();
    for (const { field, compiled } of formulas.ordered) {
      const zone = field.options.timeZone;
      const value: StoredValue | undefined = compiled?.run(row, {
        ...ctx,
        timeZone: typeof zone === 'string' ? (zone.toLowerCase() === 'utc' ? 'UTC' : zone) : 'UTC',
      });
      if (sameValue(item[field.id], value)) continue;
      if (value === undefined) delete item[field.id];
      else item[field.id] = value;
      changed.set(field.id, value);
    }
    if (changed.size) changes.set(item.id, changed);
  }
  return changes;
};
