import type { Principal } from '#shared/auth/permission.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { getItem, getItems, queryAll, transact } from '#shared/db/client.ts';
import { keys } from '#shared/db/keys.ts';
import {
  PLUGIN_EXISTS,
  PLUGIN_NEW,
  type Plugin,
  type PluginPosition,
  pluginOf,
  toPluginItem,
  toPublishedPluginItem,
  toUserPluginItem,
} from '#shared/entities/plugins.ts';
import { newId } from '#shared/ids.ts';

/**
 * Plugins (endpoints.md, "Dashboards and plugins").
 *
 * Decisions where the contract is silent:
 * - Anyone with a valid token (personal or temporary) may create a plugin; it starts `developing`
 *   and only its creator may install it until an instance admin publishes it.
 * - `GET /plugin` lists every published plugin plus the caller's own (developing ones included),
 *   oldest first. A developing plugin is invisible (404) to everyone but its creator and
 *   instance admins.
 * - Its creator or an instance admin may delete a plugin. Installs already made stay where they
 *   are (a dashboard or a context menu keeps its entry, with the plugin id, until removed from
 *   it): finding them would need a reverse index over every table and dashboard, and a user's
 *   menu should not change under them. No new install of a deleted plugin is possible (404).
 * - Publishing an already published plugin is a 200 with no change. A plugin has no route to
 *   change its name, positions or url, so the listing copies never go stale except for `status`,
 *   which publishing updates in the same transaction.
 */

const notFound = (pluginId: string) => new NotFoundError(`Plugin ${pluginId} not found`);

/** Who may see a plugin: anyone once published; while developing, its creator and instance admins. */
const visibleTo = (plugin: Plugin, principal: Pick<Principal, 'userId' | 'isAdmin'>): boolean =>
  plugin.status === 'published' || plugin.createdBy === principal.userId || principal.isAdmin;

export {
  PLUGIN_POSITIONS,
  type Plugin,
  type PluginPosition,
  type PluginStatus,
} from '#shared/entities/plugins.ts';

/**
 * Checks that a user may install a plugin read from the table into a position: 404 when there is
 * no such plugin, 403 when it is still developing and the user is not its creator, 400 when the
 * plugin does not list the position. Pure (the plugin comes from a preloaded read).
 */
export const checkInstallable = (
  plugin: Plugin | undefined,
  pluginId: string,
  userId: string,
  position: PluginPosition,
): Plugin => {
  if (!plugin) throw notFound(pluginId);
  if (plugin.status !== 'published' && plugin.createdBy !== userId)
    throw new ForbiddenError(`Plugin ${pluginId} is still developing: only its creator may install it`);
  if (!plugin.positions.includes(position))
    throw new ValidationError(`Plugin ${pluginId} cannot be installed into ${position}`);
  return plugin;
};

/**
 * The plugin a user may install into a position (one strongly consistent read): 404 unknown,
 * 403 developing and not the creator's, 400 when the plugin does not list the position.
 */
export const installablePlugin = async (
  pluginId: string,
  userId: string,
  position: PluginPosition,
): Promise<Plugin> => {
  const item = await getItem(keys.plugin(pluginId));
  return checkInstallable(item && pluginOf(item), pluginId, userId, position);
};

/** Creates a developing plugin owned by the caller (the item and its creator's listing copy). */
export const createPlugin = async (
  principal: Principal,
  input: { name: string; description?: string; positions: PluginPosition[]; url?: string },
): Promise<Plugin> => {
  const plugin: Plugin = {
    id: newId('plugin'),
    name: input.name,
    ...(input.description !== undefined ? { description: input.description } : {}),
    positions: input.positions,
    ...(input.url !== undefined ? { url: input.url } : {}),
    status: 'developing',
    createdBy: principal.userId,
    createdTime: new Date().toISOString(),
  };
  await transact(
    [{ put: toPluginItem(plugin), condition: PLUGIN_NEW }, { put: toUserPluginItem(plugin) }],
    () => new ConflictError('A new plugin id collided; retry the request'),
  );
  return plugin;
};

/** Published plugins plus the caller's own, oldest first (two queries in parallel). */
export const listPlugins = async (principal: Principal): Promise<Plugin[]> => {
  const [published, own] = await Promise.all([
    queryAll(keys.publishedPlugins()),
    queryAll(keys.pluginsOf(principal.userId)),
  ]);
  const byId = new Map<string, Plugin>();
  // The caller's own copies first, so a published copy (status authoritative after publish) wins.
  for (const plugin of [...own, ...published].map(pluginOf)) byId.set(plugin.id, plugin);
  return [...byId.values()].sort(
    (a, b) => a.createdTime.localeCompare(b.createdTime) || a.id.localeCompare(b.id),
  );
};

/** One plugin the caller may see (404 otherwise). */
export const getPlugin = async (principal: Principal, pluginId: string): Promise<Plugin> => {
  const item = await getItem(keys.plugin(pluginId));
  if (!item) throw notFound(pluginId);
  const plugin = pluginOf(item);
  if (!visibleTo(plugin, principal)) throw notFound(pluginId);
  return plugin;
};

/**
 * Deletes a plugin with its listing copies: its creator or an instance admin (others: 403 for a
 * published plugin they can see, 404 for a developing one they cannot). Installs stay.
 */
export const deletePlugin = async (principal: Principal, pluginId: string): Promise<void> => {
  const plugin = await getPlugin(principal, pluginId);
  if (plugin.createdBy !== principal.userId && !principal.isAdmin)
    throw new ForbiddenError(`only the creator of plugin ${pluginId} or an instance admin may delete it`);
  await transact(
    [
      { delete: keys.plugin(pluginId), condition: PLUGIN_EXISTS },
      { delete: keys.userPlugin(plugin.createdBy, pluginId) },
      { delete: keys.publishedPlugin(pluginId) },
    ],
    () => notFound(pluginId),
  );
};

/** Publishes a plugin (instance admin; the route checks): status, listing copies, one transaction. */
export const publishPlugin = async (pluginId: string): Promise<Plugin> => {
  const item = await getItem(keys.plugin(pluginId));
  if (!item) throw notFound(pluginId);
  const stored = pluginOf(item);
  const plugin: Plugin = { ...stored, status: 'published' };
  if (stored.status === 'published') return plugin;
  await transact(
    [
      {
        update: {
          key: keys.plugin(pluginId),
          update: 'SET #status = :published',
          condition: PLUGIN_EXISTS,
          names: { '#status': 'status' },
          values: { ':published': 'published' },
        },
      },
      { put: toPublishedPluginItem(plugin) },
      {
        update: {
          key: keys.userPlugin(plugin.createdBy, pluginId),
          update: 'SET #status = :published',
          condition: PLUGIN_EXISTS,
          names: { '#status': 'status' },
          values: { ':published': 'published' },
        },
      },
    ],
    () => notFound(pluginId),
  );
  return plugin;
};

/** Plugins by id, read in one batch (for answers that show an install's plugin). */
export const pluginsById = async (pluginIds: readonly string[]): Promise<Map<string, Plugin>> => {
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
