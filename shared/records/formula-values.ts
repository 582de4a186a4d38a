/**
 * How a formula sees a stored cell (computed.md 1.3): the bridge between the record layer's
 * cells and the formula engine's values.
 */
import type { Field, ReadContext, StoredCell } from '#shared/fields/field-types.ts';
import type { Value } from '#shared/formula/formula-types.ts';

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
  // a link, or a lookup of one: titles (the ids are resolved through the read context)
  if (field.type === 'link') {
    const titles = (Array.isArray(cell) ? cell : [cell])
      .map((id) => ctx.linkTitle(field.id, String(id)))
      .filter((t): t is string => t !== undefined);
    if (field.isMultipleCellValue) return titles;
    return titles[0] ?? null;
  }
  if (Array.isArray(cell)) return (cell as unknown[]).map(itemText);
  return itemText(cell);
};
