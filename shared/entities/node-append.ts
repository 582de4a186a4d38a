import { queryAll, type TransactOp } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import { nodeIdOf } from '#shared/ids.ts';
import { keyAfter, NODE_NEW, type NodeType, nodeItem, nodeOf } from './node-tree.ts';

/**
 * The write that gives a new table or dashboard its project node at the end of the base's root
 * (one query of the base's nodes, keys and parents only), to add to the transaction that
 * creates the resource. Two creates racing may get the same key; the tree breaks the tie by
 * node id, so both show, one after the other.
 */
export const newRootNodeOp = async (
  baseId: string,
  resourceType: Exclude<NodeType, 'folder'>,
  resourceId: string,
  now = new Date(),
): Promise<TransactOp> => {
  const nodes = await queryAll({ ...keys.nodesOf(baseId), projection: ['parentId', 'orderKey'] });
  const rootKeys = nodes
    .map(nodeOf)
    .filter((n) => n.parentId === null)
    .map((n) => n.orderKey);
  return {
    put: nodeItem(
      baseId,
      { id: nodeIdOf(resourceId), parentId: null, resourceType, resourceId, orderKey: keyAfter(rootKeys) },
      now,
    ),
    condition: NODE_NEW,
  };
};
