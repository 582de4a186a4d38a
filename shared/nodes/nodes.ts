import type { Principal } from '#shared/auth/permission.ts';
import type { Located } from '#shared/auth/resources.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { deleteDashboard } from '#shared/dashboards/dashboards.ts';
import { commitSteps, type Step, type TransactOp, transact } from '#shared/db/commit.ts';
import { baseLiveCheck } from '#shared/entities/bases.ts';
import {
  answerNode,
  answerTree,
  baseContents,
  deleteNodeItem,
  deleteNodeOp,
  depthOf,
  endKey,
  folderHeight,
  isWithin,
  MAX_FOLDER_DEPTH,
  type NodeAnswer,
  type NodeType,
  parentFolderCheck,
  placeNodeOp,
  putNodeOp,
  type Tree,
  type TreeNode,
  unplaceNodeOp,
} from '#shared/entities/node-tree.ts';
import { newId } from '#shared/ids.ts';
import { keyBetween, keysBetween, MAX_KEY_LENGTH } from '#shared/ordering/order-keys.ts';
import { deleteTablePermanently, trashTable } from '#shared/tables/tables.ts';

/**
 * Project nodes: the sidebar tree of a base (endpoints.md "Project nodes" and the permanent
 * delete, ordering.md).
 *
 * Decisions where the contract is silent:
 * - `GET /base/{baseId}/node` answers a flat list in depth-first order (a folder, then its
 *   children, siblings in order) with `parentId` (null at the root); the client nests it. `order`
 *   is a node's position among its visible siblings (0 first), the same meaning as a table's
 *   `order` in `GET /base/{baseId}/table`, which lists tables in this depth-first order.
 * - A folder's `resourceId` is its own node id; its name is a display name (1..255 characters).
 * - Folders nest at most 2 deep (a folder at the root is at depth 1; a folder inside it at depth
 *   2; a folder inside that is a 400); tables and dashboards may sit in any folder.
 * - Move `{anchorId?, position?, parentId?}`: the target list is `parentId`'s children when
 *   `parentId` is given (null: the root), else the node's current list. With an anchor (which
 *   needs `position`) the node goes right before or after it; the anchor must be in the target
 *   list (404 otherwise). Without an anchor the node goes to the end of the target list. A body
 *   with neither an anchor nor `parentId` is a 400. The answer is the node after the move.
 * - Rights: reading the tree needs `base|read`; creating and moving folders and nodes
 *   `base|update`; deleting a node the delete right on its resource: `table|delete` for a table,
 *   `base|update` for a dashboard or a folder (a dashboard has no delete scope of its own),
 *   checked by the request chain before these functions run (resource kind `node` in the route
 *   table, `shared/auth/node-access.ts`).
 * - Only an empty folder can be deleted (400 otherwise), softly or for good; "empty" counts the
 *   nodes shown in it (a trashed table inside does not count; restored, it shows at the root).
 * - `DELETE …/node/{id}` on a dashboard deletes it with its plugin installs (dashboards have no
 *   trash), like the permanent delete. The permanent delete of a table in the trash deletes it
 *   too (its node is kept while it is in the trash, hidden from the tree).
 * - Order keys are fractional keys in an attribute of the node; a move writes one node. When the
 *   gap between two neighbours has no room left (keys over 64 characters) or a list holds tables
 *   that have no node item yet, the whole sibling list gets fresh keys in one commit.
 */

const gone = (nodeId: string) => new NotFoundError(`Node ${nodeId} not found`);

/** The whole tree of a base: one query of the base's partition. */
export const loadTree = async (baseId: string): Promise<Tree> => (await baseContents(baseId)).tree;

/** The tree as answered, depth first. */
export const listNodes = async (baseId: string): Promise<NodeAnswer[]> => answerTree(await loadTree(baseId));

const visibleNode = (tree: Tree, nodeId: string): TreeNode => {
  const node = tree.byId.get(nodeId);
  if (!node?.visible) throw gone(nodeId);
  return node;
};

/** The folder a node goes into: 404 when there is no such node, 400 when it is not a folder. */
const folderOf = (tree: Tree, parentId: string): TreeNode => {
  const parent = tree.byId.get(parentId);
  if (!parent?.visible) throw new NotFoundError(`Parent node ${parentId} not found`);
  if (parent.resourceType !== 'folder') throw new ValidationError(`Parent node ${parentId} is not a folder`);
  return parent;
};

const tooDeep = () => new ValidationError(`Folders nest at most ${MAX_FOLDER_DEPTH} deep`);

const parentCheck = (baseId: string, parentId: string | null): TransactOp[] =>
  parentId === null ? [] : [parentFolderCheck(baseId, parentId)];

