import type { HttpError } from '#shared/core/errors.ts';
import {
  deleteItem,
  getItem,
  type Item,
  queryAll,
  type TransactOp,
  type UpdateSpec,
  updateItem,
} from '#shared/db/client.ts';
import { and, EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { type Key, keys } from '#shared/db/keys.ts';

/**
 * Dashboards and their plugin installs, both in the base's partition: a dashboard is
 * `DASH#<dsh>` (type `dashboard`), each install `DASH#<dsh>#PLI#<pli>` (type `dashboardPlugin`)
 * with the plugin id, the install's name and its layout box. Installing bumps the dashboard's
 * `layoutVersion`, so writes that depend on the layout read are conditioned on it.
 */

export const DASHBOARD_TYPE = 'dashboard';
export const DASHBOARD_PLUGIN_TYPE = 'dashboardPlugin';

/** A dashboard as stored. */
export interface Dashboard {
  id: string;
  name: string;
  /** Bumped by every install; 0 for a dashboard stored without one. */
  layoutVersion: number;
  createdBy: string;
  createdTime: string;
  lastModifiedTime?: string;
}

/** A plugin installed on a dashboard, with its layout box, as stored. */
export interface DashboardPlugin {
  id: string;
  dashboardId: string;
  pluginId: string;
  name: string;
  url?: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** The install's stored JSON (`…/update-storage`); absent until set. */
  storage?: Record<string, unknown>;
  createdBy: string;
  createdTime: string;
  lastModifiedTime?: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const count = (value: unknown): number => (typeof value === 'number' ? value : Number(value ?? 0));

/** The item of a dashboard of a base. */
export const toDashboardItem = (baseId: string, dashboard: Dashboard): Item => ({
  ...keys.dashboard(baseId, dashboard.id),
  type: DASHBOARD_TYPE,
  ...dashboard,
});

/** The dashboard stored in an item. */
export const dashboardOf = (item: Item): Dashboard => ({
  id: text(item.id),
  name: text(item.name),
  layoutVersion: count(item.layoutVersion),
  createdBy: text(item.createdBy),
  createdTime: text(item.createdTime),
  ...(typeof item.lastModifiedTime === 'string' ? { lastModifiedTime: item.lastModifiedTime } : {}),
});

/** True for a dashboard item (among the other items of a base's partition). */
export const isDashboardItem = (item: Item): boolean => item.type === DASHBOARD_TYPE;

/**
 * An install's storage as stored: JSON text, since any JSON object may be stored (DynamoDB maps
 * refuse empty keys and deep nesting). Pure.
 */
export const storageText = (storage: Record<string, unknown>): string => JSON.stringify(storage);

/** The storage held in an attribute (absent, or JSON text of an object). Pure. */
export const storageOf = (value: unknown): Record<string, unknown> | undefined => {
  if (typeof value !== 'string') return undefined;
  const parsed: unknown = JSON.parse(value);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : undefined;
};

/** `{storage}` when an attribute holds one, else nothing (to spread into an entity). Pure. */
export const storageAttribute = (value: unknown): { storage?: Record<string, unknown> } => {
  const storage = storageOf(value);
  return storage !== undefined ? { storage } : {};
};

/** The item of a plugin install on a dashboard of a base. */
export const toDashboardPluginItem = (baseId: string, install: DashboardPlugin): Item => {
  const { storage, ...rest } = install;
  return {
    ...keys.dashboardPlugin(baseId, install.dashboardId, install.id),
    type: DASHBOARD_PLUGIN_TYPE,
    ...rest,
    ...(storage !== undefined ? { storage: storageText(storage) } : {}),
  };
};

/** The plugin install stored in an item. */
export const dashboardPluginOf = (item: Item): DashboardPlugin => ({
  id: text(item.id),
  dashboardId: text(item.dashboardId),
  pluginId: text(item.pluginId),
  name: text(item.name),
  ...(typeof item.url === 'string' ? { url: item.url } : {}),
  x: count(item.x),
  y: count(item.y),
  w: count(item.w),
  h: count(item.h),
  ...storageAttribute(item.storage),
  createdBy: text(item.createdBy),
  createdTime: text(item.createdTime),
  ...(typeof item.lastModifiedTime === 'string' ? { lastModifiedTime: item.lastModifiedTime } : {}),
});

/** True for a plugin install item (among the other items of a base's partition). */
export const isDashboardPluginItem = (item: Item): boolean => item.type === DASHBOARD_PLUGIN_TYPE;

/** A new dashboard or install: no item there yet. */
export const DASHBOARD_NEW = NOT_EXISTS;
/** The dashboard or install is there (rename). */
export const DASHBOARD_EXISTS = EXISTS;

/** The dashboard is there and its layout is still the one read (`layoutVersion` as given). */
export const atLayoutVersion = (version: number) => ({
  condition: and(EXISTS, 'layoutVersion = :v'),
  values: { ':v': version },
});

/**
 * Moves a dashboard's layout to the next version, on the condition that it is still the one read:
 * joins every write that changes which installs a dashboard holds or where they sit.
 */
export const nextLayoutVersionOp = (baseId: string, dashboardId: string, version: number): TransactOp => {
  const expected = atLayoutVersion(version);
  return {
    update: {
      key: keys.dashboard(baseId, dashboardId),
      update: 'SET layoutVersion = :next',
      condition: expected.condition,
      values: { ...expected.values, ':next': version + 1 },
    },
  };
};

/** Dashboards and plugin installs read together (a dashboard's, or a whole base's). */
export interface DashboardItems {
  dashboards: Dashboard[];
  installs: DashboardPlugin[];
}

/** The dashboards and installs among items of a base's partition. Pure. */
export const dashboardItemsOf = (items: readonly Item[]): DashboardItems => ({
  dashboards: items.filter(isDashboardItem).map(dashboardOf),
  installs: items.filter(isDashboardPluginItem).map(dashboardPluginOf),
});

/** A dashboard's item and its installs' items (one query of the dashboard's prefix). */
export const dashboardWithInstalls = async (baseId: string, dashboardId: string): Promise<DashboardItems> =>
  dashboardItemsOf(await queryAll(keys.dashboardWithPlugins(baseId, dashboardId)));

/** One plugin install of a dashboard, read with strong consistency, if it is there. */
export const dashboardPluginById = async (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
): Promise<DashboardPlugin | undefined> => {
  const item = await getItem(keys.dashboardPlugin(baseId, dashboardId, pluginInstallId));
  return item ? dashboardPluginOf(item) : undefined;
};

/** The operation that creates a dashboard of a base; fails on an id already taken. Pure. */
export const putDashboardOp = (baseId: string, dashboard: Dashboard): TransactOp => ({
  put: toDashboardItem(baseId, dashboard),
  condition: DASHBOARD_NEW,
});

/** The operation that puts a new plugin install on a dashboard; fails on an id already taken. Pure. */
export const putDashboardPluginOp = (baseId: string, install: DashboardPlugin): TransactOp => ({
  put: toDashboardPluginItem(baseId, install),
  condition: DASHBOARD_NEW,
});

/**
 * The operations that delete a dashboard still at the layout read, with the installs read and the
 * dashboard's project node (`nodeKey`'s node id). Pure.
 */
export const deleteDashboardOps = (
  baseId: string,
  dashboard: Pick<Dashboard, 'id' | 'layoutVersion'>,
  installs: readonly Pick<DashboardPlugin, 'id'>[],
  nodeId: string,
): TransactOp[] => [
  { delete: keys.dashboard(baseId, dashboard.id), ...atLayoutVersion(dashboard.layoutVersion) },
  ...installs.map((i) => ({ delete: keys.dashboardPlugin(baseId, dashboard.id, i.id) })),
  { delete: keys.node(baseId, nodeId) },
];

/** The operation that sets the box of an install still on a dashboard. Pure. */
export const placeDashboardPluginOp = (
  baseId: string,
  dashboardId: string,
  box: { pluginInstallId: string; x: number; y: number; w: number; h: number },
  now: string,
): TransactOp => ({
  update: {
    key: keys.dashboardPlugin(baseId, dashboardId, box.pluginInstallId),
    update: 'SET #x = :x, #y = :y, #w = :w, #h = :h, lastModifiedTime = :now',
    condition: DASHBOARD_EXISTS,
    names: { '#x': 'x', '#y': 'y', '#w': 'w', '#h': 'h' },
    values: { ':x': box.x, ':y': box.y, ':w': box.w, ':h': box.h, ':now': now },
  },
});

/** The rename of a dashboard or an install that is there. */
const renameUpdate = (key: Key, name: string): UpdateSpec => ({
  key,
  update: 'SET #name = :name, lastModifiedTime = :now',
  condition: DASHBOARD_EXISTS,
  names: { '#name': 'name' },
  values: { ':name': name, ':now': new Date().toISOString() },
});

/** Renames a dashboard that is there (one conditional update); one not there becomes `onMissing()`. */
export const renameDashboardItem = async (
  baseId: string,
  dashboardId: string,
  name: string,
  onMissing: () => HttpError,
): Promise<void> => {
  await updateItem(renameUpdate(keys.dashboard(baseId, dashboardId), name), onMissing, 'NONE');
};

/**
 * Renames a plugin install that is there (one conditional update) and answers it as written;
 * one not there becomes `onMissing()`.
 */
export const renameDashboardPluginItem = async (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
  name: string,
  onMissing: () => HttpError,
): Promise<DashboardPlugin> =>
  dashboardPluginOf(
    await updateItem(
      renameUpdate(keys.dashboardPlugin(baseId, dashboardId, pluginInstallId), name),
      onMissing,
    ),
  );

/** Replaces the stored JSON of an install that is there; one not there becomes `onMissing()`. */
export const setDashboardPluginStorage = async (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
  storage: Record<string, unknown>,
  onMissing: () => HttpError,
): Promise<void> => {
  await updateItem(
    {
      key: keys.dashboardPlugin(baseId, dashboardId, pluginInstallId),
      update: 'SET #storage = :storage, lastModifiedTime = :now',
      condition: DASHBOARD_EXISTS,
      names: { '#storage': 'storage' },
      values: { ':storage': storageText(storage), ':now': new Date().toISOString() },
    },
    onMissing,
    'NONE',
  );
};

/** Removes a plugin install from a dashboard; one not there becomes `onMissing()`. */
export const deleteDashboardPlugin = (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
  onMissing: () => HttpError,
): Promise<void> => deleteItem(keys.dashboardPlugin(baseId, dashboardId, pluginInstallId), onMissing);
