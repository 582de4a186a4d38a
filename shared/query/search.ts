/**
 * Search (contract `listing.md` section 5). Pure: no AWS import.
 *
 * A cell matches when its `cellFormat=text` rendering (`fieldKind(type).toText`) contains the
 * searched value, ignoring case (tested with a case-insensitive pattern, which makes no lower-cased
 * copies). Texts are worked out only when needed and remembered per field
 * for repeating values (numbers, dates, choices, links), and a field whose rendering cannot hold
 * one of the searched characters (a number field searched for `abc`) is never rendered at all.
 * What differs per field type (the rendering, its characters, the default search list, the
 * cost) comes from the kind's query facts (`FieldKind.query`, `fieldQuery`).
 *
 * Decisions where the contract is silent: fields named explicitly in `search[1]` are searched
 * whatever their type and visibility (the exclusions apply to the default list); repeated names
 * count once, in first-named order; an empty search value searches nothing (no hits, nothing
 * hidden).
 */

import { ValidationError } from '#shared/core/errors.ts';
import type { Field, ReadContext, StoredCell } from '#shared/fields/field-types.ts';
import { isEmptyCell, textOf } from '#shared/fields/kind-helpers.ts';
import { type FieldQuery, fieldQuery } from '#shared/fields/query-facts.ts';
import type { QueryContext, Row, SearchSpec } from './query-types.ts';
import { fieldOf } from './sort.ts';

const fieldList = (fields: ReadonlyMap<string, Field> | readonly Field[]): Field[] =>
  Array.isArray(fields) ? [...fields] : [...(fields as ReadonlyMap<string, Field>).values()];

/** True for fields left out of a search of all fields (checkbox, button and date fields: their kind says). */
const skippedByDefault = (field: Field): boolean => !fieldQuery(field).searchedByDefault;

/**
 * The fields a search reads, in search-field order: `fieldsText` is comma-separated field ids or
 * names (an unknown one is a 400); empty or absent means every visible field except checkbox,
 * button and date fields.
 */
export const searchFieldIds = (
  fieldsText: string | undefined,
  fields: ReadonlyMap<string, Field> | readonly Field[],
  visibleFieldIds: readonly string[],
): string[] => {
  const list = fieldList(fields);
  const byId = new Map(list.map((f) => [f.id, f]));
  const names = (fieldsText ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) {
    return visibleFieldIds.filter((id) => {
      const field = byId.get(id);
      return field !== undefined && !skippedByDefault(field);
    });
  }
  const byName = new Map<string, Field>();
  for (const f of list) if (!byName.has(f.name)) byName.set(f.name, f);
  const ids: string[] = [];
  for (const name of names) {
    const field = byId.get(name) ?? byName.get(name);
    if (!field) throw new ValidationError(`Search field ${name} not found`);
    if (!ids.includes(field.id)) ids.push(field.id);
  }
  return ids;
};

/**
 * The characters a field's text rendering can hold (lower-cased), or undefined when it may hold
 * anything (its query facts say; a lookup's list may hold anything). Only used to skip fields
 * that cannot match, so it must never leave a character out.
 */
const alphabetOf = (query: FieldQuery): string | undefined => query.textAlphabet();

const canHold = (alphabet: string | undefined, needle: string): boolean => {
  if (alphabet === undefined) return true;
  for (const ch of needle) if (!alphabet.includes(ch)) return false;
  return true;
};

/** Decides whether one cell of a field matches. */
type CellTest = (cell: StoredCell | undefined) => boolean;

/** A cache of answers per key (a choice name, a title, a record id, a number…). */
const memoOf = <K>(compute: (key: K) => boolean): ((key: K) => boolean) => {
  const answers = new Map<K, boolean>();
  return (key) => {
    let hit = answers.get(key);
    if (hit === undefined) {
      hit = compute(key);
      answers.set(key, hit);
    }
    return hit;
  };
};

/**
 * How to test one field's cells, or undefined when no cell can match. Lists render as their items
 * joined by `, ` (`,` for attachments); a needle with no comma, no double quote and no leading
 * space cannot match across two items or a list's quoting, so it matches the list exactly when it
 * matches one item's text, and item texts repeat (choices, titles) so their answers are cached.
 */
