import { ConflictError, NotFoundError, ValidationError } from '#shared/core/errors.ts';
import { transact } from '#shared/db/commit.ts';
import { baseLiveCheck } from '#shared/entities/bases.ts';
import {
  type DashboardItems,
  type DashboardPlugin,
  dashboardPluginById,
  dashboardWithInstalls,
  deleteDashboardOps,
  deleteDashboardPlugin,
  nextLayoutVersionOp,
  placeDashboardPluginOp,
  putDashboardOp,
  putDashboardPluginOp,
  renameDashboardItem,
  renameDashboardPluginItem,
  setDashboardPluginStorage,
} from '#shared/entities/dashboards.ts';
import { newRootNodeOp } from '#shared/entities/node-append.ts';
import { baseContents } from '#shared/entities/node-tree.ts';
import type { Plugin } from '#shared/entities/plugins.ts';
import { newId, nodeIdOf } from '#shared/ids.ts';
import { checkInstallable } from '#shared/plugins/plugins.ts';

/**
 * Dashboards and the plugins installed on them (endpoints.md "Dashboards and plugins": dashboards,
 * installs and renaming an install).
 *
 * Storage: everything lives in the base's partition, so the base's permanent delete removes it.
 * A dashboard is `DASH#<dsh>` (name, `layoutVersion`); each install is its own item
 * `DASH#<dsh>#PLI#<pli>` holding the plugin id, the install's name and its layout box, so
 * renaming an install is one conditional UpdateItem that also answers the plugin id: with
 * authentication, 2 sequential round trips.
 *
 * Decisions where the contract is silent:
 * - A new install's box is `{x: 0, y: <bottom of the current layout>, w: 2, h: 2}`: below every
 *   box there is (the layout's bottom is the greatest y + h, 0 when empty); removing a box leaves
 *   the others where they are. `layout` lists the boxes top to bottom (then left to right, then by
 *   install time). Installing bumps the dashboard's `layoutVersion` in the same transaction, so
 *   two installs racing never take the same place (the loser re-reads and retries), and a
 *   dashboard deleted meanwhile makes the install a 404 rather than an orphan.
 * - A dashboard holds at most MAX_DASHBOARD_PLUGINS installs (400 beyond), so deleting it with
 *   its installs and its node is one transaction.
 * - The install's name defaults to the plugin's name. `pluginMap` entries are
 *   `{id: <plugin id>, pluginInstallId, name, positionId: <dashboard id>, position: "dashboard", url?}`.
 * - `GET /base/{baseId}/dashboard` lists `{id, name}` in the order of the base's tree.
 * - Create, rename, delete and the install routes need `base|update`; reading needs `base|read`.
 * - `PATCH …/layout` sets the boxes it lists (each id an install of this dashboard: 404 otherwise,
 *   400 when listed twice) and leaves the boxes of installs it does not list where they are; it
 *   answers the whole layout. It bumps `layoutVersion`, so it never races an install unseen.
 * - An install's storage is JSON text on its item; never set, it reads as `{}`, and an
 *   `update-storage` without `storage` stores `{}`.
 */

export const MAX_DASHBOARD_PLUGINS = 50;
const BOX = { w: 2, h: 2 } as const;

