import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import {
  type ContextMenuEntry,
  deleteMenuEntry,
  entriesOfMenu,
  menuEntryById,
  menuEntryOrderOp,
  moveMenuEntry,
  putMenuEntry,
  renameMenuEntry,
  setMenuEntryStorage,
} from '#shared/entities/context-menu-entries.ts';
import type { Plugin, PluginConfig } from '#shared/entities/plugins.ts';
import { newId } from '#shared/ids.ts';
import { keyBetween, keysBetween, MAX_KEY_LENGTH } from '#shared/ordering/order-keys.ts';
import { checkInstallable, pluginsById } from './plugins.ts';

/**
 * A table's plugin context menu (endpoints.md "Dashboards and plugins": install, list and move;
 * ordering.md).
 *
 * Each entry is one item in the table's schema partition (`MENU#<pli>`, type `contextMenuPlugin`,
 * which the schema loader ignores), so the table's purge removes it and one query lists the
 * menu. Its place is a fractional order key (shared/ordering/order-keys.ts); answers give `order` as
 * the entry's position, 0 for the first.
 *
 * Decisions where the contract is silent:
 * - A menu holds at most MAX_MENU_ENTRIES plugins (400 beyond); a move whose gap has no room
 *   rewrites the keys of the whole menu in one transaction, which that bound keeps small.
 * - Installing the same plugin twice makes two entries (each has its own install id and name).
 * - A move is one read of the menu and one write: warm, authentication + query + update are 3
 *   sequential round trips. Two moves racing on the same entry: the last one wins; an entry
 *   removed while it moves is a 404; a rebalance that meets a concurrent change is a 409.
 * - An entry's `logo`, `url` and `config` are its plugin's, read when answering (a plugin deleted
 *   since answers `logo: ''` and no url or config). Its storage is JSON text on the entry; never
 *   set, it reads as `{}`, and an `update-storage` without `storage` stores `{}`.
 */

export const MAX_MENU_ENTRIES = 50;

/** An entry as listed. */
export interface MenuEntryAnswer {
  pluginInstallId: string;
  name: string;
  order: number;
  pluginId: string;
  logo: string;
}

/** Entries in menu order: by key, ties (two installs racing) by install id. Pure. */
export const sortEntries = <T extends { orderKey: string; pluginInstallId: string }>(entries: T[]): T[] =>
  [...entries].sort((a, b) =>
    a.orderKey < b.orderKey
      ? -1
      : a.orderKey > b.orderKey
        ? 1
        : a.pluginInstallId.localeCompare(b.pluginInstallId),
  );

/** The table's menu in order (one query). */
export const readMenu = async (tableId: string): Promise<ContextMenuEntry[]> =>
  sortEntries(await entriesOfMenu(tableId));

/** The table's context menu, in order, each entry with its plugin's logo (one query, one batch read). */
export const listContextMenu = async (tableId: string): Promise<MenuEntryAnswer[]> => {
  const menu = await readMenu(tableId);
  const plugins = await pluginsById(menu.map((e) => e.pluginId));
  return menu.map((e, order) => ({
    pluginInstallId: e.pluginInstallId,
    name: e.name,
    order,
    pluginId: e.pluginId,
    logo: plugins.get(e.pluginId)?.logo ?? '',
  }));
};

/** One entry of a table's menu (404 when it is not in this menu). */
const readEntry = async (tableId: string, pluginInstallId: string): Promise<ContextMenuEntry> => {
  const entry = await menuEntryById(tableId, pluginInstallId);
  if (!entry) throw installNotFound(pluginInstallId);
  return entry;
};

/** One entry of a table's menu with its plugin's url and config (two reads). */
export const getContextMenuPlugin = async (
  tableId: string,
  pluginInstallId: string,
): Promise<{
  name: string;
  tableId: string;
  pluginId: string;
  pluginInstallId: string;
  positionId: string;
  url?: string;
  config?: PluginConfig;
}> => {
  const entry = await readEntry(tableId, pluginInstallId);
  const plugin = (await pluginsById([entry.pluginId])).get(entry.pluginId);
  return {
    name: entry.name,
    tableId,
    pluginId: entry.pluginId,
    pluginInstallId,
    positionId: tableId,
    ...(plugin?.url !== undefined ? { url: plugin.url } : {}),
    ...(plugin?.config !== undefined ? { config: plugin.config } : {}),
  };
};

/** One entry's stored JSON (`{}` when never set). */
export const getContextMenuStorage = async (
  tableId: string,
  pluginInstallId: string,
): Promise<{
  name: string;
  tableId: string;
  pluginId: string;
  pluginInstallId: string;
  storage: Record<string, unknown>;
}> => {
  const entry = await readEntry(tableId, pluginInstallId);
  return {
    name: entry.name,
    tableId,
    pluginId: entry.pluginId,
    pluginInstallId,
    storage: entry.storage ?? {},
  };
};

/** Renames an entry of a table's menu (one conditional update; 404 when not in this menu). */
export const renameContextMenuPlugin = async (
  tableId: string,
  pluginInstallId: string,
  name: string,
): Promise<void> => {
  await renameMenuEntry(tableId, pluginInstallId, name, () => installNotFound(pluginInstallId));
};

/** Replaces an entry's stored JSON (one conditional update; 404 when not in this menu). */
export const updateContextMenuStorage = async (
  tableId: string,
  pluginInstallId: string,
  storage: Record<string, unknown> = {},
): Promise<{ tableId: string; pluginInstallId: string; storage: Record<string, unknown> }> => {
  await setMenuEntryStorage(tableId, pluginInstallId, storage, () => installNotFound(pluginInstallId));
  return { tableId, pluginInstallId, storage };
};

