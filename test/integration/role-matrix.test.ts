import { describe, expect, it } from 'vitest';
import type { Role } from '#shared/auth/scopes.ts';
import { type HandlerName, ROUTES, type RouteDef } from '#shared/routes.ts';
import { newUser } from '#test/support/fixtures.ts';
import { call } from '#test/support/invoke.ts';
import { publishPlugin } from '#test/support/plugins.ts';
import { newWorld, REQUESTS, succeedingRequest } from '#test/support/route-requests.ts';

/**
 * Roles × routes on tables and records: a collaborator with each role calls every route of a
 * table; the route is refused (403) exactly when the role lacks one of its actions. The expected
 * table is the contract's (auth-errors.md, "Roles"), written out here on its own. The requests
 * are the route matrix's (`test/support/route-requests.ts`), made ready by the owner.
 */
const CONTRACT: Record<Role, (action: string) => boolean> = {
  viewer: (a) => a.endsWith('|read'),
  commenter: (a) => a.endsWith('|read') || a === 'record|comment',
  editor: (a) =>
    a.endsWith('|read') ||
    a === 'record|comment' ||
    ['record|create', 'record|update', 'record|delete', 'view|create', 'view|update', 'view|delete'].includes(
      a,
    ),
  creator: (a) =>
    CONTRACT.editor(a) ||
    ['base|create', 'base|update', 'base|delete', 'space|invite'].includes(a) ||
    a.startsWith('table|') ||
    a.startsWith('field|'),
  owner: () => true,
};

const TABLE_ROUTES = (ROUTES as readonly (RouteDef & { handler: HandlerName })[]).filter(
  (r) => r.path.includes('{tableId}') || r.path.startsWith('/base/{baseId}/table'),
);

/** The shared world, its plugin published (a creator may install only a published plugin), and a caller of the role. */
const worldFor = async (role: Role) => {
  const w = await newWorld();
  await publishPlugin(w.pluginId);
  if (role === 'owner') return { w, caller: w.owner };
  const member = await newUser();
  const added = await call('add-collaborators', {
    token: w.owner.auth,
    params: { spaceId: w.spaceId },
    body: { collaborators: [{ principalId: member.id, principalType: 'user' }], role },
  });
  expect(added.status).toBe(201);
  return { w, caller: member };
};

const cases = (['viewer', 'commenter', 'editor', 'creator', 'owner'] as const).flatMap((role) =>
  TABLE_ROUTES.map((route) => [role, `${route.method} ${route.path}`, route] as const),
);

describe('roles × table and record routes', () => {
  it('has a sample for every table and record route', () => {
    expect(TABLE_ROUTES.filter((r) => !REQUESTS[r.handler]).map((r) => r.handler)).toEqual([]);
  });

  it.each(cases)('%s: %s', async (role, _, route) => {
    const { w, caller } = await worldFor(role);
    const res = await call(route.handler, {
      ...(await succeedingRequest(route.handler, w)),
      token: caller.auth,
    });
    const allowed = route.actions.every((a) => CONTRACT[role](a));
    if (allowed) expect(res.status, JSON.stringify(res.body)).toBeLessThan(400);
    else {
      expect(res.status).toBe(403);
      expect(res.body.message).toMatch(/^not allowed to operate \w+\|\w+ on /);
    }
  });
});
