import { describe, expect, it } from 'vitest';
import { ROUTES, resourceOf } from '#shared/routes.ts';

/**
 * The only routes that may declare no actions, each with what guards it instead. Adding a route
 * without actions fails this test until it is listed here with a reason a reviewer can check.
 */
const NO_ACTIONS_ALLOWED: Record<string, string> = {
  // Public (`auth: 'none'`): no token, and nothing of anyone is read.
  'GET /health': 'liveness and version only; reads nothing (definePublicHandler)',
  'GET /signin': 'a static sign-in form; reads nothing (definePublicHandler)',
  'GET /admin/setting':
    "any signed-in user: the instance's settings (sign-up closed?), from the stage's configuration; reads nothing of anyone",
  'GET /docs': 'the reference page: static HTML; reads nothing (definePublicHandler)',
  'GET /docs/{asset}':
    "the page's scripts and styles from the npm package; reads nothing (definePublicHandler)",
  'GET /openapi.json': 'the API description, generated from the code; reads nothing (definePublicHandler)',
  // Sign-in (`auth: 'password'`): the body's email and password, throttled per email and address.
  'POST /auth/signup': 'makes a new user (sign-up open) signed in as itself; nothing of anyone else',
  'POST /auth/signin': 'the password of the email given decides; nothing else is read',
  // The caller's own session and password.
  'POST /auth/signout': "ends the caller's own session",
  'PATCH /auth/change-password': "the caller's own password, checked first",
  'POST /auth/add-password': "the caller's own first password",
  // The caller's own data: nothing of a space is read or written.
  'GET /auth/user/me': 'answers the calling user only',
  'GET /notifications': "the caller's own notifications",
  'GET /notifications/unread-count': "the caller's own counter",
  'PATCH /notifications/read-all': "the caller's own notifications",
  'PATCH /notifications/{notificationId}/status': "the caller's own notification (404 for another's)",
  'GET /pin/list': "the caller's own pins, only those whose space or base it may read (`<type>|read`)",
  'POST /pin': "the caller's own pins; checks `<type>|read` on the space or base named in the body",
  'DELETE /pin': "the caller's own pin (unpinning needs no right on the thing)",
  'PUT /pin/order': "the caller's own pins (404 for one not pinned)",
  'GET /access-token': "the caller's own tokens, never a secret",
  'GET /access-token/{accessTokenId}': "one of the caller's own tokens (404 for another's), never a secret",
  'GET /auth/user': 'answers the calling user only',
  'PATCH /user/name': 'renames the caller only (personal token)',
  'GET /job/{kind}/{resourceId}': "a background job the caller started (404 for another's)",
  'GET /import/analyze': "a file the caller uploaded (404 for another's)",
  'GET /base/access/all': "the caller's own bases, within the token's limits and its base|read scope",
  // Tokens: the token ceiling (shared/auth/token-ceiling.ts) bounds what a token may give.
  'GET /auth/temp-token': "a copy of the calling token's own scopes and limits",
  'POST /access-token': 'scopes and limits within the calling token (403 otherwise)',
  'PATCH /access-token/{accessTokenId}': 'the token and its new rights within the calling token',
  'PUT /access-token/{accessTokenId}': 'the token and its new rights within the calling token',
  'POST /access-token/{accessTokenId}/refresh': 'only a token within the calling token',
  'DELETE /access-token/{accessTokenId}': 'only a token within the calling token',
  // Trash: the right depends on the trashed item's kind. The trash-item routes act on the resource
  // kind `trashItem`: the chain checks `<type>|delete` on the item's resource (shared/auth/trash-access.ts).
  'GET /trash': 'lists only what the role and token may delete (`<type>|delete`)',
  'POST /trash/restore/{trashId}': "checks `<type>|delete` on the item's resource",
  'DELETE /trash/{trashId}': "checks `<type>|delete` on the item's resource",
};

