import type { Item, ItemLookup } from '#shared/db/client.ts';
import { EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';

/**
 * Plugins: the record of truth `PLUGIN#<plg>` and two listing copies with the same attributes,
 * one in `PLUGINS#published` once published and one in the creator's partition. All three have
 * type `plugin`; only `status` ever changes, so the copies never go stale otherwise.
 */

export const PLUGIN_POSITIONS = ['dashboard', 'contextMenu'] as const;
export type PluginPosition = (typeof PLUGIN_POSITIONS)[number];
export type PluginStatus = 'developing' | 'published';

/** A plugin as stored (and answered). */
export interface Plugin {
  id: string;
  name: string;
  description?: string;
  positions: PluginPosition[];
  url?: string;
  status: PluginStatus;
  createdBy: string;
  createdTime: string;
}

const PLUGIN_TYPE = 'plugin';

const isPosition = (value: unknown): value is PluginPosition => PLUGIN_POSITIONS.some((p) => p === value);

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
export const pluginOf = (item: Item): Plugin => ({
  id: typeof item.id === 'string' ? item.id : '',
  name: typeof item.name === 'string' ? item.name : '',
  ...(typeof item.description === 'string' ? { description: item.description } : {}),
  positions: Array.isArray(item.positions) ? item.positions.filter(isPosition) : [],
  ...(typeof item.url === 'string' ? { url: item.url } : {}),
  status: item.status === 'published' ? 'published' : 'developing',
  createdBy: typeof item.createdBy === 'string' ? item.createdBy : '',
  createdTime: typeof item.createdTime === 'string' ? item.createdTime : '',
});

/** The plugin among items read in a batch (with authentication), if it is there. */
export const loadedPlugin = (loaded: ItemLookup, pluginId: string): Plugin | undefined => {
  const item = loaded.get(keys.plugin(pluginId));
  return item ? pluginOf(item) : undefined;
};

/** A new plugin: no item with its id yet. */
export const PLUGIN_NEW = NOT_EXISTS;
/** The plugin (or its creator's copy) is there: a delete or a publish of a plugin deleted meanwhile fails. */
export const PLUGIN_EXISTS = EXISTS;
