import type { HttpError } from '#shared/core/errors.ts';
import {
  deleteItem,
  getItem,
  type Item,
  putItem,
  queryAll,
  type TransactOp,
  type UpdateSpec,
  updateItem,
} from '#shared/db/client.ts';
import { EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { storageAttribute, storageText } from './dashboards.ts';

/**
 * An entry of a table's plugin context menu: one item `MENU#<pli>` in the table's schema
 * partition (type `contextMenuPlugin`, which the schema loader ignores), placed by a fractional
 * order key attribute.
 */

const ENTRY_TYPE = 'contextMenuPlugin';

/** An entry of a table's context menu as stored. */
export interface ContextMenuEntry {
  pluginInstallId: string;
  pluginId: string;
  name: string;
  orderKey: string;
  /** The entry's stored JSON (`…/update-storage`); absent until set. */
  storage?: Record<string, unknown>;
  createdBy: string;
  createdTime: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The item of an entry of a table's menu (the install id is stored as `id`). */
export const toContextMenuEntryItem = (tableId: string, entry: ContextMenuEntry): Item => ({
  ...keys.contextMenuItem(tableId, entry.pluginInstallId),
  type: ENTRY_TYPE,
  id: entry.pluginInstallId,
  pluginId: entry.pluginId,
  name: entry.name,
  orderKey: entry.orderKey,
  ...(entry.storage !== undefined ? { storage: storageText(entry.storage) } : {}),
  createdBy: entry.createdBy,
  createdTime: entry.createdTime,
});

/** The entry stored in an item. */
export const contextMenuEntryOf = (item: Item): ContextMenuEntry => ({
  pluginInstallId: text(item.id),
  pluginId: text(item.pluginId),
  name: text(item.name),
  orderKey: text(item.orderKey),
  ...storageAttribute(item.storage),
  createdBy: text(item.createdBy),
  createdTime: text(item.createdTime),
});

/** True for an entry item (among the other items under the menu's prefix). */
export const isContextMenuEntryItem = (item: Item): boolean => item.type === ENTRY_TYPE;

/** The entry is still in the menu (a move of an entry removed meanwhile fails). */
export const ENTRY_EXISTS = EXISTS;

/** The entries of a table's menu, in stored order (by key). */
export const entriesOfMenu = async (tableId: string): Promise<ContextMenuEntry[]> =>
  (await queryAll(keys.contextMenuOf(tableId))).filter(isContextMenuEntryItem).map(contextMenuEntryOf);

/** One entry of a table's menu, read with strong consistency, if it is there. */
export const menuEntryById = async (
  tableId: string,
  pluginInstallId: string,
): Promise<ContextMenuEntry | undefined> => {
  const item = await getItem(keys.contextMenuItem(tableId, pluginInstallId));
  return item && isContextMenuEntryItem(item) ? contextMenuEntryOf(item) : undefined;
};

/** Stores a new entry of a table's menu (unconditionally: its install id is new). */
export const putMenuEntry = (tableId: string, entry: ContextMenuEntry): Promise<void> =>
  putItem(toContextMenuEntryItem(tableId, entry));

/** Removes an entry of a table's menu; one not there becomes `onMissing()`. */
export const deleteMenuEntry = (
  tableId: string,
  pluginInstallId: string,
  onMissing: () => HttpError,
): Promise<void> => deleteItem(keys.contextMenuItem(tableId, pluginInstallId), onMissing);

/** Renames an entry still in the menu; one not there becomes `onMissing()`. */
export const renameMenuEntry = async (
  tableId: string,
  pluginInstallId: string,
  name: string,
  onMissing: () => HttpError,
): Promise<void> => {
  await updateItem(
    {
      key: keys.contextMenuItem(tableId, pluginInstallId),
      update: 'SET #name = :name, lastModifiedTime = :now',
      condition: ENTRY_EXISTS,
      names: { '#name': 'name' },
      values: { ':name': name, ':now': new Date().toISOString() },
    },
    onMissing,
    'NONE',
  );
};

/** Replaces the stored JSON of an entry still in the menu; one not there becomes `onMissing()`. */
export const setMenuEntryStorage = async (
  tableId: string,
  pluginInstallId: string,
  storage: Record<string, unknown>,
  onMissing: () => HttpError,
): Promise<void> => {
  await updateItem(
    {
      key: keys.contextMenuItem(tableId, pluginInstallId),
      update: 'SET #storage = :storage, lastModifiedTime = :now',
      condition: ENTRY_EXISTS,
      names: { '#storage': 'storage' },
      values: { ':storage': storageText(storage), ':now': new Date().toISOString() },
    },
    onMissing,
    'NONE',
  );
};

const orderUpdate = (tableId: string, pluginInstallId: string, orderKey: string): UpdateSpec => ({
  key: keys.contextMenuItem(tableId, pluginInstallId),
  update: 'SET orderKey = :key',
  condition: ENTRY_EXISTS,
  values: { ':key': orderKey },
});

/** The operation that gives an entry still in the menu a new order key. Pure. */
export const menuEntryOrderOp = (tableId: string, pluginInstallId: string, orderKey: string): TransactOp => ({
  update: orderUpdate(tableId, pluginInstallId, orderKey),
});

/** Gives an entry still in the menu a new order key (one update); one not there becomes `onMissing()`. */
export const moveMenuEntry = async (
  tableId: string,
  pluginInstallId: string,
  orderKey: string,
  onMissing: () => HttpError,
): Promise<void> => {
  await updateItem(orderUpdate(tableId, pluginInstallId, orderKey), onMissing, 'NONE');
};
