import { describe, expect, it } from 'vitest';
import { installablePlugin } from '#shared/plugins/plugins.ts';
import { id, invalid, notFound } from '#test/support/answers.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { newPlugin, publishPlugin } from '#test/support/plugins.ts';
import { itemsMentioning } from '#test/support/scan.ts';

type User = Awaited<ReturnType<typeof newUser>>;

const create = (user: User, body: Record<string, unknown>) =>
  call('create-plugin', { token: user.auth, body });

const UNKNOWN = 'plg0000000000000000';

/** The plugins a user lists that this user created (the listing also holds every published plugin). */
const ownListed = async (user: User) =>
  (await call('list-plugins', { token: user.auth })).body.filter(
    (p: { createdBy: string }) => p.createdBy === user.id,
  );

describe('POST /plugin', () => {
  it('creates a developing plugin owned by the caller', async () => {
    const user = await newUser();
    const res = await create(user, {
      name: '  Chart  ',
      description: 'Draws charts',
      logo: 'https://plugins.example.test/chart.png',
      positions: ['dashboard', 'contextMenu'],
      url: 'https://plugins.example.test/chart',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: id('plg'),
      name: 'Chart',
      description: 'Draws charts',
      logo: 'https://plugins.example.test/chart.png',
      positions: ['dashboard', 'contextMenu'],
      url: 'https://plugins.example.test/chart',
      secret: expect.stringMatching(/^[0-9A-Za-z]{40}$/),
      status: 'developing',
      createdBy: user.id,
      createdTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      lastModifiedTime: res.body.createdTime,
    });
    // The secret is answered once; afterwards only its masked form.
    const got = await call('get-plugin', { token: user.auth, params: { pluginId: res.body.id } });
    const secret = res.body.secret as string;
    expect(got).toMatchObject({
      status: 200,
      body: { ...res.body, secret: `${secret.slice(0, 4)}${'*'.repeat(32)}${secret.slice(-4)}` },
    });
  });

  it('leaves out description and url when not given', async () => {
    const user = await newUser();
    const res = await create(user, { name: 'Menu', logo: '/logos/menu.png', positions: ['contextMenu'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'createdBy',
        'createdTime',
        'id',
        'lastModifiedTime',
        'logo',
        'name',
        'positions',
        'secret',
        'status',
      ].sort(),
    );
  });

  it('accepts a temporary token', async () => {
    const user = await newUser();
    const temp = await call('create-temp-token', { token: user.auth });
    const res = await call('create-plugin', {
      token: `Bearer ${temp.body.accessToken}`,
      body: { name: 'T', logo: 'https://plugins.example.test/t.png', positions: ['dashboard'] },
    });
    expect(res).toMatchObject({ status: 201, body: { createdBy: user.id } });
  });

  it.each([
    ['no name', { positions: ['dashboard'] }, /^Invalid body\.name/],
    ['an empty name', { name: '   ', positions: ['dashboard'] }, /^Invalid body\.name/],
    ['no positions', { name: 'P' }, /^Invalid body\.positions/],
    ['empty positions', { name: 'P', positions: [] }, /^Invalid body\.positions/],
    ['a repeated position', { name: 'P', positions: ['dashboard', 'dashboard'] }, /must not repeat/],
    ['an unknown position', { name: 'P', positions: ['sidebar'] }, /^Invalid body\.positions\.0/],
    [
      'a url that is not one',
      { name: 'P', positions: ['dashboard'], url: 'not a url' },
      /^Invalid body\.url/,
    ],
    [
      'a url that is not http(s)',
      { name: 'P', positions: ['dashboard'], url: 'javascript:alert(1)' },
      /^Invalid body\.url/,
    ],
    ['no logo', { logo: undefined, name: 'P', positions: ['dashboard'] }, /^Invalid body\.logo/],
    ['an empty logo', { logo: ' ', name: 'P', positions: ['dashboard'] }, /^Invalid body\.logo/],
    [
      'a description that is not text',
      { name: 'P', positions: ['dashboard'], description: 3 },
      /description/,
    ],
  ])('rejects %s with a 400 and writes nothing', async (_, body, message) => {
    const user = await newUser();
    expect(await create(user, { logo: 'https://plugins.example.test/p.png', ...body })).toMatchObject(
      invalid(message),
    );
    expect(await ownListed(user)).toEqual([]);
  });
});

describe('GET /plugin and GET /plugin/{pluginId}', () => {
  it('lists published plugins and the caller’s own, oldest first, never another user’s developing one', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const mine = await newPlugin(alice, { positions: ['dashboard'], name: 'Mine' });
    const bobsDeveloping = await newPlugin(bob, { positions: ['dashboard'], name: 'Bob dev' });
    const bobsPublished = await newPlugin(bob, { positions: ['contextMenu'], name: 'Bob pub' });
    await publishPlugin(bobsPublished.id);

    const aliceList = await call('list-plugins', { token: alice.auth });
    expect(aliceList.status).toBe(200);
    const ids = aliceList.body.map((p: { id: string }) => p.id);
    expect(ids).toContain(mine.id);
    expect(ids).toContain(bobsPublished.id);
    expect(ids).not.toContain(bobsDeveloping.id);
    expect(aliceList.body.find((p: { id: string }) => p.id === bobsPublished.id)).toMatchObject({
      status: 'published',
      createdBy: bob.id,
      name: 'Bob pub',
    });
    const times = aliceList.body.map((p: { createdTime: string }) => p.createdTime);
    expect(times).toEqual([...times].sort());

    const bobList = (await call('list-plugins', { token: bob.auth })).body.map((p: { id: string }) => p.id);
    expect(bobList).toEqual(expect.arrayContaining([bobsDeveloping.id, bobsPublished.id]));
    expect(bobList.filter((x: string) => x === bobsPublished.id)).toHaveLength(1);
    expect(bobList).not.toContain(mine.id);
  });

  it('shows a developing plugin to its creator and instance admins only (404 otherwise)', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const admin = await newUser({ isAdmin: true });
    const plugin = await newPlugin(alice);
    expect(await call('get-plugin', { token: alice.auth, params: { pluginId: plugin.id } })).toMatchObject({
      status: 200,
      body: { id: plugin.id, status: 'developing' },
    });
    expect(await call('get-plugin', { token: admin.auth, params: { pluginId: plugin.id } })).toMatchObject({
      status: 200,
      body: { id: plugin.id },
    });
    expect(await call('get-plugin', { token: bob.auth, params: { pluginId: plugin.id } })).toMatchObject(
      notFound(`Plugin ${plugin.id} not found`),
    );
    await publishPlugin(plugin.id);
    expect(await call('get-plugin', { token: bob.auth, params: { pluginId: plugin.id } })).toMatchObject({
      status: 200,
      body: { id: plugin.id, status: 'published' },
    });
  });

  it('answers 404 for an unknown plugin and 400 for a malformed id', async () => {
    const user = await newUser();
    expect(await call('get-plugin', { token: user.auth, params: { pluginId: UNKNOWN } })).toMatchObject(
      notFound(`Plugin ${UNKNOWN} not found`),
    );
    expect(
      await call('get-plugin', { token: user.auth, params: { pluginId: 'tbl0000000000000000' } }),
    ).toMatchObject(invalid(/^Invalid path\.pluginId: must be an id starting with plg/));
  });
});

