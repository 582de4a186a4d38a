import type { ItemLookup } from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { NotFoundError } from '#shared/http/errors.ts';
import type { LocatedResource } from './permission.ts';
import { ROLES, type Role } from './scopes.ts';

/** A resource named by a route, before it is found. */
/** `includeTrashed`: the route also acts on a resource in the trash (permanent deletes). */
export type ResourceRef = { kind: 'space'; id: string; includeTrashed?: boolean };

/** A resource found, with its space and the caller's role there. */
export interface Located extends LocatedResource {
  kind: ResourceRef['kind'];
  role: Role | undefined;
  space: Record<string, unknown>;
}

/** The items that locate a resource and the caller's membership, read with authentication. */
export const resourceKeys = (ref: ResourceRef, userId: string): Key[] => {
  switch (ref.kind) {
    case 'space':
      return [keys.space(ref.id), keys.member(ref.id, userId)];
  }
};

const roleOf = (item: Record<string, unknown> | undefined): Role | undefined =>
  item && (ROLES as readonly string[]).includes(String(item.role)) ? (item.role as Role) : undefined;

/**
 * Finds the resource among the loaded items. A resource that does not exist, or is in the
 * trash (itself or an ancestor), is a 404, checked before the role.
 */
export const locate = (ref: ResourceRef, userId: string, loaded: ItemLookup): Located => {
  switch (ref.kind) {
    case 'space': {
      const space = loaded.get(keys.space(ref.id));
      if (!space || (space.deletedTime && !ref.includeTrashed))
        throw new NotFoundError(`Space ${ref.id} not found`);
      return {
        kind: 'space',
        id: ref.id,
        spaceId: ref.id,
        space,
        role: roleOf(loaded.get(keys.member(ref.id, userId))),
      };
    }
  }
};