const cellTestOf = (
  field: Field,
  query: FieldQuery,
  needle: string,
  contains: (text: string) => boolean,
  readCtx: ReadContext,
): CellTest | undefined => {
  if (!canHold(alphabetOf(query), needle)) return undefined;
  const toText = query.toText;
  const render = (cell: StoredCell): boolean => contains(toText(cell, field, readCtx));
  const itemwise = !needle.includes(',') && !needle.includes('"') && !needle.startsWith(' ');
  // a lookup renders item by item as the type it looks up (`lookupToText`)
  if (field.isLookup) return (cell) => !isEmptyCell(cell) && render(cell as StoredCell);
  switch (query.valueClass) {
    case 'text':
      return (cell) =>
        typeof cell === 'string' ? contains(cell) : !isEmptyCell(cell) && render(cell as StoredCell);
    case 'select':
      // a single choice repeats: one answer per distinct value, as numbers and dates below
      return query.isMultiple
        ? itemsTest(field, contains, toText, render, itemwise, readCtx)
        : byValueTest(render);
    case 'user':
      return itemsTest(field, contains, toText, render, itemwise, readCtx);
    case 'link': {
      const byId = memoOf((id: string) => {
        const title = readCtx.linkTitle(field.id, id);
        return title !== undefined && contains(title);
      });
      return (cell) => {
        if (isEmptyCell(cell)) return false;
        if (itemwise && Array.isArray(cell)) {
          for (const id of cell) if (typeof id === 'string' && byId(id)) return true;
          return false;
        }
        return render(cell as StoredCell);
      };
    }
    case 'attachment':
      return (cell) => !isEmptyCell(cell) && render(cell as StoredCell);
    default:
      return byValueTest(render);
  }
};

/** Numbers, dates, single choices, ratings…: one answer per distinct value. */
const byValueTest = (render: (cell: StoredCell) => boolean): CellTest => {
  const byValue = memoOf((cell: StoredCell) => render(cell));
  return (cell) => {
    if (isEmptyCell(cell)) return false;
    return typeof cell === 'object' ? render(cell as StoredCell) : byValue(cell as StoredCell);
  };
};

/** Multiple choices and users, item by item: a choice name or a user's title. */
const itemsTest = (
  field: Field,
  contains: (text: string) => boolean,
  toText: FieldQuery['toText'],
  render: (cell: StoredCell) => boolean,
  itemwise: boolean,
  readCtx: ReadContext,
): CellTest => {
  // one item's text: a choice name or a user's title (`textOf`, as the renderers use)
  const item = memoOf((text: string) => contains(text));
  const wholeList = memoOf((key: string) => contains(key));
  // a user's text is its title; anything else goes through `textOf` as the renderer does
  const itemText = (v: unknown): string =>
    typeof v === 'string'
      ? v
      : typeof v === 'object' && v !== null && typeof (v as { title?: unknown }).title === 'string'
        ? (v as { title: string }).title
        : textOf(v);
  return (cell) => {
    if (isEmptyCell(cell)) return false;
    if (!Array.isArray(cell)) return item(itemText(cell));
    if (itemwise) {
      for (const v of cell) if (item(itemText(v))) return true;
      return false;
    }
    return cell.every((v) => typeof v === 'string')
      ? wholeList(toText(cell, field, readCtx))
      : render(cell as StoredCell);
  };
};

/** A compiled search: which of a row's search fields match. */
export interface SearchMatcher {
  /** The search fields in search-field order. */
  fieldIds: readonly string[];
  /** True when at least one search field of the row matches. */
  matches(row: Row): boolean;
  /** The row's matching search fields, in search-field order. */
  hitFieldIds(row: Row): string[];
}

/** Compiles a search for many rows; undefined when it searches nothing (empty value). */
export const compileSearch = (spec: SearchSpec, ctx: QueryContext): SearchMatcher | undefined => {
  if (spec.value === '') return undefined;
  const needle = spec.value.toLowerCase();
  // a case-insensitive pattern tests without making a lower-cased copy of every text
  const pattern = new RegExp(spec.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  const contains = (text: string): boolean => pattern.test(text);
  const readCtx: ReadContext = { linkTitle: ctx.linkTitle };
  const tests: { fieldId: string; test: CellTest; cost: number }[] = [];
  for (const fieldId of spec.fieldIds) {
    const field = fieldOf(fieldId, ctx);
    const query = fieldQuery(field);
    const test = cellTestOf(field, query, needle, contains, readCtx);
    // cheapest first, so `matches` stops early at little cost
    if (test) tests.push({ fieldId, test, cost: query.searchCost });
  }
  const cheapFirst = [...tests].sort((x, y) => x.cost - y.cost);
  return {
    fieldIds: spec.fieldIds,
    matches(row) {
      for (const { fieldId, test } of cheapFirst) if (test(row.cells[fieldId])) return true;
      return false;
    },
    hitFieldIds(row) {
      const hits: string[] = [];
      for (const { fieldId, test } of tests) if (test(row.cells[fieldId])) hits.push(fieldId);
      return hits;
    },
  };
};
