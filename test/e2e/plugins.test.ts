import { describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { newBaseOverHttp, useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe('plugins and a table’s plugin context menu over HTTP', () => {
  it('publishes a plugin, installs it three times and moves C before B in the context menu', async () => {
    const author = await newUser({ name: 'Author' });
    const admin = await newUser({ name: 'Admin', isAdmin: true });
    const owner = await newUser({ name: 'Owner' });

    const logo = 'https://plugins.example.test/t.png';
    const created = await api.request('POST', '/plugin', {
      token: author.auth,
      body: {
        name: 'Translate',
        logo,
        positions: ['contextMenu'],
        url: 'https://plugins.example.test/t',
      },
    });
    expect(created).toMatchObject({ status: 201, body: { name: 'Translate', status: 'developing' } });
    const pluginId = created.body.id as string;

    const baseId = await newBaseOverHttp(api, owner.auth, 'Team');
    const table = await api.request('POST', `/base/${baseId}/table`, { token: owner.auth, body: {} });
    expect(table.status).toBe(201);
    const menu = `/table/${table.body.id}/plugin-context-menu`;

    // Still developing: only its author may install it.
    const early = await api.request('POST', `${menu}/install`, { token: owner.auth, body: { pluginId } });
    expect(early).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
    expect(
      (await api.request('PATCH', `/admin/plugin/${pluginId}/publish`, { token: author.auth })).status,
    ).toBe(403);
    const published = await api.request('PATCH', `/admin/plugin/${pluginId}/publish`, { token: admin.auth });
    expect(published).toMatchObject({ status: 200, body: { id: pluginId, status: 'published' } });
    const listed = await api.request('GET', '/plugin', { token: owner.auth });
    expect(listed.body.map((p: { id: string }) => p.id)).toContain(pluginId);

    const ids: string[] = [];
    for (const name of ['A', 'B', 'C']) {
      const res = await api.request('POST', `${menu}/install`, {
        token: owner.auth,
        body: { pluginId, name },
      });
      expect(res).toMatchObject({ status: 201, body: { name, order: ids.length } });
      ids.push(res.body.pluginInstallId);
    }
    const [a, b, c] = ids as [string, string, string];

    const moved = await api.request('PUT', `${menu}/${c}/move`, {
      token: owner.auth,
      body: { anchorId: b, position: 'before' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toBeUndefined();
    const after = await api.request('GET', menu, { token: owner.auth });
    expect(after).toMatchObject({ status: 200 });
    expect(after.body).toEqual([
      { pluginInstallId: a, name: 'A', order: 0, pluginId, logo },
      { pluginInstallId: c, name: 'C', order: 1, pluginId, logo },
      { pluginInstallId: b, name: 'B', order: 2, pluginId, logo },
    ]);

    const badPosition = await api.request('PUT', `${menu}/${c}/move`, {
      token: owner.auth,
      body: { anchorId: b, position: 'middle' },
    });
    expect(badPosition).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const self = await api.request('PUT', `${menu}/${c}/move`, {
      token: owner.auth,
      body: { anchorId: c, position: 'after' },
    });
    expect(self).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const unknownAnchor = await api.request('PUT', `${menu}/${c}/move`, {
      token: owner.auth,
      body: { anchorId: 'pli0000000000000000', position: 'after' },
    });
    expect(unknownAnchor).toMatchObject({
      status: 404,
      body: { code: 'not_found', message: 'Anchor pli0000000000000000 not found in this context menu' },
    });
    const noToken = await api.request('PUT', `${menu}/${c}/move`, {
      body: { anchorId: b, position: 'after' },
    });
    expect(noToken.status).toBe(401);

    const removed = await api.request('DELETE', `${menu}/${a}`, { token: owner.auth });
    expect(removed.status).toBe(200);
    const final = await api.request('GET', menu, { token: owner.auth });
    expect(final.body.map((e: { name: string }) => e.name)).toEqual(['C', 'B']);

    const deleted = await api.request('DELETE', `/plugin/${pluginId}`, { token: author.auth });
    expect(deleted.status).toBe(200);
    expect((await api.request('GET', `/plugin/${pluginId}`, { token: author.auth })).status).toBe(404);
  });
});
