import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  byNumberedOrder,
  MAX_RENUMBER,
  type Numbered,
  orderAfterAll,
  planNumberedMove,
} from '#shared/ordering/numbered-order.ts';

/** A list of `n` items added one after the other, as pins are. */
const appended = (n: number): Numbered[] => {
  const out: Numbered[] = [];
  for (let i = 0; i < n; i++) out.push({ id: `i${String(i).padStart(3, '0')}`, order: orderAfterAll(out) });
  return out;
};

/** Applies a plan as the service writes it, and answers the list in its new order. */
const apply = (list: Numbered[], plan: Numbered[]): Numbered[] => {
  const orders = new Map(plan.map((p) => [p.id, p.order]));
  return list.map((i) => ({ id: i.id, order: orders.get(i.id) ?? i.order })).sort(byNumberedOrder);
};

/** The list as it should read after the move, by ids. */
const expected = (ids: string[], id: string, anchorId: string, position: 'before' | 'after') => {
  const rest = ids.filter((i) => i !== id);
  const at = rest.indexOf(anchorId) + (position === 'after' ? 1 : 0);
  return [...rest.slice(0, at), id, ...rest.slice(at)];
};

describe('numbered order', () => {
  it('adds last at the largest whole order plus one, 1 for the first', () => {
    expect(orderAfterAll([])).toBe(1);
    expect(
      orderAfterAll([
        { id: 'a', order: 3.5 },
        { id: 'b', order: 2 },
      ]),
    ).toBe(4);
    expect(orderAfterAll([{ id: 'a', order: -0.5 }])).toBe(0);
  });

  it('sorts by order, ties by id', () => {
    const list = [
      { id: 'b', order: 1 },
      { id: 'a', order: 1 },
      { id: 'c', order: 0.5 },
    ].sort(byNumberedOrder);
    expect(list.map((i) => i.id)).toEqual(['c', 'a', 'b']);
  });

  it.each([
    ['i002', 'i000', 'before', [{ id: 'i002', order: 0 }]],
    ['i000', 'i002', 'after', [{ id: 'i000', order: 4 }]],
    ['i002', 'i000', 'after', [{ id: 'i002', order: 1.5 }]],
    ['i000', 'i002', 'before', [{ id: 'i000', order: 2.5 }]],
  ] as const)('moves %s %s… one order between the new neighbours', (id, anchor, position, plan) => {
    expect(planNumberedMove(appended(3), id, anchor, position)).toEqual(plan);
  });

  it('writes nothing for a move to where the item is', () => {
    expect(planNumberedMove(appended(3), 'i001', 'i000', 'after')).toEqual([]);
    expect(planNumberedMove(appended(3), 'i001', 'i002', 'before')).toEqual([]);
  });

  it('separates items that tie (added at once) when one moves next to the other', () => {
    const list = [
      { id: 'a', order: 1 },
      { id: 'b', order: 1 },
    ];
    const plan = planNumberedMove(list, 'b', 'a', 'after');
    expect(apply(list, plan).map((i) => i.id)).toEqual(['a', 'b']);
    expect(new Set(apply(list, plan).map((i) => i.order)).size).toBe(2);
  });

  it('renumbers the items around the place once repeated moves leave no room between two orders', () => {
    let list = appended(MAX_RENUMBER * 2);
    let renumbered = 0;
    // always moving the last item right after the first: the gap halves each time
    for (let round = 0; round < 80; round++) {
      const last = list.at(-1)?.id as string;
      const plan = planNumberedMove(list, last, 'i000', 'after');
      if (plan.length > 1) renumbered++;
      expect(plan.length).toBeLessThanOrEqual(MAX_RENUMBER);
      const ids = list.map((i) => i.id);
      list = apply(list, plan);
      expect(list.map((i) => i.id)).toEqual(expected(ids, last, 'i000', 'after'));
    }
    expect(renumbered).toBeGreaterThan(0);
  });

  it('any sequence of moves reads as the model list, orders distinct', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 120 }),
        (n, moves) => {
          let list = appended(n);
          for (const [a, b, before] of moves) {
            const ids = list.map((i) => i.id);
            const id = ids[a % n] as string;
            const anchor = ids[b % n] as string;
            if (id === anchor) continue;
            const position = before ? 'before' : 'after';
            list = apply(list, planNumberedMove(list, id, anchor, position));
            expect(list.map((i) => i.id)).toEqual(expected(ids, id, anchor, position));
          }
          expect(new Set(list.map((i) => i.order)).size).toBe(n);
        },
      ),
    );
  });
});
