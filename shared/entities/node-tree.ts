import type { HttpError } from '#shared/core/errors.ts';
import { deleteItem, type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import {
  type Dashboard,
  type DashboardItems,
  dashboardItemsOf,
  dashboardOf,
  isDashboardItem,
} from '#shared/entities/dashboards.ts';
import { type TableRef, tableRefOf } from '#shared/entities/tables.ts';
import { nodeIdOf } from '#shared/ids.ts';
import { keyBetween, keysBetween } from '#shared/ordering/order-keys.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * The sidebar tree of a base, built from the items of the base's partition (pure).
 *
 * A node item (`NODE#<nod>`, type `node`) holds `parentId` (null at the root), `resourceType`,
 * `resourceId`, a fractional `orderKey` among its siblings and, for a folder, its `name`. Names
 * and icons of tables and dashboards are not copied onto nodes: they are read from the base's
 * table references and dashboard items in the same partition when the tree is built, so a
 * rename never has to touch a node and one query answers the tree.
 *
 * Visibility is derived, never stored: a table node shows while the base's reference to the table
 * exists and is not in the trash (restoring the table shows it again where it was); a dashboard
 * node while its dashboard exists; a folder always. A live table without a node (created before
 * nodes existed) is listed at the end of the root with the node id `nodeIdOf(tableId)`, ordered
 * by the table's `order`; it gets a stored node the first time a move needs one. A node whose
 * parent folder is gone (a race between deleting the folder and moving into it) shows at the root.
 */

export type NodeType = 'table' | 'dashboard' | 'folder';
const NODE_TYPES: readonly NodeType[] = ['table', 'dashboard', 'folder'];

/** A node item as stored. */
export interface ProjectNode {
  id: string;
  /** null at the root. */
  parentId: string | null;
  resourceType: NodeType;
  /** A folder's is its own node id. */
  resourceId: string;
  orderKey: string;
  /** A folder's display name (tables and dashboards are named by their own items). */
  name?: string;
  createdTime: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The node stored in an item (also a partial one, read with a projection). A resource type this
 * code does not know reads as a folder: it is shown under its own name, as it always was.
 */
export const nodeOf = (item: Item): ProjectNode => ({
  id: text(item.id),
  parentId: typeof item.parentId === 'string' ? item.parentId : null,
  resourceType: NODE_TYPES.find((t) => t === item.resourceType) ?? 'folder',
  resourceId: text(item.resourceId),
  orderKey: text(item.orderKey),
  ...(typeof item.name === 'string' ? { name: item.name } : {}),
  createdTime: text(item.createdTime),
});

/** The item of a node of a base (a folder's name stored, every other node's not). */
export const toNodeItem = (baseId: string, node: ProjectNode): Item => ({
  ...keys.node(baseId, node.id),
  type: 'node',
  id: node.id,
  parentId: node.parentId,
  resourceType: node.resourceType,
  resourceId: node.resourceId,
  orderKey: node.orderKey,
  ...(node.resourceType === 'folder' ? { name: node.name ?? '' } : {}),
  createdTime: node.createdTime,
});

/** True for a node item (among the other items of a base's partition). */
export const isNodeItem = (item: Item): boolean => item.type === 'node';

/** A new node: no item with its id yet. */
export const NODE_NEW = NOT_EXISTS;
/** The node is (still) there: a parent folder, a node moved. */
export const NODE_EXISTS = EXISTS;

/** A base's reference to a table with its icon, as the tree shows it. */
type ShownTable = TableRef & { icon?: string };
const shownTableOf = (item: Item): ShownTable => ({
  ...tableRefOf(item),
  ...(typeof item.icon === 'string' && item.icon ? { icon: item.icon } : {}),
});

/** Folders nest at most this deep: a folder at the root is at depth 1. */
export const MAX_FOLDER_DEPTH = 2;

export interface TreeNode {
  id: string;
  /** The parent as shown (null: the root); a missing parent folder reads as the root. */
  parentId: string | null;
  resourceType: NodeType;
  resourceId: string;
  orderKey: string;
  name: string;
  icon?: string;
  /** False for a table that has no node item yet (listed at the end of the root). */
  stored: boolean;
  /** Shown in the tree (a trashed table's node is kept but hidden). */
  visible: boolean;
}

/** A node as answered: `order` is its position among its (visible) siblings, 0 first. */
export interface NodeAnswer {
  id: string;
  parentId: string | null;
  resourceType: NodeType;
  resourceId: string;
  order: number;
  resourceMeta: { name: string; icon?: string };
}

export interface Tree {
  /** Every node, visible or not, by id. */
  byId: Map<string, TreeNode>;
  /** Visible nodes, depth first: each folder followed by its children, siblings in order. */
  ordered: TreeNode[];
  /** Children of a parent (null: the root) in order, hidden ones included. */
  childrenOf: (parentId: string | null) => TreeNode[];
}

const byKey = (a: { orderKey: string; id: string }, b: { orderKey: string; id: string }) =>
  a.orderKey < b.orderKey ? -1 : a.orderKey > b.orderKey ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Builds the tree from every item of a base's partition (any other items are ignored). Pure. */
export const buildTree = (items: readonly Item[]): Tree => {
  const refs = new Map<string, ShownTable>();
  const dashboards = new Map<string, Dashboard>();
  const nodes: ProjectNode[] = [];
  for (const item of items) {
    if (item.type === 'baseTable') {
      const ref = shownTableOf(item);
      refs.set(ref.tableId, ref);
    } else if (isDashboardItem(item)) {
      const dashboard = dashboardOf(item);
      dashboards.set(dashboard.id, dashboard);
    } else if (isNodeItem(item)) nodes.push(nodeOf(item));
  }
  const byId = new Map<string, TreeNode>();
  for (const node of nodes) {
    const { resourceType, resourceId } = node;
    const source: { name?: string; icon?: string; deletedTime?: string } | undefined =
      resourceType === 'table'
        ? refs.get(resourceId)
        : resourceType === 'dashboard'
          ? dashboards.get(resourceId)
          : node;
    const visible = Boolean(source) && !(resourceType === 'table' && source?.deletedTime);
    byId.set(node.id, {
      id: node.id,
      parentId: node.parentId,
      resourceType,
      resourceId,
      orderKey: node.orderKey,
      name: source?.name ?? '',
      ...(source?.icon ? { icon: source.icon } : {}),
      stored: true,
      visible,
    });
  }
  // A parent that is not a folder of this base reads as the root.
  for (const node of byId.values())
    if (node.parentId !== null && byId.get(node.parentId)?.resourceType !== 'folder') node.parentId = null;
  const legacy = [...refs.values()]
    .filter((r) => !r.deletedTime && !byId.has(nodeIdOf(r.tableId)))
    .sort((a, b) => a.order - b.order || a.tableId.localeCompare(b.tableId));
  if (legacy.length) {
    const rootKeys = [...byId.values()].filter((n) => n.parentId === null).map((n) => n.orderKey);
    const last = rootKeys.length ? rootKeys.reduce((a, b) => (a > b ? a : b)) : null;
    const fresh = keysBetween(last, null, legacy.length);
    legacy.forEach((ref, i) => {
      const { tableId } = ref;
      byId.set(nodeIdOf(tableId), {
        id: nodeIdOf(tableId),
        parentId: null,
        resourceType: 'table',
        resourceId: tableId,
        orderKey: fresh[i] ?? '',
        name: ref.name,
        ...(ref.icon ? { icon: ref.icon } : {}),
        stored: false,
        visible: true,
      });
    });
  }
  const children = new Map<string | null, TreeNode[]>();
  for (const node of byId.values())
    children.set(node.parentId, [...(children.get(node.parentId) ?? []), node]);
  for (const list of children.values()) list.sort(byKey);
  const childrenOf = (parentId: string | null) => children.get(parentId) ?? [];
  const ordered: TreeNode[] = [];
  const walk = (parentId: string | null, depth: number) => {
    for (const node of childrenOf(parentId)) {
      if (!node.visible) continue;
      ordered.push(node);
      // depth bounds the walk even if stored data ever held a cycle
      if (node.resourceType === 'folder' && depth < MAX_FOLDER_DEPTH + 1) walk(node.id, depth + 1);
    }
  };
  walk(null, 0);
  return { byId, ordered, childrenOf };
};

/** The visible nodes of the tree as answered, depth first. Pure. */
export const answerTree = (tree: Tree): NodeAnswer[] => tree.ordered.map((n) => answerNode(tree, n));

/** One node as answered, with its position among its visible siblings. Pure. */
export const answerNode = (tree: Tree, node: TreeNode): NodeAnswer => ({
  id: node.id,
  parentId: node.parentId,
  resourceType: node.resourceType,
  resourceId: node.resourceId,
  order: tree
    .childrenOf(node.parentId)
    .filter((n) => n.visible)
    .findIndex((n) => n.id === node.id),
  resourceMeta: { name: node.name, ...(node.icon ? { icon: node.icon } : {}) },
});

/** How deep a folder sits (a folder at the root: 1; the root itself: 0). Pure. */
export const depthOf = (tree: Tree, folderId: string | null): number => {
  let depth = 0;
  for (let id = folderId; id !== null && depth <= MAX_FOLDER_DEPTH + 1; depth++)
    id = tree.byId.get(id)?.parentId ?? null;
  return depth;
};

/** Levels of folders a node brings along: 0 for a table or dashboard, 1 + its deepest sub-folder for a folder. Pure. */
export const folderHeight = (tree: Tree, node: TreeNode, guard = 0): number =>
  node.resourceType !== 'folder' || guard > MAX_FOLDER_DEPTH
    ? 0
    : 1 + Math.max(0, ...tree.childrenOf(node.id).map((c) => folderHeight(tree, c, guard + 1)));

/** True when `candidateId` is `node` itself or inside it. Pure. */
export const isWithin = (tree: Tree, candidateId: string, node: TreeNode): boolean => {
  for (let id: string | null = candidateId, hops = 0; id !== null && hops <= MAX_FOLDER_DEPTH + 1; hops++) {
    if (id === node.id) return true;
    id = tree.byId.get(id)?.parentId ?? null;
  }
  return false;
};

/**
 * The key for a new last child of a parent: after its stored children, hidden ones included (a
 * table without a node item stays listed after every stored node of the root). Pure.
 */
export const endKey = (tree: Tree, parentId: string | null): string =>
  keyAfter(
    tree
      .childrenOf(parentId)
      .filter((n) => n.stored)
      .map((n) => n.orderKey),
  );

/** The key after the greatest of these keys (null: an empty list). Pure. */
export const keyAfter = (orderKeys: readonly string[]): string =>
  keyBetween(orderKeys.length ? orderKeys.reduce((a, b) => (a > b ? a : b)) : null, null);

/** A node item as stored. */
export const nodeItem = (
  baseId: string,
  node: {
    id: string;
    parentId: string | null;
    resourceType: NodeType;
    resourceId: string;
    orderKey: string;
    name?: string;
  },
  now = new Date(),
): Item =>
  toNodeItem(baseId, {
    id: node.id,
    parentId: node.parentId,
    resourceType: node.resourceType,
    resourceId: node.resourceId,
    orderKey: node.orderKey,
    ...(node.name !== undefined ? { name: node.name } : {}),
    createdTime: now.toISOString(),
  });

/** A base's partition as the tree and the dashboards read it. */
export interface BaseContents extends DashboardItems {
  tree: Tree;
}

/** Every item of a base's partition (one query), as its tree and its dashboards with their installs. */
export const baseContents = async (baseId: string): Promise<BaseContents> => {
  const items = await queryAll({ pk: keys.basePartition(baseId) });
  return { tree: buildTree(items), ...dashboardItemsOf(items) };
};

/** The operation that creates a node of a base; fails on an id already taken. Pure. */
export const putNodeOp = (baseId: string, node: Parameters<typeof nodeItem>[1]): TransactOp => ({
  put: nodeItem(baseId, node),
  condition: NODE_NEW,
});

/** The check that a parent folder is (still) there, to join a write that puts a node in it. Pure. */
export const parentFolderCheck = (baseId: string, parentId: string): TransactOp => ({
  check: keys.node(baseId, parentId),
  condition: NODE_EXISTS,
});

/** The operation that places a node that is there under a parent at an order key. Pure. */
export const placeNodeOp = (
  baseId: string,
  nodeId: string,
  parentId: string | null,
  orderKey: string,
): TransactOp => ({
  update: {
    key: keys.node(baseId, nodeId),
    update: 'SET parentId = :parent, orderKey = :key',
    condition: NODE_EXISTS,
    values: { ':parent': parentId, ':key': orderKey },
  },
});

/** The undo of a placement: the node back under its parent at its key, unconditionally. Pure. */
export const unplaceNodeOp = (
  baseId: string,
  nodeId: string,
  parentId: string | null,
  orderKey: string,
): TransactOp => ({
  update: {
    key: keys.node(baseId, nodeId),
    update: 'SET parentId = :parent, orderKey = :key',
    values: { ':parent': parentId, ':key': orderKey },
  },
});

/** The operation that deletes a node unconditionally (the undo of its creation). Pure. */
export const deleteNodeOp = (baseId: string, nodeId: string): TransactOp => ({
  delete: keys.node(baseId, nodeId),
});

/** Deletes a node that is there; one not there becomes `onMissing()`. */
export const deleteNodeItem = (baseId: string, nodeId: string, onMissing: () => HttpError): Promise<void> =>
  deleteItem(keys.node(baseId, nodeId), onMissing);
/** The lookup of a node of a base, to read in a batch. Pure. */
export const nodeLookup = (baseId: string, nodeId: string): Lookup<ProjectNode> =>
  lookupOf(keys.node(baseId, nodeId), nodeOf);
