import { describe, expect, it } from 'vitest';
import { ANSWERS } from '#infra/answers.ts';
import { SCOPES } from '#shared/auth/scopes.ts';
import { type HandlerName, ROUTES, type RouteDef } from '#shared/routes.ts';
import { createOperatorToken } from '#shared/users/access-tokens.ts';
import { newUser } from '#test/support/fixtures.ts';
import { type CallOptions, call } from '#test/support/invoke.ts';
import { future, newWorld, REQUESTS, succeedingRequest, type World } from '#test/support/route-requests.ts';

/**
 * Every route of the route table against the three ways a caller is refused: no token (401), a
 * token without the route's scope (403), a user outside the resource's space (403); and its
 * success answer against the shape the API description gives it (`infra/answers.ts`). Each route
 * needs a valid sample request (`test/support/route-requests.ts`, shared with the role matrix),
 * so a new route without one fails this file.
 */

/** The route table with its handler names kept. */
const TABLE: readonly (RouteDef & { handler: HandlerName })[] = ROUTES;

const onTableRoute = (r: RouteDef) => r.path.includes('{tableId}');

/**
 * The world the refusals are sent against, built once per kind of owner: a refused request writes
 * nothing (the contract: no partial write), so each need not build its own (~15 requests). The
 * tests whose request succeeds, or that change the world first, build their own.
 */
const refusalWorlds = new Map<boolean, Promise<World>>();
const refusalWorld = (options: { adminOwner?: boolean } = {}): Promise<World> => {
  const admin = options.adminOwner === true;
  let world = refusalWorlds.get(admin);
  if (!world) {
    world = newWorld({ adminOwner: admin });
    refusalWorlds.set(admin, world);
  }
  return world;
};

