import { type Item, queryBetween, queryRange, type TransactOp } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { defaultOrderKey } from '#shared/ordering/order-keys.ts';
import { text } from './attributes.ts';

/**
 * A record's place in an order, as read from an index entry: its id and its order key. Two kinds
 * of entry: a view's manual order (`VORDER#<viw>`, sort key `<order key>#<record>`) and the
 * table's default order (`RECNUM#<tbl>`, sort key the padded autoNumber, whose order key is
 * `defaultOrderKey(autoNumber)`).
 */
export interface Place {
  id: string;
  key: string;
}

/** The place a manual-order entry holds. */
export const placeOfViewEntry = (item: Item): Place => ({
  id: text(item.recordId),
  key: keys.orderKeyOfEntry(text(item.sk)),
});

/** The place a default-order entry holds. */
export const placeOfNumberEntry = (item: Item): Place => ({
  id: text(item.recordId),
  key: defaultOrderKey(keys.autoNumberOfEntry(text(item.sk))),
});

/** Default-order entries of records with no place of their own in a view (`pv` lacks it). */
const notPlacedIn = (viewId: string) => ({
  expression: 'attribute_not_exists(pv) OR NOT contains(pv, :view)',
  values: { ':view': viewId },
});

/** What a page of order entries reads: only the key and the record id. */
const PLACE_PROJECTION = ['sk', 'recordId'];

/** The first `limit` places of a view's manual order, in order (strongly consistent, keys only). */
export const firstPlacesOfView = async (viewId: string, limit: number): Promise<Place[]> => {
  const { items } = await queryBetween({
    pk: keys.viewOrderOf(viewId).pk,
    limit,
    projection: PLACE_PROJECTION,
  });
  return items.map(placeOfViewEntry);
};

/**
 * The default-order places of records not placed in a view, autoNumbers `from`..`to` (both
 * inclusive, either may be absent), up to `limit` when given (strongly consistent, keys only).
 */
export const unplacedPlacesBetween = async (
  tableId: string,
  viewId: string,
  range: { from?: number; to?: number; limit?: number },
): Promise<Place[]> => {
  const { items } = await queryBetween({
    pk: keys.recordNumbersOf(tableId).pk,
    ...(range.from === undefined ? {} : { from: keys.recordNumber(tableId, range.from).sk }),
    ...(range.to === undefined ? {} : { to: keys.recordNumber(tableId, range.to).sk }),
    ...(range.limit === undefined ? {} : { limit: range.limit }),
    filter: notPlacedIn(viewId),
    projection: PLACE_PROJECTION,
  });
  return items.map(placeOfNumberEntry);
};

/**
 * Up to `limit` places of a view's manual order on one side of an entry (its order key and
 * record id), nearest first.
 */
export const placesBesideEntry = async (
  viewId: string,
  at: { key: string; id: string },
  side: 'before' | 'after',
  limit: number,
): Promise<Place[]> => {
  const entry = keys.viewOrderEntry(viewId, at.key, at.id).sk;
  const items = await queryRange({
    pk: keys.viewOrderOf(viewId).pk,
    ...(side === 'before' ? { below: entry } : { above: entry }),
    limit,
  });
  return items.map(placeOfViewEntry);
};

/**
 * Up to `limit` default-order places of records not placed in a view, nearest first: below
 * autoNumber `first` (`before`) or from `first` on (`after`).
 */
export const unplacedPlacesBeside = async (
  tableId: string,
  viewId: string,
  first: number,
  side: 'before' | 'after',
  limit: number,
): Promise<Place[]> => {
  const items = await queryRange({
    pk: keys.recordNumbersOf(tableId).pk,
    ...(side === 'before'
      ? { below: keys.recordNumber(tableId, first).sk }
      : { above: keys.recordNumber(tableId, first - 1).sk }),
    limit,
    filter: notPlacedIn(viewId),
  });
  return items.map(placeOfNumberEntry);
};

/** Every place of a view's manual order (whole entries: for tests and small tables). */
export const allPlacesOfView = async (viewId: string): Promise<Place[]> =>
  (await queryRange({ pk: keys.viewOrderOf(viewId).pk, limit: Number.MAX_SAFE_INTEGER })).map(
    placeOfViewEntry,
  );

/** Every default-order place of records not placed in a view (for tests and small tables). */
export const allUnplacedPlaces = async (tableId: string, viewId: string): Promise<Place[]> =>
  (
    await queryRange({
      pk: keys.recordNumbersOf(tableId).pk,
      limit: Number.MAX_SAFE_INTEGER,
      filter: notPlacedIn(viewId),
    })
  ).map(placeOfNumberEntry);

/** A record's entry in a view's manual order at an order key, as stored. Pure. */
const orderEntryItem = (viewId: string, orderKey: string, recordId: string): Item => ({
  ...keys.viewOrderEntry(viewId, orderKey, recordId),
  type: 'viewOrder',
  recordId,
});

/**
 * The operation that puts a record's manual-order entry whatever is there (the undo of its
 * removal). Pure.
 */
export const putOrderEntryOp = (viewId: string, orderKey: string, recordId: string): TransactOp => ({
  put: orderEntryItem(viewId, orderKey, recordId),
});

/**
 * The operation that puts a record's manual-order entry only where none is: of two placements
 * racing to give the record the same key, one fails. Pure.
 */
export const putNewOrderEntryOp = (viewId: string, orderKey: string, recordId: string): TransactOp => ({
  ...putOrderEntryOp(viewId, orderKey, recordId),
  condition: NOT_EXISTS,
});

/** The operation that deletes a record's manual-order entry, there or not. Pure. */
export const deleteOrderEntryOp = (viewId: string, orderKey: string, recordId: string): TransactOp => ({
  delete: keys.viewOrderEntry(viewId, orderKey, recordId),
});

/**
 * The operation that deletes a record's manual-order entry only where one is: of two placements
 * racing to move the record from that key, one fails. Pure.
 */
export const deleteExistingOrderEntryOp = (
  viewId: string,
  orderKey: string,
  recordId: string,
): TransactOp => ({
  ...deleteOrderEntryOp(viewId, orderKey, recordId),
  condition: EXISTS,
});

/**
 * The operation that marks a record's default-order entry placed in a view (`pv` gets the view:
 * the default order leaves it out there); `placed: false` takes the mark off. Pure.
 */
export const markPlacedOp = (
  tableId: string,
  autoNumber: number,
  viewId: string,
  placed = true,
): TransactOp => ({
  update: {
    key: keys.recordNumber(tableId, autoNumber),
    update: placed ? 'ADD pv :v' : 'DELETE pv :v',
    values: { ':v': new Set([viewId]) },
  },
});
