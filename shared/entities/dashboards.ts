import type { Item, TransactOp } from '#shared/db/client.ts';
import { and, EXISTS, NOT_EXISTS } from '#shared/db/conditions.ts';
import { keys } from '#shared/db/keys.ts';

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
