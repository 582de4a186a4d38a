import { describe, expect, it } from 'vitest';
import { SCOPES } from '#shared/auth/scopes.ts';
import { type HandlerName, ROUTES, type RouteDef } from '#shared/routes.ts';
import { createAccessToken } from '#shared/users/access-tokens.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallOptions, call } from '#test/support/invoke.ts';

/**
 * Every route of the route table against the three ways a caller is refused: no token (401), a
 * token without the route's scope (403), a user outside the resource's space (403). Each route
 * needs a valid sample request here, so a new route without one fails this file.
 */
interface World {
  owner: Awaited<ReturnType<typeof newUser>>;
  spaceId: string;
  tokenId: string;
  notificationId: string;
}

const future = () => new Date(Date.now() + 86_400_000).toISOString();

const SAMPLES: Record<HandlerName, (w: World) => CallOptions> = {
  'get-current-user': () => ({}),
  'create-temp-token': () => ({}),
  'create-access-token': () => ({ body: { name: 't', scopes: ['space|read'], expiredTime: future() } }),
  'list-access-tokens': () => ({}),
  'update-access-token': (w) => ({ params: { accessTokenId: w.tokenId }, body: { name: 'x' } }),
  'refresh-access-token': (w) => ({ params: { accessTokenId: w.tokenId }, body: { expiredTime: future() } }),
  'delete-access-token': (w) => ({ params: { accessTokenId: w.tokenId } }),
  'create-user': () => ({ body: { name: 'n', email: `m${Date.now()}${Math.random()}@example.test` } }),
  'create-space': () => ({ body: { name: 'S' } }),
  'list-spaces': () => ({}),
  'get-space': (w) => ({ params: { spaceId: w.spaceId } }),
  'update-space': (w) => ({ params: { spaceId: w.spaceId }, body: { name: 'R' } }),
  'delete-space': (w) => ({ params: { spaceId: w.spaceId } }),
  'delete-space-permanently': (w) => ({ params: { spaceId: w.spaceId } }),
  'list-collaborators': (w) => ({ params: { spaceId: w.spaceId } }),
  'add-collaborators': (w) => ({
    params: { spaceId: w.spaceId },
    body: { collaborators: [{ principalId: w.owner.id, principalType: 'user' }], role: 'viewer' },
  }),
  'update-collaborator': (w) => ({
    params: { spaceId: w.spaceId },
    body: { principalId: w.owner.id, principalType: 'user', role: 'owner' },
  }),
  'remove-collaborator': (w) => ({
    params: { spaceId: w.spaceId },
    query: `principalId=${w.owner.id}&principalType=user`,
  }),
  'list-notifications': () => ({}),
  'count-unread-notifications': () => ({}),
  'mark-all-notifications-read': () => ({}),
  'update-notification-status': (w) => ({
    params: { notificationId: w.notificationId },
    body: { isRead: true },
  }),
};

const world = async (): Promise<World> => {
  const owner = await newUser();
  const space = await call('create-space', { token: owner.auth, body: { name: 'Matrix' } });
  const token = await call('create-access-token', {
    token: owner.auth,
    body: { name: 'x', scopes: ['space|read'], expiredTime: future() },
  });
  return { owner, spaceId: space.body.id, tokenId: token.body.id, notificationId: 'not0000000000000000' };
};

/** The route table with its handler names kept. */
const TABLE: readonly (RouteDef & { handler: HandlerName })[] = ROUTES;

const onSpace = (r: RouteDef) => r.path.includes('{spaceId}');

describe('route matrix', () => {
  it('has a sample request for every route of the table', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(ROUTES.map((r) => r.handler).sort());
  });

  it.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s without a token is 401',
    async (_, route) => {
      const w = await world();
      const res = await call(route.handler, SAMPLES[route.handler](w));
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        message: 'A valid bearer token is required',
        status: 401,
        code: 'unauthorized',
      });
    },
  );

  const scoped = ROUTES.filter((r) => r.actions.length > 0);
  it.each(scoped.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s with a token lacking its scope is 403',
    async (_, route) => {
      const w = await world();
      const { token } = await createAccessToken(w.owner.id, {
        name: 'narrow',
        scopes: SCOPES.filter((s) => !(route.actions as readonly string[]).includes(s)),
        expiredTime: future(),
      });
      const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: `Bearer ${token}` });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('restricted_resource');
      expect(res.body.message).toContain(route.actions[0]);
    },
  );

  it.each(ROUTES.filter(onSpace).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s by a user outside the space is 403',
    async (_, route) => {
      const w = await world();
      const outsider = await newUser();
      const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: outsider.auth });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: `not a collaborator of space ${w.spaceId}`,
        status: 403,
        code: 'restricted_resource',
      });
    },
  );

  it.each(ROUTES.filter(onSpace).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s on a space that does not exist is 404',
    async (_, route) => {
      const w = await world();
      const res = await call(route.handler, {
        ...SAMPLES[route.handler]({ ...w, spaceId: 'spc0000000000000000' }),
        token: w.owner.auth,
      });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    },
  );

  it.each(TABLE.filter((r) => r.auth === 'admin').map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s by a user who is not an instance admin is 403',
    async (_, route) => {
      const w = await world();
      const res = await call(route.handler, { ...SAMPLES[route.handler](w), token: w.owner.auth });
      expect(res.status).toBe(403);
    },
  );
});
