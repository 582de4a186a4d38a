import {
  assertMayInstallPlugin,
  assertPluginCreator,
  maySeePlugin,
  type Principal,
} from '#shared/auth/permission.ts';
import { hashSecret } from '#shared/auth/personal-token.ts';
import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import {
  createPluginOps,
  deletePluginOps,
  type Plugin,
  type PluginConfig,
  type PluginI18n,
  type PluginPosition,
  type PluginStatus,
  pluginById,
  pluginsByIds,
  pluginsOfUser,
  publishedPlugins,
  storePluginOps,
} from '#shared/entities/plugins.ts';
import { usersByIds } from '#shared/entities/users.ts';
import { newId, randomBase62 } from '#shared/ids.ts';

/**
 * Plugins (endpoints.md, "Dashboards and plugins"; teable-routes.md §2 "Dashboard and plugins").
 *
 * Decisions where the contract is silent:
 * - Anyone with a valid token (personal or temporary) may create a plugin; it starts `developing`
 *   and only its creator may install it until an instance admin publishes it.
 * - `GET /plugin` lists every published plugin plus the caller's own (developing and reviewing
 *   ones included), oldest first. An unpublished plugin is invisible (404) to everyone but its
 *   creator and instance admins. `GET /plugin/center/list` lists published plugins only.
 * - Its creator or an instance admin may delete a plugin. Installs already made stay where they
 *   are (a dashboard or a context menu keeps its entry, with the plugin id, until removed from
 *   it): finding them would need a reverse index over every table and dashboard, and a user's
 *   menu should not change under them. No new install of a deleted plugin is possible (404).
 *   Unpublishing keeps installs too.
 * - The secret (Teable's, for plugin sign-in, out of scope here) is answered in full once, by the
 *   create; only its hash and a masked form are stored, and every other answer gives the masked
 *   form, as Teable does.
 * - `PUT /plugin/{id}` replaces what it is given and removes the optional fields it is not given,
 *   except `logo`: a plugin always has one, so leaving it out keeps the current one.
 * - Publishing an already published plugin, or unpublishing a developing one, is a 200 with no
 *   change. Submitting needs a developing plugin (400 otherwise). Update, submit and unpublish
 *   are the creator's (instance admins unpublish through `/admin/plugin/{id}/unpublish`).
 * - Every write of a plugin writes the record and its listing copies in one transaction,
 *   conditioned on the status read; a write that lost a race to another is a 409.
 */

const notFound = (pluginId: string) => new NotFoundError(`Plugin ${pluginId} not found`);
const raced = (pluginId: string) =>
  new ConflictError(`Plugin ${pluginId} changed at the same time; retry the request`);

const visibleTo = maySeePlugin;

export {
  PLUGIN_POSITIONS,
  PLUGIN_STATUSES,
  type Plugin,
  type PluginPosition,
  type PluginStatus,
} from '#shared/entities/plugins.ts';

/** A plugin as answered: everything but the stored secret's hash, the secret masked unless given. */
export type PluginAnswer = Omit<Plugin, 'secretHash' | 'maskedSecret'> & { secret: string };

/** The answer of a plugin (the real secret only right after creating it). Pure. */
export const pluginAnswer = (plugin: Plugin, secret?: string): PluginAnswer => {
  const { secretHash: _hash, maskedSecret, ...shown } = plugin;
  return { ...shown, secret: secret ?? maskedSecret };
};

/** What a create or a full update of a plugin sets. */
export interface PluginInput {
  name: string;
  description?: string;
  detailDesc?: string;
  logo?: string;
  positions: PluginPosition[];
  url?: string;
  helpUrl?: string;
  i18n?: PluginI18n;
  config?: PluginConfig;
}

/** The optional fields of an input, absent ones left out. Pure. */
const describedBy = (input: PluginInput) => ({
  ...(input.description !== undefined ? { description: input.description } : {}),
  ...(input.detailDesc !== undefined ? { detailDesc: input.detailDesc } : {}),
  ...(input.url !== undefined ? { url: input.url } : {}),
  ...(input.helpUrl !== undefined ? { helpUrl: input.helpUrl } : {}),
  ...(input.i18n !== undefined ? { i18n: input.i18n } : {}),
  ...(input.config !== undefined ? { config: input.config } : {}),
});

