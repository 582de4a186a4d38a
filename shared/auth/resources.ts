import { NotFoundError } from '#shared/core/errors.ts';
import { combineLookups, getItems, type Item, type ItemLookup } from '#shared/db/client.ts';
import { type Key, keys } from '#shared/db/keys.ts';
import { baseOf } from '#shared/entities/bases.ts';
import { memberOf } from '#shared/entities/members.ts';
import { type Space, spaceOf } from '#shared/entities/spaces.ts';
import { tableOf } from '#shared/entities/tables.ts';
import type { LocatedResource } from './permission.ts';
import type { Role } from './scopes.ts';

/**
 * A resource named by a route, before it is found. `includeTrashed`: the route also acts on a
 * resource in the trash (permanent deletes, restore).
 */
export type ResourceRef = { kind: 'space' | 'base' | 'table'; id: string; includeTrashed?: boolean };

/** A resource found, with its space, its ancestors' items and the caller's role in its space. */
export interface Located extends LocatedResource {
  kind: ResourceRef['kind'];
  role: Role | undefined;
  space: Space;
  base?: Item;
  table?: Item;
}

/**
 * Where bases and tables live, as last seen. A table never moves to another base; a base may move
 * to another space (`PUT /base/{b}/move`), so this is only a guess of what to read with the token:
 * `locate` takes the space from the items it reads and reads what the guess missed.
 */
const ancestry = new Map<string, { spaceId: string; baseId?: string }>();
const ANCESTRY_LIMIT = 10_000;

const remember = (id: string, where: { spaceId: string; baseId?: string }) => {
  if (ancestry.size >= ANCESTRY_LIMIT) ancestry.clear();
  ancestry.set(id, where);
};

const chainKeys = (spaceId: string, baseId: string | undefined, userId: string): Key[] => [
  keys.space(spaceId),
  keys.member(spaceId, userId),
  ...(baseId ? [keys.base(baseId)] : []),
];

const ownKey = (ref: ResourceRef): Key =>
  ref.kind === 'space' ? keys.space(ref.id) : ref.kind === 'base' ? keys.base(ref.id) : keys.table(ref.id);

/** The items that locate a resource and the caller's membership, as far as known without reading. */
export const resourceKeys = (ref: ResourceRef, userId: string): Key[] => {
  if (ref.kind === 'space') return chainKeys(ref.id, undefined, userId);
  const known = ancestry.get(ref.id);
  return [ownKey(ref), ...(known ? chainKeys(known.spaceId, known.baseId, userId) : [])];
};

const roleOf = (item: Item | undefined): Role | undefined => (item ? memberOf(item)?.role : undefined);

const LABEL = { space: 'Space', base: 'Base', table: 'Table' } as const;

/** What `locate` answers: the resource, or the further keys it needs read first. */
export type LocateResult = { located: Located } | { need: Key[] };

/**
 * Finds the resource among the loaded items. A resource that does not exist, or is in the trash
 * (itself or an ancestor), is a 404, checked before the role. When the resource's space is not
 * known yet (a cold Lambda), answers the keys to read next.
 */
export const locate = (ref: ResourceRef, userId: string, loaded: ItemLookup): LocateResult => {
  const gone = () => new NotFoundError(`${LABEL[ref.kind]} ${ref.id} not found`);
  const own = loaded.get(ownKey(ref));
  // a permanent delete in progress (the purge worker empties it): gone for every route
  if (!own || own.purgeTime) throw gone();
  // `includeTrashed` lets the resource itself through, never a trashed space or base above it.
  const trashed = (item: Item | undefined) => Boolean(item?.deletedTime);
  const ownTrashed = trashed(own) && !ref.includeTrashed;
  const table = ref.kind === 'table' ? tableOf(own) : undefined;
  const spaceId = ref.kind === 'space' ? ref.id : (table ?? baseOf(own)).spaceId;
  const baseId = table ? table.baseId : ref.kind === 'base' ? ref.id : undefined;
  if (ref.kind !== 'space') remember(ref.id, { spaceId, baseId: ref.kind === 'table' ? baseId : undefined });
  const chain = chainKeys(spaceId, ref.kind === 'table' ? baseId : undefined, userId);
  const space = loaded.get(keys.space(spaceId));
  const base = baseId ? loaded.get(keys.base(baseId)) : undefined;
  const unread = chain.filter((k) => !loaded.requested(k));
  if (unread.length) return { need: unread };
  const parentTrashed =
    (ref.kind !== 'space' && trashed(space)) || (ref.kind === 'table' && (!base || trashed(base)));
  if (!space || ownTrashed || parentTrashed) throw gone();
  return {
    located: {
      kind: ref.kind,
      id: ref.id,
      spaceId,
      baseId,
      space: spaceOf(space),
      base: ref.kind === 'space' ? undefined : (base ?? own),
      table: ref.kind === 'table' ? own : undefined,
      role: roleOf(loaded.get(keys.member(spaceId, userId))),
    },
  };
};

/** Locates a resource for a user outside a request (a worker acting for them): at most two reads. */
export const locateNow = async (ref: ResourceRef, userId: string): Promise<Located> => {
  let loaded = await getItems(resourceKeys(ref, userId));
  let found = locate(ref, userId, loaded);
  if ('need' in found) {
    loaded = combineLookups(loaded, await getItems(found.need));
    found = locate(ref, userId, loaded);
  }
  if ('need' in found) throw new Error(`could not locate ${ref.kind} ${ref.id}`);
  return found.located;
};
