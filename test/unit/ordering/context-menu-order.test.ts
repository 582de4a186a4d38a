import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyBetween, MAX_KEY_LENGTH } from '#shared/ordering/order-keys.ts';
import { planMenuMove, sortEntries } from '#shared/plugins/context-menu.ts';

interface Entry {
  pluginInstallId: string;
  orderKey: string;
}

/** A menu of `n` entries appended one after the other, as installs make them. */
const appended = (n: number): Entry[] => {
  const out: Entry[] = [];
  for (let i = 0; i < n; i++)
    out.push({ pluginInstallId: `e${i}`, orderKey: keyBetween(out.at(-1)?.orderKey ?? null, null) });
  return out;
};

/** Applies a move as the service writes it; answers the menu in its new order and the plan's kind. */
const apply = (menu: Entry[], moved: string, anchor: string, position: 'before' | 'after') => {
  const { order, plan } = planMenuMove(menu, moved, anchor, position);
  let next = menu;
  if (plan.kind === 'one')
    next = menu.map((e) => (e.pluginInstallId === moved ? { ...e, orderKey: plan.key } : e));
  if (plan.kind === 'all')
    next = order.map((id, i) => ({ pluginInstallId: id, orderKey: plan.keys[i] as string }));
  const sorted = sortEntries(next);
  expect(sorted.map((e) => e.pluginInstallId)).toEqual(order);
  return { menu: sorted, kind: plan.kind };
};

const modelMove = (model: string[], moved: string, anchor: string, position: 'before' | 'after') => {
  const rest = model.filter((x) => x !== moved);
  const at = rest.indexOf(anchor) + (position === 'after' ? 1 : 0);
  return [...rest.slice(0, at), moved, ...rest.slice(at)];
};

describe('planMenuMove', () => {
  it('moves C before B in A B C to A C B, writing only C', () => {
    const [a, b, c] = appended(3) as [Entry, Entry, Entry];
    const { order, plan } = planMenuMove([a, b, c], c.pluginInstallId, b.pluginInstallId, 'before');
    expect(order).toEqual(['e0', 'e2', 'e1']);
    expect(plan.kind).toBe('one');
    if (plan.kind === 'one') {
      expect(plan.key > a.orderKey).toBe(true);
      expect(plan.key < b.orderKey).toBe(true);
    }
  });

  it('plans nothing for a move to where the entry already is', () => {
    const menu = appended(3);
    expect(planMenuMove(menu, 'e1', 'e0', 'after').plan).toEqual({ kind: 'none' });
    expect(planMenuMove(menu, 'e1', 'e2', 'before').plan).toEqual({ kind: 'none' });
    expect(planMenuMove(menu, 'e2', 'e1', 'after').plan).toEqual({ kind: 'none' });
  });

  it('refuses a move relative to itself (400), a missing entry or anchor (404)', () => {
    const menu = appended(2);
    expect(() => planMenuMove(menu, 'e0', 'e0', 'after')).toThrow(
      expect.objectContaining({
        status: 400,
        message: 'Plugin install e0 cannot be moved relative to itself',
      }),
    );
    expect(() => planMenuMove(menu, 'zz', 'e0', 'after')).toThrow(
      expect.objectContaining({ status: 404, message: 'Plugin install zz not found in this context menu' }),
    );
    expect(() => planMenuMove(menu, 'e0', 'zz', 'after')).toThrow(
      expect.objectContaining({ status: 404, message: 'Anchor zz not found in this context menu' }),
    );
  });

  it('respreads every key when two entries tie (installs that raced)', () => {
    const menu = sortEntries([
      { pluginInstallId: 'a', orderKey: 'U' },
      { pluginInstallId: 'b', orderKey: 'k' },
      { pluginInstallId: 'c', orderKey: 'k' },
    ]);
    const { menu: after, kind } = apply(menu, 'a', 'b', 'after');
    expect(kind).toBe('all');
    expect(after.map((e) => e.pluginInstallId)).toEqual(['b', 'a', 'c']);
    expect(new Set(after.map((e) => e.orderKey)).size).toBe(3);
  });

  it('keeps keys bounded at a hot spot: 10,000 moves into the same gap rebalance and stay in order', () => {
    let menu = appended(4);
    let model = menu.map((e) => e.pluginInstallId);
    let rebalances = 0;
    for (let i = 0; i < 10_000; i++) {
      const moved = i % 2 === 0 ? 'e2' : 'e1';
      const anchor = i % 2 === 0 ? 'e1' : 'e2';
      const step = apply(menu, moved, anchor, 'before');
      menu = step.menu;
      model = modelMove(model, moved, anchor, 'before');
      if (step.kind === 'all') rebalances++;
      for (const e of menu) expect(e.orderKey.length).toBeLessThanOrEqual(MAX_KEY_LENGTH);
    }
    expect(menu.map((e) => e.pluginInstallId)).toEqual(model);
    expect(rebalances).toBeGreaterThan(0);
  });

  it('agrees with an array model on any run of moves', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 200 }),
        (n, moves) => {
          let menu = appended(n);
          let model = menu.map((e) => e.pluginInstallId);
          for (const [m, a, before] of moves) {
            const moved = model[m % n] as string;
            const anchor = model[a % n] as string;
            if (moved === anchor) continue;
            const position = before ? 'before' : 'after';
            menu = apply(menu, moved, anchor, position).menu;
            model = modelMove(model, moved, anchor, position);
          }
          expect(menu.map((e) => e.pluginInstallId)).toEqual(model);
        },
      ),
      { numRuns: 200 },
    );
  });
});