/** A secret's masked form: its first and last 4 characters. Pure. */
const mask = (secret: string) => `${secret.slice(0, 4)}${'*'.repeat(secret.length - 8)}${secret.slice(-4)}`;

/**
 * Checks that a user may install a plugin read from the table into a position: 404 when there is
 * no such plugin, 403 when it is not published and the user is not its creator, 400 when the
 * plugin does not list the position. Pure (the plugin comes from a preloaded read).
 */
export const checkInstallable = (
  plugin: Plugin | undefined,
  pluginId: string,
  userId: string,
  position: PluginPosition,
): Plugin => {
  if (!plugin) throw notFound(pluginId);
  assertMayInstallPlugin(plugin, userId);
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
  return checkInstallable(await pluginById(pluginId), pluginId, userId, position);
};

/** Creates a developing plugin owned by the caller (the item and its creator's listing copy). */
export const createPlugin = async (
  principal: Principal,
  input: PluginInput & { logo: string },
): Promise<PluginAnswer> => {
  const secret = randomBase62(40);
  const now = new Date().toISOString();
  const plugin: Plugin = {
    id: newId('plugin'),
    name: input.name,
    ...describedBy(input),
    logo: input.logo,
    positions: input.positions,
    secretHash: hashSecret(secret),
    maskedSecret: mask(secret),
    status: 'developing',
    createdBy: principal.userId,
    createdTime: now,
    lastModifiedTime: now,
  };
  await transact(
    createPluginOps(plugin),
    () => new ConflictError('A new plugin id collided; retry the request'),
  );
  return pluginAnswer(plugin, secret);
};

const byAge = (a: Plugin, b: Plugin) =>
  a.createdTime.localeCompare(b.createdTime) || a.id.localeCompare(b.id);

/** Published plugins plus the caller's own, oldest first (two queries in parallel). */
export const listPlugins = async (principal: Principal): Promise<PluginAnswer[]> => {
  const [published, own] = await Promise.all([publishedPlugins(), pluginsOfUser(principal.userId)]);
  const byId = new Map<string, Plugin>();
  // The caller's own copies first, so a published copy (status authoritative after publish) wins.
  for (const plugin of [...own, ...published]) byId.set(plugin.id, plugin);
  return [...byId.values()].sort(byAge).map((p) => pluginAnswer(p));
};

/** The stored plugin the caller may see (404 otherwise). */
const visiblePlugin = async (principal: Principal, pluginId: string): Promise<Plugin> => {
  const plugin = await pluginById(pluginId);
  if (!plugin) throw notFound(pluginId);
  if (!visibleTo(plugin, principal)) throw notFound(pluginId);
  return plugin;
};

/** The stored plugin, when the caller created it (404 unseen, 403 someone else's). */
const ownPlugin = async (principal: Principal, pluginId: string, doing: string): Promise<Plugin> => {
  const plugin = await visiblePlugin(principal, pluginId);
  assertPluginCreator(plugin, principal, doing);
  return plugin;
};

/** One plugin the caller may see (404 otherwise). */
export const getPlugin = async (principal: Principal, pluginId: string): Promise<PluginAnswer> =>
  pluginAnswer(await visiblePlugin(principal, pluginId));

const store = async (read: Plugin, next: Plugin): Promise<void> =>
  transact(storePluginOps(read, next), () => raced(read.id));

/**
 * Deletes a plugin with its listing copies: its creator or an instance admin (others: 403 for a
 * published plugin they can see, 404 for one they cannot). Installs stay.
 */
export const deletePlugin = async (principal: Principal, pluginId: string): Promise<void> => {
  const plugin = await visiblePlugin(principal, pluginId);
  assertPluginCreator(plugin, principal, 'delete', true);
  await transact(deletePluginOps({ id: pluginId, createdBy: plugin.createdBy }), () => notFound(pluginId));
};

