import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import type { Step } from '#shared/db/commit.ts';
import {
  allPlacesOfView,
  allUnplacedPlaces,
  deleteExistingOrderEntryOp,
  deleteOrderEntryOp,
  markPlacedOp,
  placesBesideEntry,
  putNewOrderEntryOp,
  putOrderEntryOp,
  unplacedPlacesBeside,
} from '#shared/entities/order-entries.ts';
import {
  getRecords,
  type OrderGuard,
  orderGuardOf,
  type RecordItem,
  type RecordOrder,
  type RecordPart,
  rekeyRecordOps,
  withOrderGuard,
} from '#shared/entities/records.ts';
import { defaultOrderKey, planPlacement, upperBoundFor } from '#shared/ordering/order-keys.ts';
import type { TableSchema } from '#shared/schema/schema.ts';
import { findView } from '#shared/schema/views.ts';

/** Where written records go in a view's manual order (ordering.md). */
export interface Placement {
  viewId: string;
  anchorId: string;
  position: 'before' | 'after';
}

/** A record's place in a view: its key there (placed) or its default key (by autoNumber). */
export const effectiveKey = (item: Pick<RecordPart, 'ord' | 'autoNumber'>, viewId: string): string =>
  item.ord?.[viewId] ?? defaultOrderKey(item.autoNumber ?? 0);

/** Highest autoNumber a default key can hold (8 base62 digits). */
const MAX_NUMBER = 62 ** 8 - 1;

/** The smallest autoNumber whose default key sorts after `key` (binary search; keys are monotonic). */
export const firstNumberAfter = (key: string): number => {
  let lo = 0;
  let hi = MAX_NUMBER + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (defaultOrderKey(mid) > key) hi = mid;
    else lo = mid + 1;
  }
  return lo;
};

interface Ordered {
  id: string;
  key: string;
}

/** How many records around an anchor a placement reads on each side at first (the rebalance window). */
export const WINDOW = 32;
/** The widest window a rebalance may need (see `planPlacement`; 10,000 inserts at one spot need 1024). */
const MAX_WINDOW = 8192;

/**
 * The records nearest to `key` on one side in a view's order: placed records from the view's
 * order entries merged with unplaced records from the default-order index (autoNumber order),
 * nearest first, the excluded ids left out.
 */
export const neighbours = async (
  tableId: string,
  viewId: string,
  at: { key: string; id: string },
  side: 'before' | 'after',
  exclude: ReadonlySet<string>,
  limit = WINDOW,
): Promise<Ordered[]> => {
  // Unplaced records sit at their default key: those before `key` are the autoNumbers below `first`.
  const first = firstNumberAfter(at.key);
  const want = limit + exclude.size;
  const [fromPlaced, fromDefault] = await Promise.all([
    placesBesideEntry(viewId, at, side, want),
    unplacedPlacesBeside(tableId, viewId, first, side, want),
  ]);
  const merged = [...fromPlaced, ...fromDefault]
    .filter((o) => !exclude.has(o.id) && o.id !== at.id)
    .sort((a, b) => compare(a, b) * (side === 'before' ? -1 : 1));
  return merged.slice(0, limit);
};

const compare = (a: Ordered, b: Ordered) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** What a placement writes: the steps for existing records, and each record's new `ord`. */
export interface PlacementResult {
  steps: Step[];
  /** Record id → its complete `ord` map after the placement (only records that moved). */
  orderOf: Map<string, Record<string, string>>;
  /** Record id → the guard its caller's update must carry (existing records being placed). */
  guards: Map<string, OrderGuard>;
  /**
   * Record id → the steps that follow the caller's update of it, joined to it (existing records
   * being placed): `withJoined` puts them together.
   */
  joinedOf: Map<string, Step[]>;
}

const NONE: PlacementResult = { steps: [], orderOf: new Map(), guards: new Map(), joinedOf: new Map() };

/**
 * A placed record's update with the placement's guard added and its entry steps joined after it
 * (one transaction; undone together). Records not placed get their update alone.
 */
export const withJoined = (placed: PlacementResult, recordId: string, update: Step): Step[] => {
  const own = placed.joinedOf.get(recordId) ?? [];
  const guard = placed.guards.get(recordId);
  const guarded = guard && withOrderGuard(update.op, guard);
  if (!guarded) return [update];
  return [{ ...update, op: guarded, joined: own.length }, ...own];
};

/**
 * Places records immediately before or after an anchor in a view's manual order, in request
 * order, keeping every other record where it is (a rebalance may give neighbours new keys, never
 * a new relative order). For records being created the caller writes their index entry with the
 * view marked placed; for existing records the steps here update it. Every re-keyed record is
 * guarded by its key as read (`orderGuardOf`; the caller adds it to the records it updates), and
 * order entries are put only where none is and deleted only where one is: of two placements
 * racing for the same records one fails whole (the caller answers 409 or retries), so a record
 * is never listed twice.
 */
