import { getItem, getItems, type Item, queryAll, type TransactOp } from '#shared/db/client.ts';
import { and, EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';
import { optionalText, text } from './attributes.ts';
import { type Lookup, lookupOf } from './batch-read.ts';

/**
 * Plugins: the record of truth `PLUGIN#<plg>` and two listing copies with the same attributes,
 * one in `PLUGINS#published` while published and one in the creator's partition. All three have
 * type `plugin`; every write of a plugin (update, submit, publish, unpublish) writes the record
 * and its copies in one transaction, so the copies never go stale.
 */

export const PLUGIN_POSITIONS = ['dashboard', 'view', 'contextMenu', 'panel'] as const;
export type PluginPosition = (typeof PLUGIN_POSITIONS)[number];
export const PLUGIN_STATUSES = ['developing', 'reviewing', 'published'] as const;
export type PluginStatus = (typeof PLUGIN_STATUSES)[number];

/** Per-locale texts of a plugin (Teable's `i18n`): nested objects of strings. */
export type PluginI18n = Record<string, unknown>;
/** Per-position settings of a plugin (Teable's `config`). */
export type PluginConfig = Record<string, unknown>;

/** A plugin as stored. The secret itself is never stored: only its hash and a masked form. */
export interface Plugin {
  id: string;
  name: string;
  description?: string;
  detailDesc?: string;
  /** `''` for a plugin stored before logos were required. */
  logo: string;
  positions: PluginPosition[];
  url?: string;
  helpUrl?: string;
  i18n?: PluginI18n;
  config?: PluginConfig;
  secretHash: string;
  maskedSecret: string;
  status: PluginStatus;
  createdBy: string;
  createdTime: string;
  lastModifiedTime: string;
}

const PLUGIN_TYPE = 'plugin';

const isPosition = (value: unknown): value is PluginPosition => PLUGIN_POSITIONS.some((p) => p === value);
const isStatus = (value: unknown): value is PluginStatus => PLUGIN_STATUSES.some((s) => s === value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const attributes = (plugin: Plugin): Item => ({ type: PLUGIN_TYPE, ...plugin });

/** The plugin's item (the record of truth). */
export const toPluginItem = (plugin: Plugin): Item => ({ ...keys.plugin(plugin.id), ...attributes(plugin) });
/** The plugin's listing copy among the published plugins. */
export const toPublishedPluginItem = (plugin: Plugin): Item => ({
  ...keys.publishedPlugin(plugin.id),
  ...attributes(plugin),
});
/** The plugin's listing copy in its creator's partition. */
export const toUserPluginItem = (plugin: Plugin): Item => ({
  ...keys.userPlugin(plugin.createdBy, plugin.id),
  ...attributes(plugin),
});

/** The plugin stored in an item (the record of truth or a listing copy). */
export const pluginOf = (item: Item): Plugin => {
  const description = optionalText(item.description);
  const detailDesc = optionalText(item.detailDesc);
  const url = optionalText(item.url);
  const helpUrl = optionalText(item.helpUrl);
  const createdTime = text(item.createdTime);
  return {
    id: text(item.id),
    name: text(item.name),
    ...(description !== undefined ? { description } : {}),
    ...(detailDesc !== undefined ? { detailDesc } : {}),
    logo: text(item.logo),
    positions: Array.isArray(item.positions) ? item.positions.filter(isPosition) : [],
    ...(url !== undefined ? { url } : {}),
    ...(helpUrl !== undefined ? { helpUrl } : {}),
    ...(isObject(item.i18n) ? { i18n: item.i18n } : {}),
    ...(isObject(item.config) ? { config: item.config } : {}),
    secretHash: text(item.secretHash),
    maskedSecret: text(item.maskedSecret),
    status: isStatus(item.status) ? item.status : 'developing',
    createdBy: text(item.createdBy),
    createdTime,
    lastModifiedTime: optionalText(item.lastModifiedTime) ?? createdTime,
  };
};

/** The lookup of a plugin, to read with authentication (`preload`). Pure. */
export const pluginLookup = (pluginId: string): Lookup<Plugin> => lookupOf(keys.plugin(pluginId), pluginOf);

/** A new plugin: no item with its id yet. */
export const PLUGIN_NEW = NOT_EXISTS;
/** The plugin (or its creator's copy) is there: a delete or a publish of a plugin deleted meanwhile fails. */
export const PLUGIN_EXISTS = EXISTS;
/** The plugin is there with the status read (a write based on that status). */
export const pluginAtStatus = (status: PluginStatus) => ({
  condition: and(EXISTS, '#status = :readStatus'),
  names: { '#status': 'status' },
  values: { ':readStatus': status },
});

/** A plugin, read with strong consistency, if it is there. */
export const pluginById = async (pluginId: string): Promise<Plugin | undefined> => {
  const item = await getItem(keys.plugin(pluginId));
  return item ? pluginOf(item) : undefined;
};

/** Plugins by id, read in one batch (absent ones left out). */
export const pluginsByIds = async (pluginIds: Iterable<string>): Promise<Map<string, Plugin>> => {
  const unique = [...new Set(pluginIds)];
  if (unique.length === 0) return new Map();
  const found = await getItems(unique.map((id) => keys.plugin(id)));
  const out = new Map<string, Plugin>();
  for (const id of unique) {
    const item = found.get(keys.plugin(id));
    if (item) out.set(id, pluginOf(item));
  }
  return out;
};

/** The published plugins (their listing copies). */
export const publishedPlugins = async (): Promise<Plugin[]> =>
  (await queryAll(keys.publishedPlugins())).map(pluginOf);

/** The plugins a user created, whatever their status (their listing copies). */
export const pluginsOfUser = async (userId: string): Promise<Plugin[]> =>
  (await queryAll(keys.pluginsOf(userId))).map(pluginOf);

/** The operations that create a plugin and its creator's copy; fail on an id already taken. Pure. */
export const createPluginOps = (plugin: Plugin): TransactOp[] => [
  { put: toPluginItem(plugin), condition: PLUGIN_NEW },
  { put: toUserPluginItem(plugin) },
];

/**
 * The operations that store `next` over `read` (its status when read): the record conditioned on
 * that status, the creator's copy, and the published copy put or deleted after the new status. Pure.
 */
export const storePluginOps = (read: Plugin, next: Plugin): TransactOp[] => [
  { put: toPluginItem(next), ...pluginAtStatus(read.status) },
  { put: toUserPluginItem(next) },
  next.status === 'published'
    ? { put: toPublishedPluginItem(next) }
    : { delete: keys.publishedPlugin(next.id) },
];

/** The operations that delete a plugin (it must be there) and its listing copies. Pure. */
export const deletePluginOps = (plugin: Pick<Plugin, 'id' | 'createdBy'>): TransactOp[] => [
  { delete: keys.plugin(plugin.id), condition: PLUGIN_EXISTS },
  { delete: keys.userPlugin(plugin.createdBy, plugin.id) },
  { delete: keys.publishedPlugin(plugin.id) },
];
