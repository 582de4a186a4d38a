import type { Item } from '#shared/db/client.ts';
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
