import { checkAccess, type Principal, permissionMap } from '#shared/auth/permission.ts';
import {
  type LocateResult,
  locate,
  locateNow,
  type ResourceRef,
  resourceKeys,
} from '#shared/auth/resources.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import { type Loaded, readBatch, readMore } from '#shared/entities/batch-read.ts';
import {
  deletePinOp,
  type Pin,
  type PinType,
  pinsOfUser,
  placePinOp,
  putPinOp,
} from '#shared/entities/pins.ts';
import { orderAfterAll, planNumberedMove } from '#shared/ordering/numbered-order.ts';

/**
 * Pins (Teable's `/pin` routes): the spaces and bases a user starred for the sidebar, in the
 * user's own order. Only the user's own pins are read or written; pinning needs the right to read
 * the thing, and the list shows only what the caller may still read.
 */

/** A pin as `GET /pin/list` answers it (Teable's `IGetPinListVoSchema`): with the name to show, and a base's icon. */
export interface ListedPin {
  id: string;
  type: PinType;
  order: number;
  name: string;
  icon?: string;
}

const LABEL = { space: 'Space', base: 'Base' } as const;

const refOf = (pin: Pick<Pin, 'type' | 'id'>): ResourceRef => ({ kind: pin.type, id: pin.id });
const isPin = (type: PinType, id: string) => (pin: Pin) => pin.type === type && pin.id === id;

/** `locate`, with a thing that is gone (deleted, in the trash, never there) as undefined. */
const locateOrGone = (ref: ResourceRef, userId: string, loaded: Loaded) => {
  try {
    return locate(ref, userId, loaded);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
};

/**
 * The caller's pins whose thing the caller may still read, each with where it was found: a pin of
 * a thing deleted or in the trash (or below a space in the trash), of a space the caller has left,
 * or outside the token's limits or `<type>|read` scope is left out (kept, so it shows again once
 * restored or shared again). At most two batch reads, whatever the number of pins.
 */
const readablePins = async (principal: Principal, pins: readonly Pin[]) => {
  const { userId } = principal;
  let loaded = await readBatch(pins.flatMap((pin) => resourceKeys(refOf(pin), userId)));
  const first: (LocateResult | undefined)[] = pins.map((pin) => locateOrGone(refOf(pin), userId, loaded));
  const need = first.flatMap((found) => (found && 'need' in found ? found.need : []));
  if (need.length > 0) loaded = await readMore(loaded, need);
  return pins.flatMap((pin, i) => {
    const seen = first[i];
    const found = seen && 'need' in seen ? locateOrGone(refOf(pin), userId, loaded) : seen;
    if (!found || 'need' in found) return [];
    const { located } = found;
    const read = `${pin.type}|read` as const;
    return permissionMap(principal, located, located.role, [read])[read] ? [{ pin, located }] : [];
  });
};

/** The caller's pins in their order (`GET /pin/list`), named; those it may no longer read are left out. */
export const listPins = async (principal: Principal): Promise<ListedPin[]> => {
  const pins = await pinsOfUser(principal.userId);
  return (await readablePins(principal, pins)).map(({ pin, located }) => {
    const icon = pin.type === 'base' ? located.base?.icon : null;
    return {
      id: pin.id,
      type: pin.type,
      order: pin.order,
      name: (pin.type === 'base' ? located.base?.name : located.space.name) ?? '',
      ...(typeof icon === 'string' ? { icon } : {}),
    };
  });
};

/**
 * Pins a space or base last in the caller's list (`POST /pin`). The caller must be able to read
 * it (404 for one deleted or in the trash, 403 outside its space or the token's reach, as every
 * route answers). A thing pinned already keeps its place: no second pin, the same answer.
 */
export const addPin = async (
  principal: Principal,
  type: PinType,
  id: string,
  now = new Date(),
): Promise<Pin> => {
  const [located, pins] = await Promise.all([
    locateNow(refOf({ type, id }), principal.userId),
    pinsOfUser(principal.userId),
  ]);
  checkAccess({ principal, resource: located, role: located.role, actions: [`${type}|read`] });
  const pinned = pins.find(isPin(type, id));
  if (pinned) return pinned;
  const pin: Pin = { type, id, order: orderAfterAll(pins) };
  try {
    await transact(
      [putPinOp(principal.userId, pin, now)],
      () => new ConflictError(`${LABEL[type]} ${id} was pinned at the same time; retry`),
    );
    return pin;
  } catch (error) {
    // pinned by another request of the caller's at the same moment: that pin stays
    const stored =
      error instanceof ConflictError ? (await pinsOfUser(principal.userId)).find(isPin(type, id)) : undefined;
    if (!stored) throw error;
    return stored;
  }
};

/**
 * Unpins a space or base (`DELETE /pin`). Unpinning what is not pinned is done already: no error
 * (the caller's goal is met; Teable answers 404), and no right on the thing is needed (a pin of a
 * space one has left can still be removed).
 */
export const removePin = async (userId: string, type: PinType, id: string): Promise<void> => {
  await transact(
    [deletePinOp(userId, type, id)],
    () => new ConflictError('The pins changed meanwhile; retry'),
  );
};

export interface PinMove {
  type: PinType;
  id: string;
  anchorType: PinType;
  anchorId: string;
  position: 'before' | 'after';
}

/**
 * Moves one of the caller's pins right before or after another (`PUT /pin/order`): 404 when either
 * is not pinned, 400 relative to itself. One pin gets a new order, or, when its neighbours leave no
 * room between them, the pins around it are renumbered in the same transaction.
 */
export const movePin = async (userId: string, move: PinMove): Promise<void> => {
  if (move.type === move.anchorType && move.id === move.anchorId)
    throw new ValidationError(`${LABEL[move.type]} ${move.id} cannot be moved relative to itself`);
  const pins = await pinsOfUser(userId);
  if (!pins.some(isPin(move.type, move.id)))
    throw new NotFoundError(`${LABEL[move.type]} ${move.id} is not pinned`);
  if (!pins.some(isPin(move.anchorType, move.anchorId)))
    throw new NotFoundError(`Anchor ${LABEL[move.anchorType].toLowerCase()} ${move.anchorId} is not pinned`);
  // Ids carry their type's prefix (spc, bse): an id alone names one pin.
  const plan = planNumberedMove(pins, move.id, move.anchorId, move.position);
  const byId = new Map(pins.map((pin) => [pin.id, pin]));
  await transact(
    plan.flatMap((placed) => {
      const pin = byId.get(placed.id);
      return pin ? [placePinOp(userId, { ...pin, order: placed.order })] : [];
    }),
    () => new ConflictError('The pins changed meanwhile; retry'),
  );
};
