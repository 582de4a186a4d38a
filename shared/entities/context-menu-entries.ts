import type { Item } from '#shared/db/client.ts';
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