describe('PATCH /admin/plugin/{pluginId}/publish', () => {
  it('publishes (instance admin), and a second publish changes nothing', async () => {
    const alice = await newUser();
    const plugin = await newPlugin(alice);
    const first = await publishPlugin(plugin.id);
    expect(first.body).toMatchObject({ id: plugin.id, status: 'published', createdBy: alice.id });
    const again = await publishPlugin(plugin.id);
    expect(again.body).toEqual(first.body);
    expect((await call('get-plugin', { token: alice.auth, params: { pluginId: plugin.id } })).body).toEqual(
      first.body,
    );
    expect(await ownListed(alice)).toEqual([first.body]);
  });

  it('refuses a user who is not an instance admin, even the creator (403), and publishes nothing', async () => {
    const alice = await newUser();
    const plugin = await newPlugin(alice);
    const res = await call('publish-plugin', { token: alice.auth, params: { pluginId: plugin.id } });
    expect(res).toMatchObject({ status: 403, body: { code: 'restricted_resource' } });
    expect(
      (await call('get-plugin', { token: alice.auth, params: { pluginId: plugin.id } })).body.status,
    ).toBe('developing');
  });

  it('answers 404 for an unknown plugin', async () => {
    const admin = await newUser({ isAdmin: true });
    expect(await call('publish-plugin', { token: admin.auth, params: { pluginId: UNKNOWN } })).toMatchObject(
      notFound(`Plugin ${UNKNOWN} not found`),
    );
  });
});

