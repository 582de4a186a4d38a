import { NotFoundError } from '#shared/core/errors.ts';
import type { ItemKey, Loaded } from '#shared/entities/batch-read.ts';
import { type NodeType, nodeLookup } from '#shared/entities/node-tree.ts';
import { checkAccess, type Principal } from './permission.ts';
import type { Located } from './resources.ts';
import type { Scope } from './scopes.ts';

/**
 * The access check of the node delete routes (the resource kind `node`): the route's base is
 * located and checked as usual, then the node, read in the same batch, must exist (404) and the
 * caller must hold the delete right on its resource: `table|delete` for a table, `base|update`
 * for a dashboard or a folder (a dashboard has no delete scope of its own).
 */
export const deleteRightOf = (node: { resourceType: NodeType }): Scope =>
  node.resourceType === 'table' ? 'table|delete' : 'base|update';

/** What a node route reads with authentication besides its base. */
export const nodeKeys = (baseId: string, nodeId: string): ItemKey[] => [nodeLookup(baseId, nodeId).key];

/** Checks the delete right on the node's resource (the base already located and checked). */
export const checkNodeDelete = (
  principal: Principal,
  base: Located,
  loaded: Loaded,
  nodeId: string,
): void => {
  const node = loaded.valueFor(nodeLookup(base.id, nodeId));
  if (!node) throw new NotFoundError(`Node ${nodeId} not found`);
  checkAccess({
    principal,
    resource: { id: node.resourceId, spaceId: base.spaceId, baseId: base.id },
    role: base.role,
    actions: [deleteRightOf(node)],
  });
};
