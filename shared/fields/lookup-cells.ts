/**
 * Lookup cells as answered (computed.md 3.3, 4): a lookup renders as the type it looks up, with
 * its own (copied) options. A multiple lookup stores the looked-up cells' items flattened; each
 * item is rendered with the kind of `field.type` as if it were a single cell of that type (in a
 * one-item list when that type holds lists: multipleSelect, a multiple user, a oneMany/manyMany
 * link, attachment), and the results are flattened again. Pure: no AWS import.
 *
 * Link items are record ids; their titles come from `ctx.linkTitle(<the lookup's id>, id)`.
 * Empty items (and link ids without a title) are left out; nothing left is an empty cell.
 */

import type { Field, FieldKind, ReadContext, StoredCell } from './field-types.ts';
import { kindOf } from './registry.ts';
import { resultText } from './result-options.ts';

const isEmptyItem = (item: unknown): boolean =>
  item === undefined || item === null || item === '' || (Array.isArray(item) && item.length === 0);

/**
 * The stored items of a lookup cell: a list's items, a single value as one item. A single
 * lookup's cell is the looked-up cell itself (a single link's `[id]` too, as its own item list).
 */
const itemsOf = (value: StoredCell | undefined): unknown[] => {
  if (isEmptyItem(value)) return [];
  return (Array.isArray(value) ? value : [value]).filter((item) => !isEmptyItem(item));
};

/** Renders every item with `render` (given the cell an item stands for) and flattens lists the kind answers. */
const renderItems = <T>(
  value: StoredCell | undefined,
  field: Field,
  render: (cell: StoredCell, kind: FieldKind | undefined) => T | T[] | undefined,
): T[] => {
  const kind = kindOf(field.type);
  const listKind = kind?.isMultipleCellValue(field.options) === true;
  const out: T[] = [];
  for (const item of itemsOf(value)) {
    const rendered = render((listKind ? [item] : item) as StoredCell, kind);
    if (Array.isArray(rendered)) {
      for (const r of rendered) if (!isEmptyItem(r)) out.push(r);
    } else if (!isEmptyItem(rendered)) out.push(rendered as T);
  }
  return out;
};

/**
 * A lookup cell's JSON value (`cellFormat=json`): each item as the looked-up type answers it
 * (`{id, title}` for a link item, the user object, the attachment with its defaults…), a list when
 * `field.isMultipleCellValue`, else the single value; undefined for an empty cell.
 */
export const lookupToJson = (value: StoredCell | undefined, field: Field, ctx: ReadContext): unknown => {
  const items = renderItems<unknown>(value, field, (cell, kind) =>
    kind ? (kind.toJson(cell, field, ctx) as unknown) : cell,
  );
  if (items.length === 0) return undefined;
  return field.isMultipleCellValue ? items : items[0];
};

/**
 * A lookup cell's text (`cellFormat=text`, search): each item as the looked-up type renders it
 * with the lookup's options (number formatting, date formatting, link titles…), joined by `, `;
 * `""` for an empty cell.
 */
export const lookupToText = (value: StoredCell | undefined, field: Field, ctx: ReadContext): string => {
  const texts = renderItems<string>(value, field, (cell, kind) =>
    kind ? kind.toText(cell, field, ctx) : resultText(cell, field),
  );
  return field.isMultipleCellValue ? texts.join(', ') : (texts[0] ?? '');
};
