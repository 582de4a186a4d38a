import { getItem, getItems, type Item } from '#shared/db/client.ts';
import { LIVE, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { optionalText, text, textOrNull } from './attributes.ts';

/**
 * A base's own item (`BASE#<bse>` `BASE`), and the space's reference to it (`SPACE#<spc>`
 * `BASE#<bse>`, name and icon kept in step, so one query lists a space's bases).
 */
export interface BaseItem {
  id: string;
  name: string;
  icon: string | null;
  spaceId: string;
  createdTime: string;
  createdBy: string;
  lastModifiedTime?: string;
  deletedTime?: string;
  deletedBy?: string;
  trashId?: string;
  purgeTime?: string;
}

/** A space's reference to one of its bases. */
export interface BaseRef {
  baseId: string;
  name: string;
  icon: string | null;
  createdTime: string;
  deletedTime?: string;
  /** The base's place among the space's bases, once moved (`PUT /base/{b}/order`). */
  orderKey?: string;
}

const marks = (item: Item) => {
  const out: Pick<BaseItem, 'lastModifiedTime' | 'deletedTime' | 'deletedBy' | 'trashId' | 'purgeTime'> = {};
  for (const k of ['lastModifiedTime', 'deletedTime', 'deletedBy', 'trashId', 'purgeTime'] as const) {
    const v = optionalText(item[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
};

/** The base stored in an item. */
export const baseOf = (item: Item): BaseItem => ({
  id: text(item.id),
  name: text(item.name),
  icon: textOrNull(item.icon),
  spaceId: text(item.spaceId),
  createdTime: text(item.createdTime),
  createdBy: text(item.createdBy),
  ...marks(item),
});

/** The reference stored in a space's item. */
export const baseRefOf = (item: Item): BaseRef => ({
  baseId: text(item.baseId),
  name: text(item.name),
  icon: textOrNull(item.icon),
  createdTime: text(item.createdTime),
  ...(optionalText(item.deletedTime) !== undefined ? { deletedTime: optionalText(item.deletedTime) } : {}),
  ...(optionalText(item.orderKey) !== undefined ? { orderKey: optionalText(item.orderKey) } : {}),
});

/** The stored item of a new base. */
export const toBaseItem = (base: BaseItem): Item => ({ ...keys.base(base.id), type: 'base', ...base });

/** The space's reference to a new base. */
export const toBaseRefItem = (base: BaseItem): Item => ({
  ...keys.spaceBase(base.spaceId, base.id),
  type: 'spaceBase',
  baseId: base.id,
  name: base.name,
  icon: base.icon,
  createdTime: base.createdTime,
});

/** Conditions on a base's item and its reference. */
export const baseConditions = {
  notExists: NOT_EXISTS,
  /** There and not in the trash. */
  live: LIVE,
};

/** Reads a base's item (strongly consistent); undefined when there is none. */
export const readBase = async (baseId: string): Promise<BaseItem | undefined> => {
  const item = await getItem(keys.base(baseId));
  return item ? baseOf(item) : undefined;
};

/**
 * The spaces that hold the live bases among `baseIds` (one batch read): a base that is gone or in
 * the trash holds nothing a token could reach.
 */
export const spacesOfLiveBases = async (baseIds: readonly string[]): Promise<Set<string>> => {
  if (baseIds.length === 0) return new Set();
  const loaded = await getItems(baseIds.map((b) => keys.base(b)));
  return new Set(
    baseIds.flatMap((b) => {
      const item = loaded.get(keys.base(b));
      const base = item ? baseOf(item) : undefined;
      return base && !base.deletedTime ? [base.spaceId] : [];
    }),
  );
};