export interface LayoutBox {
  pluginInstallId: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

const dashboardGone = (id: string) => new NotFoundError(`Dashboard ${id} not found`);
const installGone = (id: string) => new NotFoundError(`Plugin install ${id} not found in this dashboard`);

/**
 * A dashboard and its installs (one query, or none when the base's items were read already);
 * 404 when the dashboard does not exist.
 */
const readDashboard = async (baseId: string, dashboardId: string, baseItems?: DashboardItems) => {
  const items = baseItems ?? (await dashboardWithInstalls(baseId, dashboardId));
  const dashboard = items.dashboards.find((d) => d.id === dashboardId);
  if (!dashboard) throw dashboardGone(dashboardId);
  const installs = items.installs.filter((i) => i.dashboardId === dashboardId);
  return { dashboard, installs };
};

type Placed = Pick<DashboardPlugin, 'id' | 'x' | 'y' | 'w' | 'h' | 'createdTime'>;

/** Layout boxes top to bottom, then left to right, then by install time. Pure. */
export const layoutOf = (installs: readonly Placed[]): LayoutBox[] =>
  [...installs]
    .sort(
      (a, b) =>
        a.y - b.y || a.x - b.x || a.createdTime.localeCompare(b.createdTime) || a.id.localeCompare(b.id),
    )
    .map((i) => ({ pluginInstallId: i.id, x: i.x, y: i.y, w: i.w, h: i.h }));

/** Where the next box goes: at the left, below every box (0 on an empty dashboard). Pure. */
export const nextBox = (
  installs: readonly Pick<Placed, 'y' | 'h'>[],
): { x: number; y: number; w: number; h: number } => ({
  x: 0,
  y: installs.reduce((bottom, i) => Math.max(bottom, i.y + i.h), 0),
  ...BOX,
});

const pluginEntry = (install: DashboardPlugin, dashboardId: string) => ({
  id: install.pluginId,
  pluginInstallId: install.id,
  name: install.name,
  positionId: dashboardId,
  position: 'dashboard' as const,
  ...(install.url !== undefined ? { url: install.url } : {}),
});

/** Creates a dashboard with its node at the end of the base's root. */
export const createDashboard = async (
  baseId: string,
  userId: string,
  name: string,
): Promise<{ id: string; name: string }> => {
  const id = newId('dashboard');
  const now = new Date();
  const nodeOp = await newRootNodeOp(baseId, 'dashboard', id, now);
  await transact(
    [
      putDashboardOp(baseId, {
        id,
        name,
        layoutVersion: 0,
        createdBy: userId,
        createdTime: now.toISOString(),
      }),
      nodeOp,
      baseLiveCheck(baseId),
    ],
    (i) => (i === 2 ? new NotFoundError(`Base ${baseId} not found`) : new ConflictError('retry the request')),
  );
  return { id, name };
};

/** Dashboards of a base, `{id, name}`, in the order of the base's tree (one query). */
export const listDashboards = async (baseId: string): Promise<{ id: string; name: string }[]> => {
  const { tree, dashboards: all } = await baseContents(baseId);
  const inTree = tree.ordered.filter((n) => n.resourceType === 'dashboard').map((n) => n.resourceId);
  const rank = new Map(inTree.map((id, i) => [id, i]));
  return all
    .sort(
      (a, b) =>
        (rank.get(a.id) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.id) ?? Number.MAX_SAFE_INTEGER) ||
        a.createdTime.localeCompare(b.createdTime),
    )
    .map((d) => ({ id: d.id, name: d.name }));
};

/** One dashboard with its layout and the plugins installed on it. */
export const getDashboard = async (baseId: string, dashboardId: string) => {
  const { dashboard, installs } = await readDashboard(baseId, dashboardId);
  return {
    id: dashboardId,
    name: dashboard.name,
    layout: layoutOf(installs),
    pluginMap: Object.fromEntries(installs.map((i) => [i.id, pluginEntry(i, dashboardId)])),
  };
};

/** Renames a dashboard (one conditional update). */
export const renameDashboard = async (
  baseId: string,
  dashboardId: string,
  name: string,
): Promise<{ id: string; name: string }> => {
  await renameDashboardItem(baseId, dashboardId, name, () => dashboardGone(dashboardId));
  return { id: dashboardId, name };
};

/**
 * Deletes a dashboard with its plugin installs and its project node, in one transaction
 * conditioned on the layout read, so an install racing with the delete is never left behind.
 */
export const deleteDashboard = async (
  baseId: string,
  dashboardId: string,
  /** The dashboards and installs of the base's partition, when the caller read them already. */
  baseItems?: DashboardItems,
): Promise<void> => {
  const { dashboard, installs } = await readDashboard(baseId, dashboardId, baseItems);
  await transact(
    deleteDashboardOps(baseId, dashboard, installs, nodeIdOf(dashboardId)),
    () => new ConflictError('The dashboard changed during the delete; retry the request'),
  );
};

/**
 * Installs a plugin on a dashboard, its box appended to the layout. `plugin` is the plugin read
 * with authentication: 404 unknown, 403 developing and not the caller's, 400 when the
 * plugin does not list `dashboard`.
 */
export const installDashboardPlugin = async (input: {
  baseId: string;
  dashboardId: string;
  userId: string;
  pluginId: string;
  plugin: Plugin | undefined;
  name?: string;
}): Promise<{ id: string; pluginId: string; pluginInstallId: string; name: string }> => {
  const plugin = checkInstallable(input.plugin, input.pluginId, input.userId, 'dashboard');
  const { baseId, dashboardId } = input;
  const pluginInstallId = newId('pluginInstall');
  const name = input.name ?? plugin.name;
  for (let attempt = 0; ; attempt++) {
    const { dashboard, installs } = await readDashboard(baseId, dashboardId);
    if (installs.length >= MAX_DASHBOARD_PLUGINS)
      throw new ValidationError(`A dashboard holds at most ${MAX_DASHBOARD_PLUGINS} plugins`);
    const raced = new ConflictError('The dashboard changed at the same time; retry the request');
    try {
      await transact(
        [
          nextLayoutVersionOp(baseId, dashboardId, dashboard.layoutVersion),
          putDashboardPluginOp(baseId, {
            id: pluginInstallId,
            dashboardId,
            pluginId: input.pluginId,
            name,
            ...(plugin.url ? { url: plugin.url } : {}),
            ...nextBox(installs),
            createdBy: input.userId,
            createdTime: new Date().toISOString(),
          }),
        ],
        () => raced,
      );
      return { id: dashboardId, pluginId: input.pluginId, pluginInstallId, name };
    } catch (error) {
      // another install (or a delete) won the race: read again; a deleted dashboard is a 404 there
      if (error !== raced || attempt >= 4) throw error;
    }
  }
};