/**
 * Installs a plugin at the end of a table's menu. `plugin` is the plugin read with
 * authentication: 404 when missing, 403 while developing for anyone but its creator, 400 when it
 * does not list `contextMenu`.
 */
export const installContextMenuPlugin = async (input: {
  tableId: string;
  userId: string;
  pluginId: string;
  plugin: Plugin | undefined;
  name?: string;
}): Promise<{ pluginInstallId: string; name: string; order: number }> => {
  const plugin = checkInstallable(input.plugin, input.pluginId, input.userId, 'contextMenu');
  const menu = await readMenu(input.tableId);
  if (menu.length >= MAX_MENU_ENTRIES)
    throw new ValidationError(`A context menu holds at most ${MAX_MENU_ENTRIES} plugins`);
  const last = menu[menu.length - 1]?.orderKey ?? null;
  let orderKey = keyBetween(last, null);
  if (orderKey.length > MAX_KEY_LENGTH) {
    // Only reachable after many moves to the very end; start from a short key above the rest.
    await rebalance(input.tableId, menu);
    orderKey = keyBetween(keysBetween(null, null, menu.length).at(-1) ?? null, null);
  }
  const pluginInstallId = newId('pluginInstall');
  const name = input.name ?? plugin.name;
  await putMenuEntry(input.tableId, {
    pluginInstallId,
    pluginId: input.pluginId,
    name,
    orderKey,
    createdBy: input.userId,
    createdTime: new Date().toISOString(),
  });
  return { pluginInstallId, name, order: menu.length };
};

/** Removes an entry from a table's menu (404 when it is not in this menu). */
export const removeContextMenuPlugin = async (tableId: string, pluginInstallId: string): Promise<void> =>
  deleteMenuEntry(tableId, pluginInstallId, () => installNotFound(pluginInstallId));

const installNotFound = (id: string) =>
  new NotFoundError(`Plugin install ${id} not found in this context menu`);

/** What a move writes: nothing, one entry's new key, or fresh keys for the whole menu. */
export type MovePlan = { kind: 'none' } | { kind: 'one'; key: string } | { kind: 'all'; keys: string[] };

/**
 * Plans moving `movedId` before or after `anchorId` in a menu listed in order. The anchor or the
 * moved entry missing from the menu is a 404, moving an entry relative to itself a 400, a move to
 * where it already is writes nothing. When the gap is too narrow (or two keys tie), the plan
 * respreads every key (`all`, in the new order). Pure.
 */
export const planMenuMove = (
  menu: readonly { pluginInstallId: string; orderKey: string }[],
  movedId: string,
  anchorId: string,
  position: 'before' | 'after',
): { order: string[]; plan: MovePlan } => {
  if (movedId === anchorId)
    throw new ValidationError(`Plugin install ${movedId} cannot be moved relative to itself`);
  const moved = menu.find((e) => e.pluginInstallId === movedId);
  if (!moved) throw installNotFound(movedId);
  const rest = menu.filter((e) => e.pluginInstallId !== movedId);
  const at = rest.findIndex((e) => e.pluginInstallId === anchorId);
  if (at < 0) throw new NotFoundError(`Anchor ${anchorId} not found in this context menu`);
  const insertAt = position === 'before' ? at : at + 1;
  const sequence = [...rest.slice(0, insertAt), moved, ...rest.slice(insertAt)];
  const order = sequence.map((e) => e.pluginInstallId);
  if (order.every((id, i) => id === menu[i]?.pluginInstallId)) return { order, plan: { kind: 'none' } };
  const lower = sequence[insertAt - 1]?.orderKey ?? null;
  const upper = sequence[insertAt + 1]?.orderKey ?? null;
  if (lower === null || upper === null || lower < upper) {
    const key = keyBetween(lower, upper);
    if (key.length <= MAX_KEY_LENGTH) return { order, plan: { kind: 'one', key } };
  }
  return { order, plan: { kind: 'all', keys: keysBetween(null, null, sequence.length) } };
};

/** Gives every entry of the menu a fresh, evenly spread key in the given order (one transaction). */
const rebalance = async (
  tableId: string,
  inOrder: readonly ContextMenuEntry[],
  fresh?: string[],
): Promise<void> => {
  const spread = fresh ?? keysBetween(null, null, inOrder.length);
  await transact(
    inOrder.map((e, i) => menuEntryOrderOp(tableId, e.pluginInstallId, spread[i] as string)),
    () => new ConflictError('The context menu changed during the move; retry the request'),
  );
};

/**
 * Moves an entry of a table's context menu before or after another entry of the same menu.
 * One query and one write (a single update, or a rebalancing transaction when the gap is full).
 */
export const moveContextMenuPlugin = async (input: {
  tableId: string;
  pluginInstallId: string;
  anchorId: string;
  position: 'before' | 'after';
}): Promise<void> => {
  // Checked before reading, so the 400 needs no query.
  if (input.pluginInstallId === input.anchorId)
    throw new ValidationError(`Plugin install ${input.anchorId} cannot be moved relative to itself`);
  const menu = await readMenu(input.tableId);
  const { order, plan } = planMenuMove(menu, input.pluginInstallId, input.anchorId, input.position);
  if (plan.kind === 'none') return;
  if (plan.kind === 'one') {
    await moveMenuEntry(input.tableId, input.pluginInstallId, plan.key, () =>
      installNotFound(input.pluginInstallId),
    );
    return;
  }
  const byId = new Map(menu.map((e) => [e.pluginInstallId, e]));
  await rebalance(
    input.tableId,
    order.flatMap((id) => byId.get(id) ?? []),
    plan.keys,
  );
};