const name = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('route access declarations', () => {
  it('every route declares the actions it needs, unless it is on the commented allow-list', () => {
    const undeclared = ROUTES.filter((r) => r.actions.length === 0).map(name);

    expect(undeclared.filter((r) => !(r in NO_ACTIONS_ALLOWED))).toEqual([]);
  });

  it('the allow-list names only routes that exist and still declare no actions', () => {
    const undeclared = new Set(ROUTES.filter((r) => r.actions.length === 0).map(name));

    expect(Object.keys(NO_ACTIONS_ALLOWED).filter((r) => !undeclared.has(r))).toEqual([]);
  });

  it('every /admin route needs instance|admin (and with it the admin flag), but the settings every user reads', () => {
    // Teable's web app reads the instance's settings (may people sign up?) on every space page, as any user
    const admin = ROUTES.filter((r) => r.path.startsWith('/admin/') && name(r) !== 'GET /admin/setting');

    expect(admin.length).toBeGreaterThan(0);
    for (const route of admin) expect(route.actions as readonly string[]).toContain('instance|admin');
  });

  it('every /plugin route needs a plugin scope', () => {
    const plugin = ROUTES.filter((r) => /^\/(admin\/)?plugin(\/|$)/.test(r.path));

    expect(plugin.map(name).sort()).toEqual([
      'DELETE /plugin/{pluginId}',
      'GET /plugin',
      'GET /plugin/center/list',
      'GET /plugin/{pluginId}',
      'PATCH /admin/plugin/{pluginId}/publish',
      'PATCH /admin/plugin/{pluginId}/unpublish',
      'PATCH /plugin/{pluginId}/submit',
      'PATCH /plugin/{pluginId}/unpublish',
      'POST /plugin',
      'PUT /plugin/{pluginId}',
    ]);
    for (const route of plugin)
      expect((route.actions as readonly string[]).some((a) => a.startsWith('plugin|'))).toBe(true);
  });

  it('a route acts on the deepest resource id of its path unless it declares another', () => {
    expect(resourceOf({ path: '/base/{baseId}/table/{tableId}/record' })).toEqual({
      kind: 'table',
      param: 'tableId',
    });
    expect(resourceOf({ path: '/base/{baseId}/node/{nodeId}' })).toEqual({ kind: 'base', param: 'baseId' });
    expect(resourceOf({ path: '/space/{spaceId}/collaborators' })).toEqual({
      kind: 'space',
      param: 'spaceId',
    });
    expect(resourceOf({ path: '/enterprise/{organizationId}' })).toEqual({
      kind: 'organization',
      param: 'organizationId',
    });
    expect(resourceOf({ path: '/trash/restore/{trashId}' })).toEqual({ kind: 'trashItem', param: 'trashId' });
    expect(resourceOf({ path: '/access-token/{accessTokenId}' })).toBeUndefined();
    const declared = { kind: 'base', param: 'resourceId', in: 'query' } as const;
    expect(resourceOf({ path: '/trash/items', resource: declared })).toBe(declared);
  });

  it('routes whose resource is not the deepest id of the path declare it (and the node deletes theirs)', () => {
    const declared = ROUTES.filter((r) => 'resource' in r).map(name);

    expect(declared.sort()).toEqual([
      'DELETE /base/{baseId}/node/{nodeId}',
      'DELETE /base/{baseId}/node/{nodeId}/permanent',
      'DELETE /base/{baseId}/permanent',
      'DELETE /base/{baseId}/table/{tableId}/permanent',
      'DELETE /space/{spaceId}/permanent',
      'DELETE /trash/reset-items',
      'GET /trash/items',
      'POST /attachments/signature',
      'POST /base',
    ]);
  });

  it('only routes on a table load its schema', () => {
    const loading = ROUTES.filter((r) => 'schema' in r && r.schema);

    expect(loading.length).toBeGreaterThan(0);
    for (const route of loading) expect(resourceOf(route)?.kind, name(route)).toBe('table');
  });
});