/** Removes a plugin install and its box from a dashboard (404 when not on this dashboard). */
export const removeDashboardPlugin = async (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
): Promise<void> =>
  deleteDashboardPlugin(baseId, dashboardId, pluginInstallId, () => installGone(pluginInstallId));

/**
 * Renames a plugin installed on a dashboard: one conditional UpdateItem whose answer holds
 * the plugin id (404 when the install is not on this dashboard of this base).
 */
export const renameDashboardPlugin = async (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
  name: string,
): Promise<{ id: string; pluginInstallId: string; name: string }> => {
  const install = await renameDashboardPluginItem(baseId, dashboardId, pluginInstallId, name, () =>
    installGone(pluginInstallId),
  );
  return { id: install.pluginId, pluginInstallId, name: install.name };
};

/**
 * Sets the boxes of installs of a dashboard (one query and one transaction conditioned on the
 * layout read; retried when an install raced it) and answers the dashboard's whole layout. Boxes
 * of installs the dashboard does not have are left out.
 */
export const updateDashboardLayout = async (
  baseId: string,
  dashboardId: string,
  boxes: readonly LayoutBox[],
): Promise<{ id: string; layout: LayoutBox[] }> => {
  const seen = new Set<string>();
  for (const box of boxes) {
    if (seen.has(box.pluginInstallId))
      throw new ValidationError(`Plugin install ${box.pluginInstallId} is listed twice in the layout`);
    seen.add(box.pluginInstallId);
  }
  for (let attempt = 0; ; attempt++) {
    const { dashboard, installs } = await readDashboard(baseId, dashboardId);
    const byId = new Map(installs.map((i) => [i.id, i]));
    // a box of an install not on this dashboard (removed meanwhile, or any text, which Teable
    // takes as well) has nothing to place: it is left out, never a refusal
    const placed = boxes.filter((b) => byId.has(b.pluginInstallId));
    const now = new Date().toISOString();
    const raced = new ConflictError('The dashboard changed at the same time; retry the request');
    try {
      await transact(
        [
          nextLayoutVersionOp(baseId, dashboardId, dashboard.layoutVersion),
          ...placed.map((b) => placeDashboardPluginOp(baseId, dashboardId, b, now)),
        ],
        () => raced,
      );
    } catch (error) {
      // an install, a removal or another layout won the race: read again (a removed install is left out)
      if (error !== raced || attempt >= 4) throw error;
      continue;
    }
    const boxOf = new Map(placed.map((b) => [b.pluginInstallId, b]));
    return {
      id: dashboardId,
      layout: layoutOf(installs.map((i) => ({ ...i, ...(boxOf.get(i.id) ?? {}) }))),
    };
  }
};

/** One plugin install of a dashboard with its storage (`{}` when never set); 404 when not there. */
export const getDashboardPlugin = async (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
): Promise<{
  pluginId: string;
  pluginInstallId: string;
  baseId: string;
  name: string;
  storage: Record<string, unknown>;
}> => {
  const install = await dashboardPluginById(baseId, dashboardId, pluginInstallId);
  if (!install) throw installGone(pluginInstallId);
  return {
    pluginId: install.pluginId,
    pluginInstallId,
    baseId,
    name: install.name,
    storage: install.storage ?? {},
  };
};

/** Replaces the stored JSON of a dashboard's plugin install (one conditional update; 404 when not there). */
export const updateDashboardPluginStorage = async (
  baseId: string,
  dashboardId: string,
  pluginInstallId: string,
  storage: Record<string, unknown> = {},
): Promise<{
  baseId: string;
  dashboardId: string;
  pluginInstallId: string;
  storage: Record<string, unknown>;
}> => {
  await setDashboardPluginStorage(baseId, dashboardId, pluginInstallId, storage, () =>
    installGone(pluginInstallId),
  );
  return { baseId, dashboardId, pluginInstallId, storage };
};
