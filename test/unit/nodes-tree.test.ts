import { describe, expect, it } from 'vitest';
import { layoutOf, nextBox } from '#shared/dashboards/dashboards.ts';
import type { Item } from '#shared/db/client.ts';
import {
  answerTree,
  buildTree,
  depthOf,
  folderHeight,
  type NodeType,
  nodeItem,
} from '#shared/entities/node-tree.ts';
import { nodeIdOf } from '#shared/ids.ts';
import { planNodeMove } from '#shared/nodes/nodes.ts';
import { MAX_KEY_LENGTH } from '#shared/ordering/order-keys.ts';

const BASE = 'bse0000000000000001';
const ref = (tableId: string, name: string, order: number, extra: Item = {}): Item => ({
  type: 'baseTable',
  tableId,
  name,
  order,
  ...extra,
});
const node = (
  id: string,
  type: NodeType,
  resourceId: string,
  orderKey: string,
  parentId: string | null = null,
  name?: string,
) => nodeItem(BASE, { id, parentId, resourceType: type, resourceId, orderKey, name });
const folder = (id: string, orderKey: string, parentId: string | null = null) =>
  node(id, 'folder', id, orderKey, parentId, id);
const T = (n: number) => `tbl000000000000000${n}`;

describe('buildTree', () => {
  it('lists depth first, names from the table references, hides trashed tables, legacy tables last', () => {
    const items: Item[] = [
      { type: 'base' },
      ref(T(1), 'One', 0, { icon: '📦' }),
      ref(T(2), 'Two', 1, { deletedTime: '2026-01-01T00:00:00.000Z' }),
      ref(T(3), 'Three', 2),
      ref(T(4), 'Legacy B', 9),
      ref(T(5), 'Legacy A', 3),
      { type: 'dashboard', id: 'dsh00000000000000D1', name: 'Board' },
      node(nodeIdOf(T(1)), 'table', T(1), 'V', 'nodF'),
      node(nodeIdOf(T(2)), 'table', T(2), 'k'),
      node(nodeIdOf(T(3)), 'table', T(3), 'a', 'nodF'),
      node(nodeIdOf('dsh00000000000000D1'), 'dashboard', 'dsh00000000000000D1', 'x'),
      // a dashboard node whose dashboard is gone, and a node whose folder is gone
      node(nodeIdOf('dsh00000000000000D2'), 'dashboard', 'dsh00000000000000D2', 'y'),
      folder('nodF', 'F'),
      node('nodOrphan', 'folder', 'nodOrphan', 'z', 'nodGone', 'Orphan'),
    ];
    const tree = buildTree(items);
    expect(answerTree(tree).map((n) => [n.resourceMeta.name, n.parentId, n.order])).toEqual([
      ['nodF', null, 0],
      ['One', 'nodF', 0],
      ['Three', 'nodF', 1],
      ['Board', null, 1],
      ['Orphan', null, 2],
      ['Legacy A', null, 3],
      ['Legacy B', null, 4],
    ]);
    expect(answerTree(tree)[1]?.resourceMeta).toEqual({ name: 'One', icon: '📦' });
    expect(tree.byId.get(nodeIdOf(T(5)))?.stored).toBe(false);
    expect(tree.byId.get(nodeIdOf(T(2)))?.visible).toBe(false);
  });

  it('measures folder depth and height', () => {
    const tree = buildTree([folder('nodA', 'a'), folder('nodB', 'a', 'nodA'), folder('nodC', 'b')]);
    expect(depthOf(tree, null)).toBe(0);
    expect(depthOf(tree, 'nodA')).toBe(1);
    expect(depthOf(tree, 'nodB')).toBe(2);
    expect(folderHeight(tree, tree.byId.get('nodA') as never)).toBe(2);
    expect(folderHeight(tree, tree.byId.get('nodC') as never)).toBe(1);
  });
});

describe('planNodeMove', () => {
  /** Applies plans to items the way moveNode writes them; answers the root's names in order. */
  const simulate = (count: number, moves: number) => {
    let items: Item[] = Array.from({ length: count }, (_, i) =>
      folder(`nod${i}`, String.fromCharCode(65 + i)),
    );
    let expected = items.map((i) => String(i.id));
    let widest = 0;
    let rebalances = 0;
    for (let m = 0; m < moves; m++) {
      // always move the last node right after the first: the gap after the first keeps halving
      const moved = expected[expected.length - 1] as string;
      const anchor = expected[0] as string;
      const plan = planNodeMove(buildTree(items), moved, { anchorId: anchor, position: 'after' });
      expected = [anchor, moved, ...expected.slice(1, -1)];
      if (plan.kind === 'one')
        items = items.map((i) =>
          i.id === moved ? { ...i, orderKey: plan.key, parentId: plan.parentId } : i,
        );
      else if (plan.kind === 'all') {
        rebalances++;
        const byId = new Map(plan.sequence.map((n, k) => [n.id, plan.keys[k] as string]));
        items = items.map((i) => ({ ...i, orderKey: byId.get(String(i.id)) ?? i.orderKey }));
      }
      for (const i of items) widest = Math.max(widest, String(i.orderKey).length);
    }
    return { order: answerTree(buildTree(items)).map((n) => n.id), expected, widest, rebalances };
  };

  it('keeps the order exact and the keys bounded over 2,000 moves into the same gap', () => {
    const { order, expected, widest, rebalances } = simulate(5, 2000);
    expect(order).toEqual(expected);
    expect(widest).toBeLessThanOrEqual(MAX_KEY_LENGTH);
    expect(rebalances).toBeGreaterThan(0);
  });

  it('writes nothing for a move to where the node is', () => {
    const tree = buildTree([folder('nodA', 'a'), folder('nodB', 'b')]);
    expect(planNodeMove(tree, 'nodB', { anchorId: 'nodA', position: 'after' })).toEqual({ kind: 'none' });
    expect(planNodeMove(tree, 'nodB', { parentId: null })).toEqual({ kind: 'none' });
  });

  it('rewrites the whole list when it holds a table without a node item', () => {
    const tree = buildTree([folder('nodA', 'a'), ref(T(1), 'Legacy', 0)]);
    const plan = planNodeMove(tree, 'nodA', { anchorId: nodeIdOf(T(1)), position: 'after' });
    expect(plan.kind).toBe('all');
    if (plan.kind === 'all') expect(plan.sequence.map((n) => n.id)).toEqual([nodeIdOf(T(1)), 'nodA']);
  });
});

describe('dashboard layout', () => {
  const box = (id: string, y: number, x = 0, h = 2) => ({
    id,
    x,
    y,
    w: 2,
    h,
    createdTime: '2026-01-01',
  });

  it('puts a new box at the left, below every box', () => {
    expect(nextBox([])).toEqual({ x: 0, y: 0, w: 2, h: 2 });
    expect(nextBox([box('a', 0), box('b', 2, 4, 5), box('c', 4)])).toEqual({ x: 0, y: 7, w: 2, h: 2 });
  });

  it('lists boxes top to bottom, then left to right', () => {
    expect(layoutOf([box('c', 4), box('b', 0, 2), box('a', 0)]).map((b) => b.pluginInstallId)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });
});
