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
import { queryAll } from '#shared/db/client.ts';
import type { Step } from '#shared/db/commit.ts';
import { keys } from '#shared/db/keys.ts';
import { isDerived } from '#shared/fields/dependencies.ts';
import type { Field } from '#shared/fields/types.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { convertRecords } from './cells.ts';
import { writeContextFor } from './context.ts';
import { cellOf, NO_LINKS, type RecordItem, renderCell } from './model.ts';
import { propagate } from './propagate.ts';

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
): Promise<{ steps: Step[]; field: Field }> => {
  const tableId = schema.table.id;
  const items = (await queryAll(keys.recordsOf(tableId))) as RecordItem[];
  if (isDerived(after)) {
    const { steps } = await propagate(
      items.map((item) => ({
        tableId,
        item: structuredClone(item),
        original: item,
        own: false,
        changed: new Set<string>(),
        compute: new Set([after.id]),
      })),
      now,
      new Map([[tableId, schema]]),
    );
    return { steps, field: after };
  }
  // the old cells' text, typecast into the new definition
  const texts = items.map((item) => {
    const value = cellOf(item, before);
    return value === undefined ? '' : String(renderCell(value, before, 'text', NO_LINKS) ?? '');
  });
  const ctx = await writeContextFor(principal, located, schema, after.type === 'user');
  const converted = convertRecords(
    [after],
    texts.map((text) => ({ [after.id]: text === '' ? null : text })),
    { keyType: 'id', typecast: true, ctx },
  );
  const field = converted.changedFields.find((f) => f.id === after.id) ?? after;
  const seeds = items.flatMap((item, i) => {
    const next = converted.changes[i]?.get(after.id);
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
  const { steps } = await propagate(seeds, now, new Map([[tableId, withField]]));
  return { steps, field };
};