/** Creates a folder at the end of the root or of a folder (201 with the node). */
export const createFolder = async (
  baseId: string,
  input: { name: string; parentId?: string | null },
): Promise<NodeAnswer> => {
  const tree = await loadTree(baseId);
  const parentId = input.parentId ?? null;
  if (parentId !== null) folderOf(tree, parentId);
  if (depthOf(tree, parentId) + 1 > MAX_FOLDER_DEPTH) throw tooDeep();
  const id = newId('node');
  const orderKey = endKey(tree, parentId);
  await transact(
    [
      putNodeOp(baseId, {
        id,
        parentId,
        resourceType: 'folder',
        resourceId: id,
        orderKey,
        name: input.name,
      }),
      ...parentCheck(baseId, parentId),
      baseLiveCheck(baseId),
    ],
    (i) =>
      i === 0
        ? new ConflictError('A new node id collided; retry the request')
        : i === 1 && parentId !== null
          ? new NotFoundError(`Parent node ${parentId} not found`)
          : new NotFoundError(`Base ${baseId} not found`),
  );
  const created: TreeNode = {
    id,
    parentId,
    resourceType: 'folder',
    resourceId: id,
    orderKey,
    name: input.name,
    stored: true,
    visible: true,
  };
  // after every stored sibling (tables without a node item stay listed after it)
  const siblings = tree.childrenOf(parentId).filter((n) => n.stored);
  return {
    ...answerNode(tree, created),
    order: siblings.filter((n) => n.visible).length,
  };
};

export interface MoveInput {
  anchorId?: string;
  position?: 'before' | 'after';
  /** Absent: stay in the current list; null: the root. */
  parentId?: string | null;
}

/** What a move writes, decided on the tree alone (pure; exported for unit tests). */
export type MovePlan =
  | { kind: 'none' }
  | { kind: 'one'; parentId: string | null; sequence: TreeNode[]; key: string }
  | { kind: 'all'; parentId: string | null; sequence: TreeNode[]; keys: string[] };

/** Plans a move with the rules of ordering.md and the folder rules above. Pure. */
export const planNodeMove = (tree: Tree, nodeId: string, input: MoveInput): MovePlan => {
  if (input.anchorId !== undefined && input.position === undefined)
    throw new ValidationError('position (before or after) is required with anchorId');
  if (input.anchorId === undefined && input.position !== undefined)
    throw new ValidationError('anchorId is required with position');
  if (input.anchorId === undefined && input.parentId === undefined)
    throw new ValidationError('Give anchorId and position, or parentId, to move a node');
  if (input.anchorId === nodeId)
    throw new ValidationError(`Node ${nodeId} cannot be moved relative to itself`);
  const node = visibleNode(tree, nodeId);
  const parentId = input.parentId === undefined ? node.parentId : input.parentId;
  if (parentId !== null) {
    folderOf(tree, parentId);
    if (isWithin(tree, parentId, node))
      throw new ValidationError(`Node ${nodeId} cannot be moved into itself or a folder inside it`);
    if (depthOf(tree, parentId) + folderHeight(tree, node) > MAX_FOLDER_DEPTH) throw tooDeep();
  }
  const current = tree.childrenOf(parentId);
  const rest = current.filter((n) => n.id !== nodeId);
  let insertAt = rest.length;
  if (input.anchorId !== undefined) {
    const at = rest.findIndex((n) => n.id === input.anchorId && n.visible);
    if (at < 0) throw new NotFoundError(`Anchor ${input.anchorId} not found in this list`);
    insertAt = input.position === 'before' ? at : at + 1;
  }
  const sequence = [...rest.slice(0, insertAt), node, ...rest.slice(insertAt)];
  if (
    node.stored &&
    parentId === node.parentId &&
    sequence.every((n, i) => n.id === current[i]?.id) &&
    sequence.length === current.length
  )
    return { kind: 'none' };
  const lower = sequence[insertAt - 1]?.orderKey ?? null;
  const upper = sequence[insertAt + 1]?.orderKey ?? null;
  const unstored = rest.some((n) => !n.stored);
  if (!unstored && (lower === null || upper === null || lower < upper)) {
    const key = keyBetween(lower, upper);
    if (key.length <= MAX_KEY_LENGTH) return { kind: 'one', parentId, sequence, key };
  }
  return { kind: 'all', parentId, sequence, keys: keysBetween(null, null, sequence.length) };
};

/** Moves a node before or after an anchor, or to the end of a folder or the root; answers the node. */
export const moveNode = async (baseId: string, nodeId: string, input: MoveInput): Promise<NodeAnswer> =>
  moveInTree(baseId, await loadTree(baseId), nodeId, input);

/**
 * Moves a table's node right before or after another table's node (`PUT …/table/{t}/order`),
 * into that table's folder. Moving a table relative to itself is a 400; an anchor that is not a
 * table of the base shown in the tree is a 404.
 */
export const moveTableNode = async (
  baseId: string,
  tableId: string,
  anchorId: string,
  position: 'before' | 'after',
): Promise<void> => {
  if (anchorId === tableId) throw new ValidationError(`Table ${tableId} cannot be moved relative to itself`);
  const tree = await loadTree(baseId);
  const tableNode = (id: string) =>
    tree.ordered.find((n) => n.resourceType === 'table' && n.resourceId === id);
  const node = tableNode(tableId);
  if (!node) throw new NotFoundError(`Table ${tableId} not found`);
  const anchor = tableNode(anchorId);
  if (!anchor) throw new NotFoundError(`Anchor ${anchorId} not found`);
  await moveInTree(baseId, tree, node.id, { anchorId: anchor.id, position, parentId: anchor.parentId });
};

