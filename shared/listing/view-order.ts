/**
 * The view-order fast path: one page of a view in its manual order (ordering.md) without reading
 * whole records for the part skipped. The order is two sorted streams merged: the view's placed
 * records (`VORDER#<view>`, by order key) and every other record at its default key (the
 * default-order index `RECNUM#<table>` by autoNumber, entries marked placed in this view left
 * out). Both are read strongly consistent (a record written by a call that returned is listed),
 * concurrently, only their small key attributes; then the page's records are read in one batch.
 */
import { firstPlacesOfView, unplacedPlacesBetween } from '#shared/entities/order-entries.ts';

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

/** The first `count` entries of the view's placed records, in order. */
const placedEntries = (viewId: string, count: number): Promise<Entry[]> => firstPlacesOfView(viewId, count);

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
  if (count <= SPLIT_ABOVE || maxAutoNumber <= SPLIT_ABOVE)
    return (await unplacedPlacesBetween(tableId, viewId, { limit: count })).slice(0, count);
  const span = Math.min(maxAutoNumber, count);
  const width = Math.ceil(span / SPLITS);
  const starts = Array.from({ length: SPLITS }, (_, i) => i * width).filter((start) => start < span);
  const parts = await Promise.all(
    starts.map((start, i) =>
      unplacedPlacesBetween(tableId, viewId, {
        ...(i === 0 ? {} : { from: start + 1 }),
        to: Math.min(span, start + width),
      }),
    ),
  );
  const entries = parts.flat();
  if (entries.length < count && span < maxAutoNumber)
    entries.push(
      ...(await unplacedPlacesBetween(tableId, viewId, { from: span + 1, limit: count - entries.length })),
    );
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