describe('DELETE /plugin/{pluginId}', () => {
  it('lets the creator delete a plugin and leaves no item behind', async () => {
    const alice = await newUser();
    const plugin = await newPlugin(alice);
    await publishPlugin(plugin.id);
    const res = await call('delete-plugin', { token: alice.auth, params: { pluginId: plugin.id } });
    expect(res).toMatchObject({ status: 200 });
    expect(await call('get-plugin', { token: alice.auth, params: { pluginId: plugin.id } })).toMatchObject(
      notFound(`Plugin ${plugin.id} not found`),
    );
    const other = await newUser();
    expect(
      (await call('list-plugins', { token: other.auth })).body.map((p: { id: string }) => p.id),
    ).not.toContain(plugin.id);
    expect(await itemsMentioning(plugin.id)).toEqual([]);
    expect(await call('delete-plugin', { token: alice.auth, params: { pluginId: plugin.id } })).toMatchObject(
      notFound(`Plugin ${plugin.id} not found`),
    );
  });

  it('lets an instance admin delete anyone’s plugin', async () => {
    const alice = await newUser();
    const admin = await newUser({ isAdmin: true });
    const plugin = await newPlugin(alice);
    expect(await call('delete-plugin', { token: admin.auth, params: { pluginId: plugin.id } })).toMatchObject(
      {
        status: 200,
      },
    );
    expect(await ownListed(alice)).toEqual([]);
    expect(await itemsMentioning(plugin.id)).toEqual([]);
  });

  it('refuses another user: 403 on a published plugin, 404 on a developing one they cannot see', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const developing = await newPlugin(alice);
    const published = await newPlugin(alice);
    await publishPlugin(published.id);
    expect(
      await call('delete-plugin', { token: bob.auth, params: { pluginId: published.id } }),
    ).toMatchObject({
      status: 403,
      body: { code: 'restricted_resource', message: expect.stringContaining(published.id) },
    });
    expect(
      await call('delete-plugin', { token: bob.auth, params: { pluginId: developing.id } }),
    ).toMatchObject(notFound(`Plugin ${developing.id} not found`));
    const ids = (await call('list-plugins', { token: alice.auth })).body.map((p: { id: string }) => p.id);
    expect(ids).toEqual(expect.arrayContaining([developing.id, published.id]));
  });
});

describe('installablePlugin (used by dashboards and context menus)', () => {
  it('lets the creator install a developing plugin, nobody else (403)', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const plugin = await newPlugin(alice);
    await expect(installablePlugin(plugin.id, alice.id, 'dashboard')).resolves.toMatchObject({
      id: plugin.id,
      status: 'developing',
    });
    await expect(installablePlugin(plugin.id, bob.id, 'dashboard')).rejects.toMatchObject({
      status: 403,
      code: 'restricted_resource',
    });
  });

  it('lets anyone install a published plugin', async () => {
    const alice = await newUser();
    const bob = await newUser();
    const plugin = await newPlugin(alice);
    await publishPlugin(plugin.id);
    await expect(installablePlugin(plugin.id, bob.id, 'contextMenu')).resolves.toMatchObject({
      id: plugin.id,
      status: 'published',
    });
  });

  it('refuses a position the plugin does not list (400) and an unknown plugin (404)', async () => {
    const alice = await newUser();
    const plugin = await newPlugin(alice, { positions: ['dashboard'] });
    await expect(installablePlugin(plugin.id, alice.id, 'contextMenu')).rejects.toMatchObject({
      status: 400,
      code: 'validation_error',
      message: `Plugin ${plugin.id} cannot be installed into contextMenu`,
    });
    await expect(installablePlugin(UNKNOWN, alice.id, 'dashboard')).rejects.toMatchObject({
      status: 404,
      message: `Plugin ${UNKNOWN} not found`,
    });
  });
});