const moveInTree = async (
  baseId: string,
  tree: Tree,
  nodeId: string,
  input: MoveInput,
): Promise<NodeAnswer> => {
  const plan = planNodeMove(tree, nodeId, input);
  const node = visibleNode(tree, nodeId);
  if (plan.kind === 'one') {
    const write: TransactOp = node.stored
      ? placeNodeOp(baseId, nodeId, plan.parentId, plan.key)
      : putNodeOp(baseId, { ...node, parentId: plan.parentId, orderKey: plan.key });
    const ops = [write, ...parentCheck(baseId, plan.parentId)];
    const failed = (i: number) =>
      i === 0
        ? new ConflictError('The node changed at the same time; retry')
        : new NotFoundError(`Parent node ${plan.parentId} not found`);
    // to the root: a single-item write (half the capacity of a transaction)
    if (ops.length === 1) await commitSteps(`BASE-${baseId}`, [{ op: write, undo: null }], failed);
    else await transact(ops, failed);
  } else if (plan.kind === 'all') {
    const steps: Step[] = plan.sequence.flatMap((n, i): Step[] => {
      const key = plan.keys[i];
      if (key === undefined) return []; // planNodeMove gives one key per node
      const parentId = n.id === nodeId ? plan.parentId : n.parentId;
      const step: Step = n.stored
        ? {
            op: placeNodeOp(baseId, n.id, parentId, key),
            undo: unplaceNodeOp(baseId, n.id, n.parentId, n.orderKey),
          }
        : {
            op: putNodeOp(baseId, { ...n, parentId, orderKey: key }),
            undo: deleteNodeOp(baseId, n.id),
          };
      return [step];
    });
    await commitSteps(
      `BASE-${baseId}`,
      steps,
      () => new ConflictError('The tree changed at the same time; retry'),
    );
  }
  if (plan.kind === 'none') return answerNode(tree, node);
  return {
    ...answerNode(tree, node),
    parentId: plan.parentId,
    order: plan.sequence.filter((n) => n.visible).findIndex((n) => n.id === nodeId),
  };
};

const assertEmpty = (tree: Tree, node: TreeNode) => {
  if (node.resourceType === 'folder' && tree.childrenOf(node.id).some((c) => c.visible))
    throw new ValidationError(`Folder ${node.id} is not empty`);
};

const deleteFolder = async (baseId: string, node: TreeNode) =>
  deleteNodeItem(baseId, node.id, () => gone(node.id));

/**
 * Deletes a node: a table goes to the trash (its node stays, hidden, so a restore puts it back),
 * a dashboard is deleted with its plugin installs, an empty folder is removed.
 */
export const deleteNode = async (
  principal: Principal,
  base: Located,
  nodeId: string,
): Promise<{ resourceId: string; resourceType: NodeType }> => {
  // One query of the base's partition: the tree and the dashboards with their installs.
  const contents = await baseContents(base.id);
  const { tree } = contents;
  const node = visibleNode(tree, nodeId);
  assertEmpty(tree, node);
  if (node.resourceType === 'table')
    await trashTable(base.id, node.resourceId, principal.userId, base.spaceId);
  else if (node.resourceType === 'dashboard') await deleteDashboard(base.id, node.resourceId, contents);
  else await deleteFolder(base.id, node);
  return { resourceId: node.resourceId, resourceType: node.resourceType };
};

/**
 * The permanent delete of a node: deletes its resource for good, with no trash item: a table
 * (also one in the trash) through the table's permanent delete, a dashboard with its plugin
 * installs, an empty folder. A folder with children is a 400.
 */
export const deleteNodePermanently = async (
  principal: Principal,
  base: Located,
  nodeId: string,
): Promise<{ resourceId: string; resourceType: NodeType; permanent: true }> => {
  // One query of the base's partition: the tree and the dashboards with their installs.
  const contents = await baseContents(base.id);
  const { tree } = contents;
  const node = tree.byId.get(nodeId);
  // a trashed table keeps its (hidden) node; any other hidden node is gone
  if (!node || (!node.visible && node.resourceType !== 'table')) throw gone(nodeId);
  assertEmpty(tree, node);
  if (node.resourceType === 'table') await deleteTablePermanently(base.id, node.resourceId, principal.userId);
  else if (node.resourceType === 'dashboard') await deleteDashboard(base.id, node.resourceId, contents);
  else await deleteFolder(base.id, node);
  return { resourceId: node.resourceId, resourceType: node.resourceType, permanent: true };
};

/** Table ids of a base in tree order (depth first), for `GET /base/{baseId}/table`. */
export const tableIdsInTreeOrder = async (baseId: string): Promise<string[]> =>
  (await loadTree(baseId)).ordered.filter((n) => n.resourceType === 'table').map((n) => n.resourceId);
