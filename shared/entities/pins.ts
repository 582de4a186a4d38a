import { type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { byNumberedOrder } from '#shared/ordering/numbered-order.ts';
import { count, text } from './attributes.ts';

/**
 * What a user pinned (Teable's pins: the starred spaces and bases of its sidebar), one item each
 * in the user's partition (`PIN#<type>#<id>`, type `pin`): the pinned thing, its `order` (a
 * number: the list reads by it, ties by id) and when it was pinned. The key is the thing itself,
 * so a thing is pinned at most once.
 */

export const PIN_TYPES = ['space', 'base'] as const;
export type PinType = (typeof PIN_TYPES)[number];

/** A pin as stored: what is pinned and its place in the user's list. */
export interface Pin {
  type: PinType;
  id: string;
  order: number;
}

const ITEM_TYPE = 'pin';

/** The pin stored in an item. */
const pinOf = (item: Item): Pin => ({
  type: PIN_TYPES.find((t) => t === item.pinType) ?? 'space',
  id: text(item.resourceId),
  order: count(item.order),
});

/** Every pin of a user, in list order (one query of the user's pins). */
export const pinsOfUser = async (userId: string): Promise<Pin[]> =>
  (await queryAll(keys.pinsOf(userId))).map(pinOf).sort(byNumberedOrder);

/** The operation that pins a thing at its order; its condition fails when it is pinned already. Pure. */
export const putPinOp = (userId: string, pin: Pin, now: Date): TransactOp => ({
  put: {
    ...keys.pin(userId, pin.type, pin.id),
    type: ITEM_TYPE,
    pinType: pin.type,
    resourceId: pin.id,
    order: pin.order,
    createdTime: now.toISOString(),
  },
  condition: NOT_EXISTS,
});

/** The operation that unpins a thing; a thing not pinned is left as it is. Pure. */
export const deletePinOp = (userId: string, type: PinType, id: string): TransactOp => ({
  delete: keys.pin(userId, type, id),
});

/** The operation that gives a pin a new order; its condition fails when it was unpinned meanwhile. Pure. */
export const placePinOp = (userId: string, pin: Pin): TransactOp => ({
  update: {
    key: keys.pin(userId, pin.type, pin.id),
    update: 'SET #order = :order',
    condition: EXISTS,
    names: { '#order': 'order' },
    values: { ':order': pin.order },
  },
});
