import { ConflictError } from '#shared/core/errors.ts';

/**
 * Lists ordered by a number, as Teable orders pins (`order`: a new one goes last at the largest
 * plus one, a moved one between its new neighbours). Pure.
 */

export interface Numbered {
  id: string;
  order: number;
}

/** Items a move renumbers at most when its neighbours leave no room: one transaction's worth. */
export const MAX_RENUMBER = 100;

/** The list order: by number, ties (two items placed at once) by id, so every reader agrees. */
export const byNumberedOrder = (a: Numbered, b: Numbered): number =>
  a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The order of an item added last: a whole number above every other (1 for the first). */
export const orderAfterAll = (list: readonly Numbered[]): number =>
  list.length === 0 ? 1 : Math.floor(Math.max(...list.map((i) => i.order))) + 1;

const between = (order: number, lower: number | undefined, upper: number | undefined): boolean =>
  (lower === undefined || order > lower) && (upper === undefined || order < upper);

/**
 * Fresh orders for up to MAX_RENUMBER items of `sequence` around `at`, spread evenly between the
 * orders of the items just outside them (whole numbers where the window reaches an end).
 */
const spread = (sequence: readonly Numbered[], at: number): Numbered[] => {
  const size = Math.min(sequence.length, MAX_RENUMBER);
  const start = Math.max(0, Math.min(at - Math.floor(size / 2), sequence.length - size));
  const window = sequence.slice(start, start + size);
  const lower = sequence[start - 1]?.order;
  const upper = sequence[start + size]?.order;
  const orders = window.map((_, i) => {
    if (lower !== undefined && upper !== undefined) return lower + ((upper - lower) * (i + 1)) / (size + 1);
    if (lower !== undefined) return lower + 1 + i;
    if (upper !== undefined) return upper - size + i;
    return i + 1;
  });
  // Reachable only when more items than one renumbering takes share a sliver of the number line.
  const increasing = orders.every((o, i) => i === 0 || o > (orders[i - 1] as number));
  if (
    !increasing ||
    !between(orders[0] as number, lower, upper) ||
    !between(orders.at(-1) as number, lower, upper)
  )
    throw new ConflictError('No room to place the item there; move it elsewhere first');
  return window
    .map((item, i) => ({ id: item.id, order: orders[i] as number }))
    .filter((moved, i) => moved.order !== window[i]?.order);
};

/**
 * The orders to write to move item `id` right before or after `anchorId` in `list` (in list
 * order, `byNumberedOrder`; both in it, and not the same): one order between its new neighbours
 * when there is one, else fresh orders for the items around the place (`spread`). Nothing when
 * the item is there already.
 */
export const planNumberedMove = (
  list: readonly Numbered[],
  id: string,
  anchorId: string,
  position: 'before' | 'after',
): Numbered[] => {
  const moving = list.find((i) => i.id === id);
  const rest = list.filter((i) => i.id !== id);
  const at = rest.findIndex((i) => i.id === anchorId);
  if (!moving || at < 0 || id === anchorId)
    throw new Error('planNumberedMove: item or anchor not in the list');
  const insertAt = position === 'before' ? at : at + 1;
  const lower = rest[insertAt - 1]?.order;
  const upper = rest[insertAt]?.order;
  const sequence = [...rest.slice(0, insertAt), moving, ...rest.slice(insertAt)];
  if (sequence.every((s, i) => s.id === list[i]?.id) && between(moving.order, lower, upper)) return [];
  const order =
    lower === undefined ? (upper as number) - 1 : upper === undefined ? lower + 1 : (lower + upper) / 2;
  if (between(order, lower, upper)) return [{ id, order }];
  return spread(sequence, insertAt);
};
