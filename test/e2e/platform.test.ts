import { describe, expect, it } from 'vitest';
import { newUser } from '#test/support/fixtures.ts';
import { useTestServer } from '#test/support/server.ts';

const api = useTestServer();

describe('the platform over HTTP', () => {
  it('serves a client through me, spaces, collaborators, notifications and a temp token', async () => {
    const alice = await newUser({ name: 'Alice' });
    const bob = await newUser({ name: 'Bob' });

    const me = await api.request('GET', '/auth/user/me', { token: alice.auth });
    expect(me).toMatchObject({ status: 200, body: { id: alice.id, name: 'Alice', email: alice.email } });

    const space = await api.request('POST', '/space', { token: alice.auth, body: { name: 'Team' } });
    expect(space).toMatchObject({ status: 201, body: { name: 'Team' } });
    const spaceId = space.body.id as string;

    const added = await api.request('POST', `/space/${spaceId}/collaborators`, {
      token: alice.auth,
      body: { collaborators: [{ principalId: bob.id, principalType: 'user' }], role: 'editor' },
    });
    expect(added.status).toBe(201);

    const bobSpaces = await api.request('GET', '/space', { token: bob.auth });
    expect(bobSpaces.body).toEqual([{ id: spaceId, name: 'Team', role: 'editor' }]);

    expect((await api.request('GET', '/notifications/unread-count', { token: bob.auth })).body).toEqual({
      unreadCount: 1,
    });
    const list = await api.request('GET', '/notifications?notifyStates=unread', { token: bob.auth });
    expect(list.body.notifications).toHaveLength(1);
    expect(list.body.notifications[0]).toMatchObject({
      notifyType: 'system',
      isRead: false,
      url: `/space/${spaceId}`,
      message: 'Alice added you to the space Team as editor',
    });
    const readAll = await api.request('PATCH', '/notifications/read-all', { token: bob.auth });
    expect(readAll.status).toBe(200);
    expect((await api.request('GET', '/notifications/unread-count', { token: bob.auth })).body).toEqual({
      unreadCount: 0,
    });

    const temp = await api.request('GET', '/auth/temp-token', { token: alice.auth });
    expect(temp.status).toBe(200);
    const viaTemp = await api.request('GET', `/space/${spaceId}`, {
      token: `Bearer ${temp.body.accessToken}`,
    });
    expect(viaTemp.body).toMatchObject({ id: spaceId, role: 'owner' });

    const collaborators = await api.request('GET', `/space/${spaceId}/collaborators`, { token: bob.auth });
    expect(collaborators.body).toMatchObject({
      collaborators: [
        {
          userId: alice.id,
          userName: 'Alice',
          email: alice.email,
          role: 'owner',
          avatar: null,
          type: 'user',
        },
        { userId: bob.id, userName: 'Bob', email: bob.email, role: 'editor', avatar: null, type: 'user' },
      ],
      total: 2,
      uniqTotal: 2,
    });
  });

  it('answers an unknown route with a 404 error body', async () => {
    const res = await api.request('GET', '/no/such/route');
    expect(res).toMatchObject({ status: 404, body: { status: 404, code: 'not_found' } });
  });

  it('answers a known path under another method 405 with Allow and the error body', async () => {
    const res = await api.request('PUT', '/space');
    expect(res).toMatchObject({
      status: 405,
      body: {
        status: 405,
        code: 'method_not_allowed',
        message: '/api/space does not take PUT; it takes POST, GET',
      },
    });
    expect(res.headers.get('allow')).toBe('POST, GET');
  });

  it('answers a body that is not JSON with 415 and broken JSON with 400', async () => {
    const alice = await newUser();
    const text = await api.request('POST', '/space', {
      token: alice.auth,
      body: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text).toMatchObject({ status: 415, body: { code: 'unsupported_media_type', status: 415 } });
    const broken = await api.request('POST', '/space', { token: alice.auth, body: '{"name":' });
    expect(broken).toMatchObject({
      status: 400,
      body: { code: 'validation_error', message: 'The body is not valid JSON' },
    });
  });

  it('answers a body over 6 MB with 413 and writes nothing', async () => {
    const alice = await newUser();
    const name = 'x'.repeat(6 * 1024 * 1024 + 10);
    const res = await api.request('POST', '/space', { token: alice.auth, body: { name } });
    expect(res).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    expect((await api.request('GET', '/space', { token: alice.auth })).body).toEqual([]);
  });

  it('reads query arrays in bracket, repeated and bare forms the same way', async () => {
    const alice = await newUser();
    for (const q of ['notifyStates=unread', 'notifyStates[]=unread']) {
      const res = await api.request('GET', `/notifications?${q}`, { token: alice.auth });
      expect(res).toMatchObject({ status: 200, body: { notifications: [], nextCursor: null } });
    }
    const twice = await api.request('GET', '/notifications?notifyStates=unread&notifyStates=read', {
      token: alice.auth,
    });
    expect(twice.status).toBe(400);
  });
});
