import { NotFoundError } from '#shared/core/errors.ts';
import { type BaseItem, baseLookup } from '#shared/entities/bases.ts';
import { type ItemKey, type Loaded, type Lookup, readBatch, readMore } from '#shared/entities/batch-read.ts';
import { memberLookup } from '#shared/entities/members.ts';
import { type Space, spaceLookup } from '#shared/entities/spaces.ts';
import { type Table, tableLookup } from '#shared/entities/tables.ts';
import type { LocatedResource } from './permission.ts';
import type { Role } from './scopes.ts';

/**
 * A resource named by a route, before it is found. `includeTrashed`: the route also acts on a
 * resource in the trash (permanent deletes, restore).
 */
export type ResourceRef = { kind: 'space' | 'base' | 'table'; id: string; includeTrashed?: boolean };

/** A resource found, with its space, base and table as read, and the caller's role in its space. */
export interface Located extends LocatedResource {
  kind: ResourceRef['kind'];
  role: Role | undefined;
  space: Space;
  base?: BaseItem;
  table?: Table;
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

const chainLookups = (spaceId: string, baseId: string | undefined, userId: string): Lookup<unknown>[] => [
  spaceLookup(spaceId),
  memberLookup(spaceId, userId),
  ...(baseId ? [baseLookup(baseId)] : []),
];

const ownKey = (ref: ResourceRef): ItemKey =>
  (ref.kind === 'space'
    ? spaceLookup(ref.id)
    : ref.kind === 'base'
      ? baseLookup(ref.id)
      : tableLookup(ref.id)
  ).key;

/** The items that locate a resource and the caller's membership, as far as known without reading. */
export const resourceKeys = (ref: ResourceRef, userId: string): ItemKey[] => {
  if (ref.kind === 'space') return chainLookups(ref.id, undefined, userId).map((l) => l.key);
  const known = ancestry.get(ref.id);
  return [ownKey(ref), ...(known ? chainLookups(known.spaceId, known.baseId, userId).map((l) => l.key) : [])];
};

/** What a resource's own item says of it: its trash and purge marks, where it lives, the table read. */
interface Own {
  deletedTime?: string;
  purgeTime?: string;
  spaceId: string;
  baseId?: string;
  table?: Table;
}

/** A resource's trash and purge marks. */
const marksOf = ({ deletedTime, purgeTime }: Pick<Own, 'deletedTime' | 'purgeTime'>) => ({
  deletedTime,
  purgeTime,
});

/** The resource's own item among the loaded ones, as its entity reads it; undefined when none is stored. */
const ownOf = (ref: ResourceRef, read: Loaded): Own | undefined => {
  if (ref.kind === 'space') {
    const space = read.valueFor(spaceLookup(ref.id));
    return space && { ...marksOf(space), spaceId: ref.id };
  }
  if (ref.kind === 'base') {
    const base = read.valueFor(baseLookup(ref.id));
    return base && { ...marksOf(base), spaceId: base.spaceId, baseId: ref.id };
  }
  const table = read.valueFor(tableLookup(ref.id));
  return table && { ...marksOf(table), spaceId: table.spaceId, baseId: table.baseId, table };
};

const LABEL = { space: 'Space', base: 'Base', table: 'Table' } as const;

/** What `locate` answers: the resource, or the further keys it needs read first. */
export type LocateResult = { located: Located } | { need: ItemKey[] };

/**
 * Finds the resource among the loaded items. A resource that does not exist, or is in the trash
 * (itself or an ancestor), is a 404, checked before the role. When the resource's space is not
 * known yet (a cold Lambda), answers the keys to read next.
 */
export const locate = (ref: ResourceRef, userId: string, loaded: Loaded): LocateResult => {
  const read = loaded;
  const gone = () => new NotFoundError(`${LABEL[ref.kind]} ${ref.id} not found`);
  const own = ownOf(ref, read);
  // a permanent delete in progress (the purge worker empties it): gone for every route
  if (!own || own.purgeTime) throw gone();
  // `includeTrashed` lets the resource itself through, never a trashed space or base above it.
  const ownTrashed = Boolean(own.deletedTime) && !ref.includeTrashed;
  const { spaceId } = own;
  const baseId = ref.kind === 'space' ? undefined : own.baseId;
  if (ref.kind !== 'space') remember(ref.id, { spaceId, baseId: ref.kind === 'table' ? baseId : undefined });
  const chain = chainLookups(spaceId, ref.kind === 'table' ? baseId : undefined, userId);
  const space = read.valueFor(spaceLookup(spaceId));
  const base = baseId ? read.valueFor(baseLookup(baseId)) : undefined;
  const unread = chain.filter((l) => !read.wasRead(l));
  if (unread.length) return { need: unread.map((l) => l.key) };
  const parentTrashed =
    (ref.kind !== 'space' && Boolean(space?.deletedTime)) ||
    (ref.kind === 'table' && (!base || Boolean(base.deletedTime)));
  if (!space || ownTrashed || parentTrashed) throw gone();
  return {
    located: {
      kind: ref.kind,
      id: ref.id,
      spaceId,
      baseId,
      space,
      base: ref.kind === 'space' ? undefined : base,
      table: own.table,
      role: read.valueFor(memberLookup(spaceId, userId))?.role,
    },
  };
};

/** Locates a resource for a user outside a request (a worker acting for them): at most two reads. */
export const locateNow = async (ref: ResourceRef, userId: string): Promise<Located> => {
  let loaded = await readBatch(resourceKeys(ref, userId));
  let found = locate(ref, userId, loaded);
  if ('need' in found) {
    loaded = await readMore(loaded, found.need);
    found = locate(ref, userId, loaded);
  }
  if ('need' in found) throw new Error(`could not locate ${ref.kind} ${ref.id}`);
  return found.located;
};