describe('route matrix', () => {
  it('has a sample request for every route of the table', () => {
    expect(Object.keys(REQUESTS).sort()).toEqual(ROUTES.map((r) => r.handler).sort());
  });

  it.each(
    TABLE.filter((r) => r.auth !== 'none' && r.auth !== 'password').map(
      (r) => [`${r.method} ${r.path}`, r] as const,
    ),
  )('%s without a token is 401', async (_, route) => {
    const w = await refusalWorld();
    const res = await call(route.handler, REQUESTS[route.handler](w));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      message: 'Sign in, or send a valid bearer token',
      status: 401,
      code: 'unauthorized',
    });
  });

  // A public route (`auth: 'none'`, the health check) answers without a token, reading nothing.
  it.each(TABLE.filter((r) => r.auth === 'none').map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s answers without a token',
    async (_, route) => {
      const res = await call(route.handler, REQUESTS[route.handler](await refusalWorld()));
      expect(res.status).toBe(200);
    },
  );

  const scoped = ROUTES.filter((r) => r.actions.length > 0);
  it.each(scoped.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s with a token lacking its scope is 403',
    async (_, route) => {
      // An admin route: the user is an admin, so the missing scope is what refuses the call.
      const w = await refusalWorld({
        adminOwner: (route.actions as readonly string[]).includes('instance|admin'),
      });
      const { token } = await createOperatorToken(w.owner.id, {
        name: 'narrow',
        scopes: SCOPES.filter((s) => !(route.actions as readonly string[]).includes(s)),
        expiredTime: future(),
      });
      const res = await call(route.handler, { ...REQUESTS[route.handler](w), token: `Bearer ${token}` });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('restricted_resource');
      expect(res.body.message).toContain(route.actions[0]);
    },
  );

  // The resource a route names in its path: a stranger to its space is refused, an unknown id is 404.
  const LEVELS = [
    { level: 'space', param: '{spaceId}', unknown: { spaceId: 'spc0000000000000000' } },
    { level: 'base', param: '{baseId}', unknown: { baseId: 'bse0000000000000000' } },
    { level: 'table', param: '{tableId}', unknown: { tableId: 'tbl0000000000000000' } },
  ] as const;
  const byLevel = LEVELS.flatMap(({ level, param, unknown }) =>
    ROUTES.filter((r) => r.path.includes(param)).map(
      (r) => [level, `${r.method} ${r.path}`, r, unknown] as const,
    ),
  );

  it.each(byLevel)('%s route %s by a user outside the space is 403', async (_, __, route) => {
    const w = await refusalWorld();
    const outsider = await newUser();
    const res = await call(route.handler, { ...REQUESTS[route.handler](w), token: outsider.auth });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: expect.stringMatching(/^not a collaborator of (space spc|the space that holds )\w+$/),
      status: 403,
      code: 'restricted_resource',
    });
    // The space's id is named only to a caller who named the space itself.
    const message = (res.body as { message: string }).message;
    if (!route.path.includes('{spaceId}') && !JSON.stringify(REQUESTS[route.handler](w)).includes(w.spaceId))
      expect(message).not.toContain(w.spaceId);
  });

  it.each(byLevel)('%s route %s on an id that does not exist is 404', async (_, __, route, unknown) => {
    const w = await refusalWorld();
    const res = await call(route.handler, {
      ...REQUESTS[route.handler]({ ...w, ...unknown }),
      token: w.owner.auth,
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it.each(ROUTES.filter(onTableRoute).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s on a table in the trash is 404',
    async (_, route) => {
      const w = await newWorld();
      const trashed = await call('delete-table', {
        token: w.owner.auth,
        params: { baseId: w.baseId, tableId: w.tableId },
      });
      expect(trashed.status).toBe(200);
      const res = await call(route.handler, { ...REQUESTS[route.handler](w), token: w.owner.auth });
      if (route.handler === 'delete-table-permanently') expect(res.status).toBe(200);
      else expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
    },
  );

  it.each(
    TABLE.filter((r) => (r.actions as readonly string[]).includes('instance|admin')).map(
      (r) => [`${r.method} ${r.path}`, r] as const,
    ),
  )('%s by a user who is not an instance admin is 403', async (_, route) => {
    const w = await refusalWorld();
    const res = await call(route.handler, { ...REQUESTS[route.handler](w), token: w.owner.auth });
    expect(res.status).toBe(403);
  });

  // Organization routes: only the organization's admins (403 for anyone else), 404 for an unknown one.
  const onOrgRoutes = ROUTES.filter((r) => r.path.includes('{organizationId}')).map(
    (r) => [`${r.method} ${r.path}`, r] as const,
  );
  it.each(onOrgRoutes)('%s by a user who is not the organization admin is 403', async (_, route) => {
    const w = await refusalWorld();
    const outsider = await newUser();
    const res = await call(route.handler, { ...REQUESTS[route.handler](w), token: outsider.auth });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('not an admin of the organization');
  });
  it.each(onOrgRoutes)('%s on an organization that does not exist is 404', async (_, route) => {
    const w = await refusalWorld();
    const res = await call(route.handler, {
      ...REQUESTS[route.handler]({ ...w, organizationId: 'org0000000000000000' }),
      token: w.owner.auth,
    });
    expect(res).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});

/** Requests of this file's own for the documented answers, where the shared one answers too little. */
const ANSWERED: Partial<Record<HandlerName, (w: World) => CallOptions>> = {
  // grouped, so the answer carries group points and their schema is checked too
  'list-records': (w) => ({
    params: { tableId: w.tableId },
    query: `take=1&groupBy=${encodeURIComponent(JSON.stringify([{ fieldId: w.fieldId, order: 'asc' }]))}`,
  }),
};

/** A token of the owner (an instance admin), with every scope. */
const adminToken = async (w: World) => {
  const { token } = await createOperatorToken(w.owner.id, {
    name: 'admin',
    scopes: [...SCOPES],
    expiredTime: future(),
  });
  return `Bearer ${token}`;
};

// The API description does not lie: the owner's call of every route succeeds with the answer
// `infra/answers.ts` describes (the schema `infra/openapi.ts` writes into the description).
describe('documented answers', () => {
  it.each(TABLE.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s answers as the API description says',
    async (_, route) => {
      const admin = (route.actions as readonly string[]).includes('instance|admin');
      const w = await newWorld({ adminOwner: admin });
      const request = ANSWERED[route.handler]?.(w) ?? (await succeedingRequest(route.handler, w));
      const token = admin ? await adminToken(w) : w.owner.auth;
      const res = await call(route.handler, { ...request, token });
      expect(res.status, JSON.stringify(res.body)).toBe(route.status ?? 200);
      const answer = ANSWERS[route.handler];
      if (answer.kind === 'none') {
        expect(res.body).toBeUndefined();
        return;
      }
      const mediaTypes = answer.kind === 'text' ? answer.mediaTypes : ['application/json'];
      expect(mediaTypes).toContain(res.headers['content-type']?.split(';')[0]);
      const parsed = answer.schema.safeParse(res.body);
      expect(parsed.error?.issues ?? [], JSON.stringify(res.body).slice(0, 2000)).toEqual([]);
    },
  );
});
