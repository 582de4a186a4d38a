/**
 * The dashboard, plugin and context-menu routes through Teable's own client (`@teable/openapi`
 * 1.10.0, pinned): each of the client's functions, pointed at the local server, and the answers
 * read back as a Teable user would read them.
 */
import {
  adminUnpublishPlugin,
  configApi,
  createBase,
  createDashboard,
  createPlugin,
  createSpace,
  createTable,
  getDashboardInstallPlugin,
  getPlugin,
  getPluginCenterList,
  getPluginContextMenu,
  getPluginContextMenuList,
  getPluginContextMenuStorage,
  installPlugin,
  installPluginContextMenu,
  PluginPosition,
  publishPlugin,
  renamePluginContextMenu,
  submitPlugin,
  unpublishPlugin,
  updateDashboardPluginStorage,
  updateLayoutDashboard,
  updatePlugin,
  updatePluginContextMenuStorage,
} from '@teable/openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

type User = Awaited<ReturnType<typeof newUser>>;
let author: User;
let admin: User;
const endpoint = () => api.base.replace(/\/api$/, '');
/** Runs `fn` with the client signed in as `user`, then as the author again. */
const as = async <T>(user: User, fn: () => Promise<T>): Promise<T> => {
  configApi({ token: user.token, endpoint: endpoint() });
  try {
    return await fn();
  } finally {
    configApi({ token: author.token, endpoint: endpoint() });
  }
};

const LOGO = 'https://plugins.example.test/logo.png';

/** A base and a table made through the client. */
const workspace = async () => {
  const space = await createSpace({ name: 'Compat plugins' });
  const base = await createBase({ spaceId: space.data.id });
  const table = await createTable(base.data.id, { name: 'Tasks' });
  return { baseId: base.data.id, tableId: table.data.id };
};

describe("plugin routes through Teable's client", () => {
  beforeAll(async () => {
    author = await newUser({ name: 'Compat author' });
    admin = await newUser({ isAdmin: true, name: 'Compat admin' });
    configApi({ token: author.token, endpoint: endpoint() });
  });

  it('creates, updates, submits, publishes, lists in the center and unpublishes a plugin', async () => {
    const created = await createPlugin({
      name: 'Chart',
      logo: LOGO,
      positions: [PluginPosition.Dashboard, PluginPosition.ContextMenu],
      url: 'https://plugins.example.test/chart',
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ name: 'Chart', logo: LOGO, status: 'developing' });
    expect(created.data.secret).toMatch(/^[0-9A-Za-z]{40}$/);
    const pluginId = created.data.id;

    const updated = await updatePlugin(pluginId, {
      name: 'Chart 2',
      positions: [PluginPosition.Dashboard, PluginPosition.View],
      i18n: { en: { title: 'Chart' } },
      config: { [PluginPosition.ContextMenu]: { width: 300 } },
    });
    expect(updated.data).toMatchObject({
      id: pluginId,
      name: 'Chart 2',
      logo: LOGO,
      positions: ['dashboard', 'view'],
      i18n: { en: { title: 'Chart' } },
      status: 'developing',
    });
    expect(updated.data).not.toHaveProperty('url');

    expect((await submitPlugin(pluginId)).status).toBe(200);
    expect((await getPlugin(pluginId)).data.status).toBe('reviewing');
    await expect(submitPlugin(pluginId)).rejects.toMatchObject({ status: 400 });

    expect((await as(admin, () => publishPlugin(pluginId))).status).toBe(200);
    const center = await getPluginCenterList([PluginPosition.View], [pluginId]);
    expect(center.data).toEqual([
      expect.objectContaining({
        id: pluginId,
        name: 'Chart 2',
        logo: LOGO,
        status: 'published',
        createdBy: { id: author.id, name: 'Compat author', email: expect.any(String), avatar: null },
      }),
    ]);
    expect((await getPluginCenterList([PluginPosition.Panel], [pluginId])).data).toEqual([]);

    expect((await unpublishPlugin(pluginId)).status).toBe(200);
    expect((await getPlugin(pluginId)).data.status).toBe('developing');
    await as(admin, () => publishPlugin(pluginId));
    await expect(adminUnpublishPlugin(pluginId)).rejects.toMatchObject({ status: 403 });
    expect((await as(admin, () => adminUnpublishPlugin(pluginId))).status).toBe(200);
    expect((await getPlugin(pluginId)).data.status).toBe('developing');
  });

  it('lays out a dashboard and stores JSON on its install', async () => {
    const { baseId } = await workspace();
    const plugin = await createPlugin({ name: 'Board', logo: LOGO, positions: [PluginPosition.Dashboard] });
    const dashboard = await createDashboard(baseId, { name: 'Sales' });
    const install = await installPlugin(baseId, dashboard.data.id, {
      pluginId: plugin.data.id,
      name: 'Board',
    });
    const installId = install.data.pluginInstallId;

    const layout = [{ pluginInstallId: installId, x: 2, y: 1, w: 4, h: 3 }];
    const laid = await updateLayoutDashboard(baseId, dashboard.data.id, layout);
    expect(laid.data).toEqual({ id: dashboard.data.id, layout });

    const stored = await updateDashboardPluginStorage(baseId, dashboard.data.id, installId, { range: 'Q1' });
    expect(stored.data).toEqual({
      baseId,
      dashboardId: dashboard.data.id,
      pluginInstallId: installId,
      storage: { range: 'Q1' },
    });
    const got = await getDashboardInstallPlugin(baseId, dashboard.data.id, installId);
    expect(got.data).toEqual({
      pluginId: plugin.data.id,
      pluginInstallId: installId,
      baseId,
      name: 'Board',
      storage: { range: 'Q1' },
    });
  });

  it('reads, renames and stores JSON on a context-menu install; the list shows logos', async () => {
    const { tableId } = await workspace();
    const plugin = await createPlugin({
      name: 'Translate',
      logo: LOGO,
      positions: [PluginPosition.ContextMenu],
      url: 'https://plugins.example.test/translate',
    });
    const install = await installPluginContextMenu(tableId, { pluginId: plugin.data.id });
    const installId = install.data.pluginInstallId;

    const got = await getPluginContextMenu(tableId, installId);
    expect(got.data).toEqual({
      name: 'Translate',
      tableId,
      pluginId: plugin.data.id,
      pluginInstallId: installId,
      positionId: tableId,
      url: 'https://plugins.example.test/translate',
    });
    expect((await getPluginContextMenuStorage(tableId, installId)).data.storage).toEqual({});

    expect((await renamePluginContextMenu(tableId, installId, { name: 'Translate all' })).status).toBe(200);
    const stored = await updatePluginContextMenuStorage(tableId, installId, { storage: { lang: 'fr' } });
    expect(stored.data).toEqual({ tableId, pluginInstallId: installId, storage: { lang: 'fr' } });
    expect((await getPluginContextMenuStorage(tableId, installId)).data).toEqual({
      name: 'Translate all',
      tableId,
      pluginId: plugin.data.id,
      pluginInstallId: installId,
      storage: { lang: 'fr' },
    });
    const list = await getPluginContextMenuList(tableId);
    expect(list.data).toEqual([
      { pluginInstallId: installId, name: 'Translate all', order: 0, pluginId: plugin.data.id, logo: LOGO },
    ]);
    await expect(getPluginContextMenu(tableId, 'pli0000000000000000')).rejects.toMatchObject({ status: 404 });
  });
});