/** Replaces a plugin's description, positions and settings (its creator); the status stays. */
export const updatePlugin = async (
  principal: Principal,
  pluginId: string,
  input: PluginInput,
): Promise<PluginAnswer> => {
  const read = await ownPlugin(principal, pluginId, 'update');
  const next: Plugin = {
    id: read.id,
    name: input.name,
    ...describedBy(input),
    logo: input.logo ?? read.logo,
    positions: input.positions,
    secretHash: read.secretHash,
    maskedSecret: read.maskedSecret,
    status: read.status,
    createdBy: read.createdBy,
    createdTime: read.createdTime,
    lastModifiedTime: new Date().toISOString(),
  };
  await store(read, next);
  return pluginAnswer(next);
};

/** Submits a developing plugin for review (its creator; 400 unless developing). */
export const submitPlugin = async (principal: Principal, pluginId: string): Promise<void> => {
  const read = await ownPlugin(principal, pluginId, 'submit');
  if (read.status !== 'developing')
    throw new ValidationError(
      `Plugin ${pluginId} is ${read.status}: only a developing plugin can be submitted`,
    );
  await store(read, { ...read, status: 'reviewing', lastModifiedTime: new Date().toISOString() });
};

/** Moves a plugin to a status (nothing written when it is there already). */
const moveTo = async (read: Plugin, status: PluginStatus): Promise<Plugin> => {
  if (read.status === status) return read;
  const next: Plugin = { ...read, status, lastModifiedTime: new Date().toISOString() };
  await store(read, next);
  return next;
};

/** Publishes a developing or reviewing plugin (instance admin; the route checks). */
export const publishPlugin = async (pluginId: string): Promise<PluginAnswer> => {
  const plugin = await pluginById(pluginId);
  if (!plugin) throw notFound(pluginId);
  return pluginAnswer(await moveTo(plugin, 'published'));
};

/** Takes a plugin back to developing (its creator); installs stay. */
export const unpublishPlugin = async (principal: Principal, pluginId: string): Promise<void> => {
  await moveTo(await ownPlugin(principal, pluginId, 'unpublish'), 'developing');
};

/** Takes any plugin back to developing (instance admin; the route checks); installs stay. */
export const unpublishPluginAsAdmin = async (pluginId: string): Promise<void> => {
  const plugin = await pluginById(pluginId);
  if (!plugin) throw notFound(pluginId);
  await moveTo(plugin, 'developing');
};

/** A published plugin as the plugin center lists it, with its creator. */
export interface CenterPlugin {
  id: string;
  name: string;
  description?: string;
  detailDesc?: string;
  logo: string;
  helpUrl?: string;
  i18n?: PluginI18n;
  url?: string;
  status: PluginStatus;
  createdTime: string;
  lastModifiedTime: string;
  createdBy: { id: string; name: string; email: string; avatar: null };
}

/**
 * Published plugins, oldest first, those listing one of `positions` (when given) and among `ids`
 * (when given), each with its creator (one query and one batch read of the creators).
 */
export const listPluginCenter = async (filter: {
  positions?: readonly PluginPosition[];
  ids?: readonly string[];
}): Promise<CenterPlugin[]> => {
  const ids = filter.ids && new Set(filter.ids);
  const plugins = (await publishedPlugins())
    .filter((p) => !filter.positions || p.positions.some((at) => filter.positions?.includes(at)))
    .filter((p) => !ids || ids.has(p.id))
    .sort(byAge);
  const creators = [...new Set(plugins.map((p) => p.createdBy))];
  const found = creators.length > 0 ? await usersByIds(creators) : undefined;
  return plugins.map((p) => {
    const user = found?.get(p.createdBy);
    return {
      id: p.id,
      name: p.name,
      ...(p.description !== undefined ? { description: p.description } : {}),
      ...(p.detailDesc !== undefined ? { detailDesc: p.detailDesc } : {}),
      logo: p.logo,
      ...(p.helpUrl !== undefined ? { helpUrl: p.helpUrl } : {}),
      ...(p.i18n !== undefined ? { i18n: p.i18n } : {}),
      ...(p.url !== undefined ? { url: p.url } : {}),
      status: p.status,
      createdTime: p.createdTime,
      lastModifiedTime: p.lastModifiedTime,
      createdBy: { id: p.createdBy, name: user?.name ?? '', email: user?.email ?? '', avatar: null },
    };
  });
};

/** Plugins by id, read in one batch (for answers that show an install's plugin). */
export const pluginsById = (pluginIds: readonly string[]): Promise<Map<string, Plugin>> =>
  pluginsByIds(pluginIds);
