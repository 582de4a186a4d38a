import type { HttpError } from '#shared/core/errors.ts';
import { getItems, type Item, type TransactOp, updateItem } from '#shared/db/client.ts';
import { and, EXISTS, LIVE, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { count, optionalText, text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * A space item (`SPACE#<spc>` `SPACE`). `ownerCount` keeps at least one owner (checked in the
 * write that demotes or removes one); the trash and purge marks are set by updates.
 */
export interface Space {
  id: string;
  name: string;
  ownerCount: number;
  createdTime: string;
  createdBy: string;
  lastModifiedTime?: string;
  deletedTime?: string;
  deletedBy?: string;
  trashId?: string;
  purgeTime?: string;
}

const OPTIONAL = ['lastModifiedTime', 'deletedTime', 'deletedBy', 'trashId', 'purgeTime'] as const;

/** The stored item of a space. Pure. */
export const toSpaceItem = (space: Space): Item => {
  const item: Item = {
    ...keys.space(space.id),
    type: 'space',
    id: space.id,
    name: space.name,
    ownerCount: space.ownerCount,
    createdTime: space.createdTime,
    createdBy: space.createdBy,
  };
  for (const name of OPTIONAL) if (space[name] !== undefined) item[name] = space[name];
  return item;
};

/** The space stored in an item. */
export const spaceOf = (item: Item): Space => {
  const space: Space = {
    id: text(item.id),
    name: text(item.name),
    ownerCount: count(item.ownerCount),
    createdTime: text(item.createdTime),
    createdBy: text(item.createdBy),
  };
  for (const name of OPTIONAL) {
    const value = optionalText(item[name]);
    if (value !== undefined) space[name] = value;
  }
  return space;
};

/** The space is there and not in the trash. */
export const SPACE_LIVE = LIVE;
/** The space is there and keeps another owner (`:one` is 1): the condition of losing an owner. */
export const SPACE_KEEPS_AN_OWNER = and(EXISTS, 'ownerCount > :one');

/** The operation that creates a space; fails on an id already taken. Pure. */
export const putSpaceOp = (space: Space): TransactOp => ({ put: toSpaceItem(space), condition: NOT_EXISTS });

/**
 * The operation that changes a space's owner count by `delta`: a loss keeps at least one owner,
 * a gain needs the space live. Pure.
 */
export const ownerCountOp = (spaceId: string, delta: number): TransactOp => ({
  update: {
    key: keys.space(spaceId),
    update: 'ADD ownerCount :d',
    condition: delta < 0 ? SPACE_KEEPS_AN_OWNER : SPACE_LIVE,
    values: delta < 0 ? { ':d': delta, ':one': 1 } : { ':d': delta },
  },
});

/** The check that a space is live, to join a transaction that adds to it. Pure. */
export const spaceLiveCheck = (spaceId: string): TransactOp => ({
  check: keys.space(spaceId),
  condition: SPACE_LIVE,
});

/** Spaces by id, read in one batch (absent ones left out). */
export const spacesByIds = async (spaceIds: Iterable<string>): Promise<Map<string, Space>> => {
  const wanted = [...new Set(spaceIds)];
  if (wanted.length === 0) return new Map();
  const loaded = await getItems(wanted.map((id) => keys.space(id)));
  const out = new Map<string, Space>();
  for (const id of wanted) {
    const item = loaded.get(keys.space(id));
    if (item) out.set(id, spaceOf(item));
  }
  return out;
};

/** A space (strongly consistent), in the trash or not, if it is there. */
export const spaceById = async (spaceId: string): Promise<Space | undefined> =>
  (await spacesByIds([spaceId])).get(spaceId);

/** Renames a space that is not in the trash and answers it; one gone becomes `onGone()`. */
export const renameSpaceItem = async (
  spaceId: string,
  name: string,
  onGone: () => HttpError,
): Promise<Space> =>
  spaceOf(
    await updateItem(
      {
        key: keys.space(spaceId),
        update: 'SET #name = :name, lastModifiedTime = :now',
        condition: SPACE_LIVE,
        names: { '#name': 'name' },
        values: { ':name': name, ':now': new Date().toISOString() },
      },
      onGone,
    ),
  );

/** The operation that marks a live space as in the trash under a trash entry. Pure. */
export const trashSpaceOp = (
  spaceId: string,
  trash: { trashId: string; deletedTime: string; deletedBy: string },
): TransactOp => ({
  update: {
    key: keys.space(spaceId),
    update: 'SET deletedTime = :now, deletedBy = :by, trashId = :trs',
    condition: SPACE_LIVE,
    values: { ':now': trash.deletedTime, ':by': trash.deletedBy, ':trs': trash.trashId },
  },
});

/** The lookup of a space's item, to read in a batch. Pure. */
export const spaceLookup = (spaceId: string): Lookup<Space> => lookupOf(keys.space(spaceId), spaceOf);
