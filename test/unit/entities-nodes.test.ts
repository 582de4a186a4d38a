import { describe, expect, it } from 'vitest';
import { nodeItem, nodeOf, type ProjectNode, toNodeItem } from '#shared/entities/node-tree.ts';

const BASE = 'bse0000000000000001';
const T0 = '2026-01-01T00:00:00.000Z';

describe('node items', () => {
  it.each<[string, ProjectNode]>([
    [
      'a folder inside a folder',
      {
        id: 'nod0000000000000002',
        parentId: 'nod0000000000000001',
        resourceType: 'folder',
        resourceId: 'nod0000000000000002',
        orderKey: 'a1',
        name: 'Reports',
        createdTime: T0,
      },
    ],
    [
      'a table node at the root',
      {
        id: 'nodtbl0000000000000001',
        parentId: null,
        resourceType: 'table',
        resourceId: 'tbl0000000000000001',
        orderKey: 'a0',
        createdTime: T0,
      },
    ],
  ])('reads back %s written by toNodeItem unchanged', (_, node) => {
    const item = toNodeItem(BASE, node);
    expect(item).toMatchObject({ pk: `BASE#${BASE}`, sk: `NODE#${node.id}`, type: 'node' });
    expect(nodeOf(item)).toEqual(node);
  });

  it('reads a dashboard node as stored today by nodeItem', () => {
    const stored = nodeItem(
      BASE,
      {
        id: 'noddsh0000000000000001',
        parentId: null,
        resourceType: 'dashboard',
        resourceId: 'dsh0000000000000001',
        orderKey: 'a2',
        name: 'not stored on a dashboard node',
      },
      new Date(T0),
    );
    expect(stored).toEqual({
      pk: `BASE#${BASE}`,
      sk: 'NODE#noddsh0000000000000001',
      type: 'node',
      id: 'noddsh0000000000000001',
      parentId: null,
      resourceType: 'dashboard',
      resourceId: 'dsh0000000000000001',
      orderKey: 'a2',
      createdTime: T0,
    });
    expect(nodeOf(stored)).toEqual({
      id: 'noddsh0000000000000001',
      parentId: null,
      resourceType: 'dashboard',
      resourceId: 'dsh0000000000000001',
      orderKey: 'a2',
      createdTime: T0,
    });
  });

  it('reads a node read with a projection of parentId and orderKey', () => {
    expect(nodeOf({ parentId: null, orderKey: 'a3' })).toMatchObject({ parentId: null, orderKey: 'a3' });
  });
});
