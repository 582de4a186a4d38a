/**
 * The view-order fast path: one page of a view in its manual order (ordering.md) without reading
 * whole records for the part skipped. The order is two sorted streams merged: the view's placed
 * records (`VORDER#<view>`, by order key) and every other record at its default key (the
 * default-order index `RECNUM#<table>` by autoNumber, entries marked placed in this view left
 * out). Both are read strongly consistent (a record written by a call that returned is listed),
 * concurrently, only their small key attributes; then the page's records are read in one batch.
 */
import { type Item, queryBetween } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { placeOfNumberEntry, placeOfViewEntry } from '#shared/entities/order-entries.ts';

/** Below this many entries one query (one page) of the default-order index is enough. */
const SPLIT_ABOVE = 4000;
/** Concurrent range reads of the default-order index for a deep page. */
const SPLITS = 16;

interface Entry {
  id: string;
  key: string;
}

const compare = (a: Entry, b: Entry) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

const notPlacedIn = (viewId: string) => ({
  expression: 'attribute_not_exists(pv) OR NOT contains(pv, :view)',
  values: { ':view': viewId },
});

/** The first `count` entries of the view's placed records, in order. */
const placedEntries = async (viewId: string, count: number): Promise<Entry[]> => {
  const { items } = await queryBetween({
    pk: keys.viewOrderOf(viewId).pk,
    limit: count,
    projection: ['sk', 'recordId'],
  });
  return items.map(placeOfViewEntry);
};

const numberEntries = (items: Item[]): Entry[] => items.map(placeOfNumberEntry);

/**
 * The first `count` records not placed in the view, by autoNumber. A deep page splits the
 * autoNumber range it probably needs into concurrent reads, then continues past it if deletes or
 * placements left it short.
 */
const unplacedEntries = async (
  tableId: string,
  viewId: string,
  count: number,
  maxAutoNumber: number,
): Promise<Entry[]> => {
  const pk = keys.recordNumbersOf(tableId).pk;
  const sk = (n: number) => keys.recordNumber(tableId, n).sk;
  const filter = notPlacedIn(viewId);
  const projection = ['sk', 'recordId'];
  if (count <= SPLIT_ABOVE || maxAutoNumber <= SPLIT_ABOVE) {
    const { items } = await queryBetween({ pk, limit: count, filter, projection });
    return numberEntries(items).slice(0, count);
  }
  const span = Math.min(maxAutoNumber, count);
  const width = Math.ceil(span / SPLITS);
  const starts = Array.from({ length: SPLITS }, (_, i) => i * width).filter((start) => start < span);
  const parts = await Promise.all(
    starts.map((start, i) =>
      queryBetween({
        pk,
        ...(i === 0 ? {} : { from: sk(start + 1) }),
        to: sk(Math.min(span, start + width)),
        filter,
        projection,
      }),
    ),
  );
  const entries = numberEntries(parts.flatMap((p) => p.items));
  if (entries.length < count && span < maxAutoNumber) {
    const { items } = await queryBetween({
      pk,
      from: sk(span + 1),
      limit: count - entries.length,
      filter,
      projection,
    });
    entries.push(...numberEntries(items));
  }
  return entries.slice(0, count);
};

/**
 * The record ids of positions `skip`..`skip + take` of a view's order. Reads at most
 * `skip + take` entries of each stream (only the key and record id of each).
 */
export const viewOrderPage = async (
  tableId: string,
  viewId: string,
  skip: number,
  take: number,
  maxAutoNumber: number,
): Promise<string[]> => {
  // Every record has its own autoNumber up to the table's counter: a skip past it is an empty
  // page, answered without walking the whole index (any skip up to 2^53 - 1 is accepted).
  if (skip > 0 && skip >= maxAutoNumber) return [];
  const count = skip + take;
  const [placed, unplaced] = await Promise.all([
    placedEntries(viewId, count),
    unplacedEntries(tableId, viewId, count, maxAutoNumber),
  ]);
  const merged = placed.length === 0 ? unplaced : [...placed, ...unplaced].sort(compare);
  return merged.slice(skip, skip + take).map((e) => e.id);
};