export const placementSteps = async (
  schema: TableSchema,
  records: readonly RecordItem[],
  order: Placement | undefined,
  opts: { created: boolean; nextAutoNumber: number },
): Promise<PlacementResult> => {
  if (!order || records.length === 0) return NONE;
  const tableId = schema.table.id;
  findView(schema, order.viewId);
  const moving = records.map((r) => r.id);
  const anchorItem = (await getRecords(tableId, [order.anchorId])).get(order.anchorId);
  if (!anchorItem) throw new NotFoundError(`Anchor ${order.anchorId} not found`);
  const exclude = new Set(moving);
  const around = async (at: Ordered, width: number) => {
    const [before, after] = await Promise.all([
      neighbours(tableId, order.viewId, at, 'before', exclude, width),
      neighbours(tableId, order.viewId, at, 'after', exclude, width),
    ]);
    return { before, after, startsList: before.length < width, endsList: after.length < width };
  };
  // The neighbourhood is read once, both sides at once; it serves both where a moving anchor's
  // records land and the plan (a hot spot needing a wider one reads again, twice as far).
  let width = WINDOW;
  let anchor: Ordered = { id: anchorItem.id, key: effectiveKey(anchorItem, order.viewId) };
  let position = order.position;
  let near = await around(anchor, width);
  if (moving.includes(order.anchorId)) {
    // As in Teable (teable-routes.md 4): the moved records, anchor included, land together in
    // request order at the anchor's old place, i.e. next to its nearest record that stays. That
    // record's own neighbourhood is in what was read: past it on its side, the anchor's other side.
    const [before, after] = [near.before[0], near.after[0]];
    const stay = before ?? after;
    if (!stay)
      throw new ValidationError('Every record of the view is being moved: there is no place to move them to');
    anchor = stay;
    position = before ? 'after' : 'before';
    near = before ? { ...near, before: near.before.slice(1) } : { ...near, after: near.after.slice(1) };
  }
  const current = opts.created
    ? {}
    : Object.fromEntries(records.map((r) => [r.id, effectiveKey(r, order.viewId)]));
  let plan: ReturnType<typeof planPlacement> = { widen: true };
  for (;;) {
    plan = planPlacement({
      moving,
      anchor,
      position,
      window: [...[...near.before].reverse(), anchor, ...near.after],
      startsList: near.startsList,
      endsList: near.endsList,
      current,
      upperBound: upperBoundFor(opts.nextAutoNumber),
    });
    if (!('widen' in plan)) break;
    width *= 2;
    if (width > MAX_WINDOW) throw new ConflictError('The view order is too dense around this anchor; retry');
    near = await around(anchor, width);
  }
  if (plan.assign.length === 0) return NONE;

  const byId = new Map(records.map((r) => [r.id, r]));
  const others = plan.assign.filter((a) => !byId.has(a.id));
  const otherItems = others.length
    ? await getRecords(
        tableId,
        others.map((o) => o.id),
      )
    : undefined;
  const steps: Step[] = [];
  const orderOf = new Map<string, Record<string, string>>();
  const guards = new Map<string, OrderGuard>();
  const joinedOf = new Map<string, Step[]>();
  const view = order.viewId;
  for (const { id, key } of plan.assign) {
    const item = byId.get(id) ?? otherItems?.get(id);
    if (!item) continue;
    const ord = { ...(item.ord ?? {}), [view]: key };
    orderOf.set(id, ord);
    if (opts.created && byId.has(id)) {
      steps.push(...entrySteps(tableId, item, view, key, false));
      continue;
    }
    if (byId.has(id)) {
      // A record being placed: the caller's update of it leads these steps (`joinedOf`).
      guards.set(id, orderGuardOf(item, view));
      joinedOf.set(id, entrySteps(tableId, item, view, key, true));
      continue;
    }
    // A neighbour's key changes, nothing else: its version stays (no If-Match of it fails), and
    // its undo puts back only the key, while it is still the one written here; with its entries.
    // A neighbour deleted meanwhile fails the write (the caller reads again and retries).
    steps.push(...rekeySteps(tableId, item, view, key));
  }
  return { steps, orderOf, guards, joinedOf };
};

/**
 * A record's own steps for a new key in a view: its new order entry, its old one gone, and (with
 * `markIndex`, for a record not created by the same write) its default-order entry marked placed.
 */
const entrySteps = (
  tableId: string,
  item: Pick<RecordItem, 'id' | 'ord' | 'autoNumber'>,
  view: string,
  key: string,
  markIndex: boolean,
): Step[] => {
  const old = item.ord?.[view];
  const own: Step[] = [
    {
      op: putNewOrderEntryOp(view, key, item.id),
      undo: deleteOrderEntryOp(view, key, item.id),
    },
  ];
  if (old !== undefined)
    own.push({
      op: deleteExistingOrderEntryOp(view, old, item.id),
      undo: putOrderEntryOp(view, old, item.id),
    });
  if (markIndex && old === undefined)
    own.push({
      op: markPlacedOp(tableId, item.autoNumber, view),
      undo: markPlacedOp(tableId, item.autoNumber, view, false),
    });
  return own;
};

/**
 * The steps that give an existing record a new key in a view's manual order, its values and
 * version untouched: its `ord` (guarded by its key as read, and by its existence: a record
 * deleted meanwhile fails the write), its entries joined to it. The undo puts back only the key,
 * while it is still the one written here. Answers nothing when the key is already its own.
 */
export const rekeySteps = (tableId: string, item: RecordOrder, view: string, key: string): Step[] => {
  const old = item.ord?.[view];
  if (old === key) return [];
  const own = entrySteps(tableId, item, view, key, true);
  return [{ ...rekeyRecordOps(tableId, item, view, key), joined: own.length }, ...own];
};

/**
 * Every record id of a table in a view's order (the order the listing engine pages through).
 * Reads both order sources whole: for tests and small tables; the listing engine pages them.
 */
export const viewOrderIds = async (tableId: string, viewId: string): Promise<string[]> => {
  const [placed, unplaced] = await Promise.all([allPlacesOfView(viewId), allUnplacedPlaces(tableId, viewId)]);
  return [...placed, ...unplaced].sort(compare).map((o) => o.id);
};
