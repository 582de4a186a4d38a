import * as z from 'zod/mini';
import { displayName, idOf, listOf, querySingle, text } from '#shared/core/validation.ts';
import { STATISTIC_FUNCS } from '#shared/query/statistics.ts';
import { VIEW_TYPES } from '#shared/schema/schema.ts';
import { FIELD_KEY_TYPES } from './schema.ts';

/** Path of routes under `/base/{baseId}/table/{tableId}`. */
export const baseTableParams = z.object({ baseId: idOf('base'), tableId: idOf('table') });
/** Path of routes under `/table/{tableId}`. */
export const tableParams = z.object({ tableId: idOf('table') });

export const fieldKeyTypeSchema = z.enum(FIELD_KEY_TYPES);
export const cellFormatSchema = z.enum(['json', 'text']);
export const optionalQueryKeyType = z.optional(querySingle(fieldKeyTypeSchema));

/** A JSON object (field definitions and record fields are checked further by the field layer). */
export const jsonObject = z.record(z.string(), z.unknown());

const sortItem = z.object({ fieldId: z.string(), order: z.enum(['asc', 'desc']) });

/** A view's sort items (`PUT …/manual-sort` too); field references are checked against the table. */
export const viewSortItems = listOf(sortItem, 0, 50);
/** A view's sort, or null for none. */
export const viewSort = z.nullable(
  z.object({ sortObjs: viewSortItems, manualSort: z.optional(z.boolean()) }),
);
/** A view's group levels (at most 3, checked with the fields), or null for none. */
export const viewGroup = z.nullable(listOf(sortItem, 0, 10));

/** One column's metadata as `PUT …/column-meta` sends it: every part optional, nothing else. */
export const columnMetaPatch = z.strictObject({
  order: z.optional(z.number()),
  width: z.optional(z.number()),
  hidden: z.optional(z.boolean()),
  visible: z.optional(z.boolean()),
  required: z.optional(z.boolean()),
  statisticFunc: z.optional(z.nullable(z.enum(STATISTIC_FUNCS))),
});

/** The parts of a view a caller may write; field references are checked against the table. */
export const viewWrite = {
  name: z.optional(displayName),
  filter: z.optional(z.nullable(jsonObject)),
  sort: z.optional(viewSort),
  group: z.optional(viewGroup),
  columnMeta: z.optional(
    z.record(
      z.string(),
      z.object({
        order: z.optional(z.number()),
        width: z.optional(z.number()),
        hidden: z.optional(z.boolean()),
      }),
    ),
  ),
  options: z.optional(jsonObject),
};

export const viewCreate = z.object({
  type: z.optional(z.enum(VIEW_TYPES)),
  // a view is made with its description (Teable's `IViewRo`), as it is renamed with one
  description: z.optional(text(2000)),
  ...viewWrite,
});

/** A table's database name (create and `PUT …/db-table-name`). */
export const dbTableNameSchema = z
  .string()
  .check(z.regex(/^[A-Za-z_]\w{0,62}$/, { error: 'must match ^[A-Za-z_]\\w{0,62}$' }));

export const tableMeta = {
  name: z.optional(displayName),
  description: z.optional(z.nullable(text(2000))),
  icon: z.optional(z.nullable(text(100))),
};
