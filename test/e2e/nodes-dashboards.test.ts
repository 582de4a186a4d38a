import { describe, expect, it } from 'vitest';
import { drainPurges } from '#shared/jobs/purge-queue.ts';
import { newUser } from '#test/support/fixtures.ts';
import { newBaseOverHttp, useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe('dashboards over HTTP', () => {
  it('creates a dashboard, installs a plugin and renames the plugin install', async () => {
    const owner = await newUser({ name: 'Owner' });
    const baseId = await newBaseOverHttp(api, owner.auth, 'Team');
    const plugin = await api.request('POST', '/plugin', {
      token: owner.auth,
      body: { name: 'Chart', logo: 'https://example.test/chart.png', positions: ['dashboard'] },
    });
    const dashboard = await api.request('POST', `/base/${baseId}/dashboard`, {
      token: owner.auth,
      body: { name: 'Sales' },
    });
    expect(dashboard).toMatchObject({ status: 201, body: { name: 'Sales' } });
    const dsh = `/base/${baseId}/dashboard/${dashboard.body.id}`;
    const installed = await api.request('POST', `${dsh}/plugin`, {
      token: owner.auth,
      body: { pluginId: plugin.body.id },
    });
    expect(installed).toMatchObject({
      status: 201,
      body: { id: dashboard.body.id, pluginId: plugin.body.id, name: 'Chart' },
    });
    const pli = installed.body.pluginInstallId as string;

    const renamed = await api.request('PATCH', `${dsh}/plugin/${pli}/rename`, {
      token: owner.auth,
      body: { name: 'Revenue' },
    });
    expect(renamed).toMatchObject({
      status: 200,
      body: { id: plugin.body.id, pluginInstallId: pli, name: 'Revenue' },
    });
    expect(Object.keys(renamed.body).sort()).toEqual(['id', 'name', 'pluginInstallId']);

    const got = await api.request('GET', dsh, { token: owner.auth });
    expect(got.body.layout).toEqual([{ pluginInstallId: pli, x: 0, y: 0, w: 2, h: 2 }]);
    expect(got.body.pluginMap[pli]).toMatchObject({ id: plugin.body.id, name: 'Revenue' });

    const unknown = await api.request('PATCH', `${dsh}/plugin/pli0000000000000000/rename`, {
      token: owner.auth,
      body: { name: 'X' },
    });
    expect(unknown).toEqual({
      status: 404,
      headers: unknown.headers,
      body: {
        status: 404,
        code: 'not_found',
        message: 'Plugin install pli0000000000000000 not found in this dashboard',
      },
    });
    const empty = await api.request('PATCH', `${dsh}/plugin/${pli}/rename`, {
      token: owner.auth,
      body: { name: '' },
    });
    expect(empty).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const anonymous = await api.request('PATCH', `${dsh}/plugin/${pli}/rename`, { body: { name: 'X' } });
    expect(anonymous.status).toBe(401);
  });
});

describe('project nodes over HTTP', () => {
  it('builds a tree, moves nodes and deletes a table, a dashboard and a folder for good through their nodes', async () => {
    const owner = await newUser({ name: 'Owner' });
    const baseId = await newBaseOverHttp(api, owner.auth, 'Team');
    const nodes = `/base/${baseId}/node`;
    const table = await api.request('POST', `/base/${baseId}/table`, {
      token: owner.auth,
      body: { name: 'Orders' },
    });
    const dashboard = await api.request('POST', `/base/${baseId}/dashboard`, {
      token: owner.auth,
      body: { name: 'Board' },
    });
    const folder = await api.request('POST', nodes, {
      token: owner.auth,
      body: { resourceType: 'folder', name: 'Archive' },
    });
    expect(folder).toMatchObject({ status: 201, body: { resourceType: 'folder', parentId: null, order: 2 } });

    const tree = await api.request('GET', nodes, { token: owner.auth });
    expect(tree.body.map((n: { resourceMeta: { name: string } }) => n.resourceMeta.name)).toEqual([
      'Orders',
      'Board',
      'Archive',
    ]);
    const [tableNode, dashboardNode] = tree.body as { id: string }[];

    const moved = await api.request('PUT', `${nodes}/${tableNode?.id}/move`, {
      token: owner.auth,
      body: { parentId: folder.body.id },
    });
    expect(moved).toMatchObject({ status: 200, body: { parentId: folder.body.id, order: 0 } });

    // a folder with children is a 400
    const full = await api.request('DELETE', `${nodes}/${folder.body.id}/permanent`, { token: owner.auth });
    expect(full).toMatchObject({ status: 400, body: { code: 'validation_error' } });

    const goneTable = await api.request('DELETE', `${nodes}/${tableNode?.id}/permanent`, {
      token: owner.auth,
    });
    expect(goneTable).toMatchObject({
      status: 200,
      body: { resourceId: table.body.id, resourceType: 'table', permanent: true },
    });
    await drainPurges();
    expect(
      (await api.request('GET', `/base/${baseId}/table/${table.body.id}`, { token: owner.auth })).status,
    ).toBe(404);

    const goneDashboard = await api.request('DELETE', `${nodes}/${dashboardNode?.id}/permanent`, {
      token: owner.auth,
    });
    expect(goneDashboard.body).toEqual({
      resourceId: dashboard.body.id,
      resourceType: 'dashboard',
      permanent: true,
    });
    const goneFolder = await api.request('DELETE', `${nodes}/${folder.body.id}/permanent`, {
      token: owner.auth,
    });
    expect(goneFolder.body).toEqual({ resourceId: folder.body.id, resourceType: 'folder', permanent: true });

    expect((await api.request('GET', nodes, { token: owner.auth })).body).toEqual([]);
    const again = await api.request('DELETE', `${nodes}/${folder.body.id}/permanent`, { token: owner.auth });
    expect(again).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});
