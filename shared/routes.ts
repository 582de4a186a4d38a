import type { Scope } from './auth/scopes.ts';

/** Every route is served under this prefix, in the cloud and locally. */
export const API_PREFIX = '/api';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One route: one API Gateway route and one Lambda, whose code is `functions/<handler>.ts`.
 * - `access`: what the Lambda may do to the table (read routes get no write grant).
 * - `actions`: what the caller needs, in both its role on the resource's space and its token's
 *   scopes (routes on no space resource check only the token's scopes).
 * - `auth`: `token` (default) any valid token or a session cookie; `personal` a personal token or
 *   a session (not a temporary token); `password` no credential: the body's email and password
 *   (sign-up, sign-in); `none` nothing at all (the health check: it reads nothing). An
 *   instance-admin route says so by needing `instance|admin`, which also needs the user's admin flag.
 * A route with no actions must be on the commented allow-list of `test/unit/route-access.test.ts`.
 * - `resource`: what the route acts on, and so where its permission is checked. By default the
 *   deepest id of its path (`{tableId}`, then `{baseId}`, `{spaceId}`, `{organizationId}`,
 *   `{trashId}`: a trash item, checked as a delete of its resource; see
 *   `resourceOf`); declared only where it is found elsewhere (query, body) or may be in the trash.
 * - `schema`: the chain loads the table's schema (fields, views) for the handler, after the check.
 * - `status`: the success status (default 200).
 * What each route is for, in words, lives with the README generator (`infra/local/route-docs.ts`).
 * A Lambda's bundle carries only its own route (`routeOf`, `BUNDLED_ROUTE`), the local server and
 * the tests the whole table.
 */
export interface RouteDef {
  method: HttpMethod;
  path: string;
  handler: string;
  access: 'read' | 'write';
  actions: readonly Scope[];
  auth?: 'token' | 'personal' | 'password' | 'none';
  status?: number;
  /** The route sends mail: its Lambda alone may call SES, from the stage's sender only. */
  sendsMail?: boolean;
  /**
   * The route starts background work (a permanent delete, a rename that records follow): its
   * Lambda may send jobs to the purge queue (and nothing else may).
   */
  purges?: boolean;
  resource?: ResourceDecl;
  schema?: boolean;
  /**
   * The route writes, reads or deletes objects of the attachments bucket (`write`: put, get,
   * delete), or writes exports (`export`: put under `export/` only): its Lambda alone gets that
   * grant. Download URLs every record answer carries are signed with the `read` grant that all
   * Lambdas have on the bucket's objects.
   */
  files?: 'write' | 'export';
  /** The route also answers `HEAD` (its answer without the body), as monitors ask: the same Lambda. */
  head?: boolean;
  /**
   * The route starts or ends sessions, or sets passwords: its Lambda alone may write the login
   * partitions (`LOGIN#`, `LOGINTRY#`); every other route may only slide a session's expiry.
   */
  sessions?: boolean;
  /** The route wakes a base's webhooks (a redelivery, a webhook enabled again): its Lambda alone may send to the webhook queue. */
  webhooks?: boolean;
  /**
   * The route writes records, fields or views of its table: made with `X-Window-Id`, a write that
   * wrote goes onto the caller's undo stack of that table and window, so Ctrl+Z in the web app
   * takes the caller's last write (`shared/changes/undo-redo.ts`; a field's change or a view made
   * or deleted answers that its undo is not built, rather than undoing an earlier write).
   */
  undoable?: boolean;
}

export type ResourceKind = 'space' | 'base' | 'table' | 'organization' | 'trashItem' | 'node';

/**
 * Where a route finds the resource it acts on: its kind and the input field holding its id (a
 * path parameter unless `in` says otherwise). `includeTrashed`: the route also acts on a resource
 * in the trash (permanent deletes).
 */
export interface ResourceDecl {
  kind: ResourceKind;
  param: string;
  in?: 'params' | 'query' | 'body';
  includeTrashed?: boolean;
  /**
   * The request may leave the resource out (a query or body field): then only the token's scopes
   * are checked, and the route acts on the caller's own things (an upload not yet of any base).
   */
  optional?: boolean;
}

/** Path parameters that name a resource, deepest first. */
const RESOURCE_PARAMS = [
  ['tableId', 'table'],
  ['baseId', 'base'],
  ['spaceId', 'space'],
  ['organizationId', 'organization'],
  ['trashId', 'trashItem'],
] as const;

/** The resource a route acts on: the declared one, else the deepest resource id of its path. */
export const resourceOf = (route: Pick<RouteDef, 'path' | 'resource'>): ResourceDecl | undefined => {
  if (route.resource) return route.resource;
  const found = RESOURCE_PARAMS.find(([param]) => route.path.includes(`{${param}}`));
  return found ? { kind: found[1], param: found[0] } : undefined;
};

/** `resourceOf` at the type level: the kind of resource a route's handler receives. */
export type ResourceKindOf<R> = R extends { resource: { kind: infer K } }
  ? K
  : R extends { path: `${string}{tableId}${string}` }
    ? 'table'
    : R extends { path: `${string}{baseId}${string}` }
      ? 'base'
      : R extends { path: `${string}{spaceId}${string}` }
        ? 'space'
        : R extends { path: `${string}{organizationId}${string}` }
          ? 'organization'
          : R extends { path: `${string}{trashId}${string}` }
            ? 'trashItem'
            : undefined;

/** The one list of routes. The stack, the local server, the handlers and the tests read it. */
export const ROUTES = [
  // Operations: no token, no database (functions/get-health.ts)
  {
    method: 'GET',
    path: '/health',
    handler: 'get-health',
    access: 'read',
    actions: [],
    auth: 'none',
    head: true,
  },
  // The API description, generated from this table and the handlers' schemas (infra/openapi.ts)
  {
    method: 'GET',
    path: '/openapi.json',
    handler: 'get-openapi',
    access: 'read',
    actions: [],
    auth: 'none',
  },
  // The API reference page and its assets (shared/http/docs-page.ts)
  {
    method: 'GET',
    path: '/docs',
    handler: 'get-docs',
    access: 'read',
    actions: [],
    auth: 'none',
  },
  // A plain sign-in page for people without Teable's web app (shared/http/sign-in-page.ts)
  {
    method: 'GET',
    path: '/signin',
    handler: 'get-sign-in-page',
    access: 'read',
    actions: [],
    auth: 'none',
  },
  {
    method: 'GET',
    path: '/docs/{asset}',
    handler: 'get-docs-asset',
    access: 'read',
    actions: [],
    auth: 'none',
  },

  // Users and tokens
  {
    method: 'GET',
    path: '/auth/user/me',
    handler: 'get-current-user',
    access: 'read',
    actions: [],
  },
  {
    method: 'GET',
    path: '/auth/user',
    handler: 'get-user-info',
    access: 'read',
    actions: [],
  },
  // Sign-in with a password and the session cookie (contract: sessions; shared/users/sessions.ts)
  {
    method: 'POST',
    path: '/auth/signup',
    handler: 'sign-up',
    access: 'write',
    actions: [],
    auth: 'password',
    status: 201,
    sessions: true,
  },
  {
    method: 'POST',
    path: '/auth/signin',
    handler: 'sign-in',
    access: 'write',
    actions: [],
    auth: 'password',
    sessions: true,
  },
  {
    method: 'POST',
    path: '/auth/signout',
    handler: 'sign-out',
    access: 'write',
    actions: [],
    sessions: true,
  },
  {
    method: 'PATCH',
    path: '/auth/change-password',
    handler: 'change-password',
    access: 'write',
    actions: [],
    auth: 'personal',
    sessions: true,
  },
  {
    method: 'POST',
    path: '/auth/add-password',
    handler: 'add-password',
    access: 'write',
    actions: [],
    auth: 'personal',
    status: 201,
    sessions: true,
  },
  {
    method: 'PATCH',
    path: '/user/name',
    handler: 'rename-user',
    access: 'write',
    actions: [],
    auth: 'personal',
    purges: true,
  },
  {
    method: 'GET',
    path: '/auth/temp-token',
    handler: 'create-temp-token',
    access: 'read',
    actions: [],
    auth: 'personal',
  },
  {
    method: 'POST',
    path: '/access-token',
    handler: 'create-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
    status: 201,
  },
  {
    method: 'GET',
    path: '/access-token',
    handler: 'list-access-tokens',
    access: 'read',
    actions: [],
  },
  {
    method: 'PATCH',
    path: '/access-token/{accessTokenId}',
    handler: 'update-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
  },
  {
    method: 'PUT',
    path: '/access-token/{accessTokenId}',
    handler: 'replace-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
  },
  {
    method: 'GET',
    path: '/access-token/{accessTokenId}',
    handler: 'get-access-token',
    access: 'read',
    actions: [],
  },
  {
    method: 'POST',
    path: '/access-token/{accessTokenId}/refresh',
    handler: 'refresh-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
  },
  {
    method: 'DELETE',
    path: '/access-token/{accessTokenId}',
    handler: 'delete-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
  },
  {
    method: 'POST',
    path: '/admin/users',
    handler: 'create-user',
    access: 'write',
    actions: ['instance|admin'],
    status: 201,
  },

  // Spaces and collaborators
  {
    method: 'POST',
    path: '/space',
    handler: 'create-space',
    access: 'write',
    actions: ['space|create'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/space',
    handler: 'list-spaces',
    access: 'read',
    actions: ['space|read'],
  },
  {
    method: 'GET',
    path: '/space/{spaceId}',
    handler: 'get-space',
    access: 'read',
    actions: ['space|read'],
  },
  {
    method: 'PATCH',
    path: '/space/{spaceId}',
    handler: 'update-space',
    access: 'write',
    actions: ['space|update'],
  },
  {
    method: 'DELETE',
    path: '/space/{spaceId}',
    handler: 'delete-space',
    access: 'write',
    actions: ['space|delete'],
  },
  {
    method: 'DELETE',
    path: '/space/{spaceId}/permanent',
    handler: 'delete-space-permanently',
    resource: { kind: 'space', param: 'spaceId', includeTrashed: true },
    access: 'write',
    purges: true,
    actions: ['space|delete'],
  },
  {
    method: 'GET',
    path: '/space/{spaceId}/collaborators',
    handler: 'list-collaborators',
    access: 'read',
    actions: ['space|read'],
  },
  {
    method: 'POST',
    path: '/space/{spaceId}/collaborators',
    handler: 'add-collaborators',
    access: 'write',
    actions: ['space|invite'],
    status: 201,
  },
  {
    method: 'POST',
    path: '/space/{spaceId}/collaborator',
    handler: 'add-collaborator',
    access: 'write',
    actions: ['space|invite'],
    status: 201,
  },
  {
    method: 'PATCH',
    path: '/space/{spaceId}/collaborators',
    handler: 'update-collaborator',
    access: 'write',
    actions: ['space|grant_role'],
  },
  {
    method: 'DELETE',
    path: '/space/{spaceId}/collaborators',
    handler: 'remove-collaborator',
    access: 'write',
    actions: ['space|read'],
  },

  // Bases
  {
    method: 'POST',
    path: '/base',
    handler: 'create-base',
    resource: { kind: 'space', param: 'spaceId', in: 'body' },
    access: 'write',
    actions: ['base|create'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/space/{spaceId}/base',
    handler: 'list-bases',
    access: 'read',
    actions: ['base|read'],
  },
  // Webhooks (data-flow.md 4): a base's settings, so its editors (`base|update`) manage them
  {
    method: 'POST',
    path: '/base/{baseId}/webhook',
    handler: 'create-webhook',
    access: 'write',
    actions: ['base|update'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/base/{baseId}/webhook',
    handler: 'list-webhooks',
    access: 'read',
    actions: ['base|update'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/webhook/{webhookId}',
    handler: 'get-webhook',
    access: 'read',
    actions: ['base|update'],
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}/webhook/{webhookId}',
    handler: 'update-webhook',
    access: 'write',
    actions: ['base|update'],
    webhooks: true,
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/webhook/{webhookId}',
    handler: 'delete-webhook',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'POST',
    path: '/base/{baseId}/webhook/{webhookId}/rotate-secret',
    handler: 'rotate-webhook-secret',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/webhook/{webhookId}/deliveries',
    handler: 'list-webhook-deliveries',
    access: 'read',
    actions: ['base|update'],
  },
  {
    method: 'POST',
    path: '/base/{baseId}/webhook/{webhookId}/deliveries/{deliveryId}/redeliver',
    handler: 'redeliver-webhook',
    access: 'write',
    actions: ['base|update'],
    status: 202,
    webhooks: true,
  },
  {
    method: 'GET',
    path: '/base/{baseId}/changes',
    handler: 'list-changes',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}',
    handler: 'get-base',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}',
    handler: 'update-base',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}',
    handler: 'delete-base',
    access: 'write',
    actions: ['base|delete'],
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/permanent',
    handler: 'delete-base-permanently',
    resource: { kind: 'base', param: 'baseId', includeTrashed: true },
    access: 'write',
    purges: true,
    actions: ['base|delete'],
  },
  {
    method: 'GET',
    path: '/base/access/all',
    handler: 'list-accessible-bases',
    access: 'read',
    actions: [],
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/order',
    handler: 'update-base-order',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/move',
    handler: 'move-base',
    access: 'write',
    actions: ['space|update'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/permission',
    handler: 'get-base-permission',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/collaborators',
    handler: 'list-base-collaborators',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/collaborators/users',
    handler: 'list-base-collaborator-users',
    access: 'read',
    actions: ['base|read'],
  },

  // Tables, fields, views
  {
    method: 'POST',
    path: '/base/{baseId}/table',
    handler: 'create-table',
    access: 'write',
    actions: ['table|create'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table',
    handler: 'list-tables',
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table/{tableId}',
    handler: 'get-table',
    access: 'read',
    actions: ['table|read'],
    schema: true,
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}/table/{tableId}',
    handler: 'update-table',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/table/{tableId}',
    handler: 'delete-table',
    access: 'write',
    actions: ['table|delete'],
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/table/{tableId}/permanent',
    handler: 'delete-table-permanently',
    resource: { kind: 'table', param: 'tableId', includeTrashed: true },
    access: 'write',
    purges: true,
    actions: ['table|delete'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table/{tableId}/default-view-id',
    handler: 'get-default-view-id',
    access: 'read',
    actions: ['view|read'],
    schema: true,
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/table/{tableId}/name',
    handler: 'update-table-name',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/table/{tableId}/icon',
    handler: 'update-table-icon',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/table/{tableId}/description',
    handler: 'update-table-description',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/table/{tableId}/db-table-name',
    handler: 'update-table-db-table-name',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/table/{tableId}/order',
    handler: 'update-table-order',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table/{tableId}/permission',
    handler: 'get-table-permission',
    schema: true,
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'POST',
    path: '/table/{tableId}/field',
    handler: 'create-field',
    schema: true,
    access: 'write',
    actions: ['field|create'],
    status: 201,
    undoable: true,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/field',
    handler: 'list-fields',
    schema: true,
    access: 'read',
    actions: ['field|read'],
  },
  // The field editor's calculation plans (shared/tables/field-plan.ts)
  {
    method: 'POST',
    path: '/table/{tableId}/field/plan',
    handler: 'plan-field-create',
    schema: true,
    access: 'read',
    actions: ['field|create'],
    status: 201,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/field/{fieldId}/plan',
    handler: 'plan-field-convert',
    schema: true,
    access: 'read',
    actions: ['field|update'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/field/{fieldId}/plan',
    handler: 'plan-field',
    schema: true,
    access: 'read',
    actions: ['field|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'get-field',
    schema: true,
    access: 'read',
    actions: ['field|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'update-field',
    schema: true,
    access: 'write',
    actions: ['field|update'],
    undoable: true,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/field/{fieldId}/convert',
    handler: 'convert-field',
    schema: true,
    access: 'write',
    actions: ['field|update'],
    undoable: true,
  },
  {
    // Teable asks field|update here: the picker filter is part of the field's definition
    method: 'GET',
    path: '/table/{tableId}/field/{fieldId}/filter-link-records',
    handler: 'list-field-filter-link-records',
    schema: true,
    access: 'write',
    actions: ['field|update'],
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'delete-field',
    schema: true,
    access: 'write',
    actions: ['field|delete'],
    undoable: true,
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/field',
    handler: 'delete-fields',
    schema: true,
    access: 'write',
    actions: ['field|delete'],
    undoable: true,
  },
  {
    method: 'POST',
    path: '/table/{tableId}/view',
    handler: 'create-view',
    schema: true,
    access: 'write',
    actions: ['view|create'],
    status: 201,
    undoable: true,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/view',
    handler: 'list-views',
    schema: true,
    access: 'read',
    actions: ['view|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'get-view',
    schema: true,
    access: 'read',
    actions: ['view|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'update-view',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'delete-view',
    schema: true,
    access: 'write',
    actions: ['view|delete'],
    undoable: true,
  },

  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/record-order',
    handler: 'update-record-order',
    schema: true,
    access: 'write',
    actions: ['view|update'],
  },
  // The view routes of Teable's client (teable-routes.md 2, View)
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/name',
    handler: 'update-view-name',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/description',
    handler: 'update-view-description',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/filter',
    handler: 'update-view-filter',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/sort',
    handler: 'update-view-sort',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/group',
    handler: 'update-view-group',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/view/{viewId}/options',
    handler: 'update-view-options',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/column-meta',
    handler: 'update-view-column-meta',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/order',
    handler: 'move-view',
    schema: true,
    access: 'write',
    actions: ['view|update'],
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/manual-sort',
    handler: 'apply-view-manual-sort',
    schema: true,
    access: 'write',
    actions: ['view|update'],
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/locked',
    handler: 'update-view-locked',
    schema: true,
    access: 'write',
    actions: ['view|update'],
    undoable: true,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/view/{viewId}/filter-link-records',
    handler: 'list-view-filter-link-records',
    schema: true,
    access: 'read',
    actions: ['view|read'],
  },

  // Attachments (data-flow.md 6): a file of a base is signed, uploaded, confirmed, then read
  {
    method: 'POST',
    path: '/attachments/signature',
    handler: 'sign-attachment-upload',
    access: 'write',
    actions: ['record|update'],
    resource: { kind: 'base', param: 'baseId', in: 'body', optional: true },
    files: 'write',
    status: 201,
  },
  {
    method: 'PUT',
    path: '/attachments/upload/{token}',
    handler: 'upload-attachment-file',
    access: 'write',
    actions: ['record|update'],
    files: 'write',
    status: 201,
  },
  {
    method: 'POST',
    path: '/attachments/notify/{token}',
    handler: 'notify-attachment',
    access: 'write',
    actions: ['record|update'],
    files: 'write',
    status: 201,
  },
  {
    method: 'GET',
    path: '/attachments/{token}',
    handler: 'read-attachment',
    access: 'read',
    actions: ['record|read'],
    status: 302,
  },

  // Bulk data out (data-flow.md 7): a table or view as CSV
  {
    method: 'GET',
    path: '/export/{tableId}',
    handler: 'export-table-csv',
    schema: true,
    access: 'read',
    actions: ['record|read'],
    files: 'export',
  },

  // Bulk data in (data-flow.md 7): an uploaded CSV analyzed, imported as a new table or appended
  {
    method: 'GET',
    path: '/import/analyze',
    handler: 'analyze-import-file',
    access: 'read',
    actions: [],
  },
  {
    method: 'POST',
    path: '/import/{baseId}',
    handler: 'import-table-from-file',
    access: 'write',
    actions: ['table|create', 'record|create'],
    purges: true,
    status: 201,
  },
  {
    method: 'PATCH',
    path: '/import/{baseId}/{tableId}',
    handler: 'inplace-import-table',
    schema: true,
    access: 'write',
    actions: ['record|create'],
    purges: true,
  },

  // Records
  {
    method: 'GET',
    path: '/table/{tableId}/record/history',
    handler: 'list-record-history',
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/record/{recordId}/history',
    handler: 'get-record-history',
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'get-record',
    schema: true,
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'update-record',
    schema: true,
    access: 'write',
    actions: ['record|update'],
    undoable: true,
  },
  {
    method: 'POST',
    path: '/table/{tableId}/record/{recordId}/{fieldId}/uploadAttachment',
    handler: 'upload-record-attachment',
    schema: true,
    access: 'write',
    actions: ['record|update'],
    files: 'write',
    status: 201,
    undoable: true,
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'delete-record',
    schema: true,
    access: 'write',
    actions: ['record|delete'],
    undoable: true,
  },
  {
    method: 'POST',
    path: '/table/{tableId}/record',
    handler: 'create-records',
    schema: true,
    access: 'write',
    actions: ['record|create'],
    status: 201,
    undoable: true,
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/record',
    handler: 'update-records',
    schema: true,
    access: 'write',
    actions: ['record|update'],
    undoable: true,
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/record',
    handler: 'delete-records',
    schema: true,
    access: 'write',
    actions: ['record|delete'],
    undoable: true,
  },
  {
    method: 'POST',
    path: '/table/{tableId}/record/{recordId}/duplicate',
    handler: 'duplicate-record',
    schema: true,
    access: 'write',
    actions: ['record|create', 'record|read'],
    status: 201,
    undoable: true,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/record/{recordId}/status',
    handler: 'get-record-status',
    schema: true,
    access: 'read',
    actions: ['record|read'],
  },

  // Plugins and plugin context menus (shared/plugins/*)
  {
    method: 'POST',
    path: '/plugin',
    handler: 'create-plugin',
    access: 'write',
    actions: ['plugin|create'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/plugin',
    handler: 'list-plugins',
    access: 'read',
    actions: ['plugin|read'],
  },
  {
    method: 'GET',
    path: '/plugin/{pluginId}',
    handler: 'get-plugin',
    access: 'read',
    actions: ['plugin|read'],
  },
  {
    method: 'DELETE',
    path: '/plugin/{pluginId}',
    handler: 'delete-plugin',
    access: 'write',
    actions: ['plugin|delete'],
  },
  {
    method: 'PATCH',
    path: '/admin/plugin/{pluginId}/publish',
    handler: 'publish-plugin',
    access: 'write',
    actions: ['instance|admin', 'plugin|update'],
  },
  {
    method: 'PATCH',
    path: '/admin/plugin/{pluginId}/unpublish',
    handler: 'unpublish-plugin-as-admin',
    access: 'write',
    actions: ['instance|admin', 'plugin|update'],
  },
  {
    method: 'PUT',
    path: '/plugin/{pluginId}',
    handler: 'update-plugin',
    access: 'write',
    actions: ['plugin|update'],
  },
  {
    method: 'GET',
    path: '/plugin/center/list',
    handler: 'list-plugin-center',
    access: 'read',
    actions: ['plugin|read'],
  },
  {
    method: 'PATCH',
    path: '/plugin/{pluginId}/submit',
    handler: 'submit-plugin',
    access: 'write',
    actions: ['plugin|update'],
  },
  {
    method: 'PATCH',
    path: '/plugin/{pluginId}/unpublish',
    handler: 'unpublish-plugin',
    access: 'write',
    actions: ['plugin|update'],
  },
  {
    method: 'POST',
    path: '/table/{tableId}/plugin-context-menu/install',
    handler: 'install-context-menu-plugin',
    access: 'write',
    actions: ['table|update'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/plugin-context-menu',
    handler: 'list-context-menu-plugins',
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/plugin-context-menu/{pluginInstallId}',
    handler: 'remove-context-menu-plugin',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/plugin-context-menu/{pluginInstallId}/move',
    handler: 'move-context-menu-plugin',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/plugin-context-menu/{pluginInstallId}',
    handler: 'get-context-menu-plugin',
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/plugin-context-menu/{pluginInstallId}/rename',
    handler: 'rename-context-menu-plugin',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'PUT',
    path: '/table/{tableId}/plugin-context-menu/{pluginInstallId}/update-storage',
    handler: 'update-context-menu-plugin-storage',
    access: 'write',
    actions: ['table|update'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/plugin-context-menu/{pluginInstallId}/storage',
    handler: 'get-context-menu-plugin-storage',
    access: 'read',
    actions: ['table|read'],
  },

  // Project nodes and dashboards (shared/nodes/*, shared/dashboards/*): deleting a node checks
  // the delete right on its resource in the code (table|delete for a table, base|update otherwise)
  {
    method: 'GET',
    path: '/base/{baseId}/node',
    handler: 'list-nodes',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'POST',
    path: '/base/{baseId}/node',
    handler: 'create-node',
    access: 'write',
    actions: ['base|update'],
    status: 201,
  },
  {
    method: 'PUT',
    path: '/base/{baseId}/node/{nodeId}/move',
    handler: 'move-node',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/node/{nodeId}',
    handler: 'delete-node',
    // the base of the path, then the delete right on the node's resource (shared/auth/node-access.ts)
    resource: { kind: 'node', param: 'nodeId' },
    access: 'write',
    actions: ['base|read'],
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/node/{nodeId}/permanent',
    handler: 'delete-node-permanently',
    // the base of the path, then the delete right on the node's resource (shared/auth/node-access.ts)
    resource: { kind: 'node', param: 'nodeId' },
    access: 'write',
    purges: true,
    actions: ['base|read'],
  },
  {
    method: 'POST',
    path: '/base/{baseId}/dashboard',
    handler: 'create-dashboard',
    access: 'write',
    actions: ['base|update'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/base/{baseId}/dashboard',
    handler: 'list-dashboards',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/dashboard/{dashboardId}',
    handler: 'get-dashboard',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}/dashboard/{dashboardId}/rename',
    handler: 'rename-dashboard',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/dashboard/{dashboardId}',
    handler: 'delete-dashboard',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'POST',
    path: '/base/{baseId}/dashboard/{dashboardId}/plugin',
    handler: 'install-dashboard-plugin',
    access: 'write',
    actions: ['base|update'],
    status: 201,
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/dashboard/{dashboardId}/plugin/{pluginInstallId}',
    handler: 'remove-dashboard-plugin',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}/dashboard/{dashboardId}/plugin/{pluginInstallId}/rename',
    handler: 'rename-dashboard-plugin',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}/dashboard/{dashboardId}/layout',
    handler: 'update-dashboard-layout',
    access: 'write',
    actions: ['base|update'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/dashboard/{dashboardId}/plugin/{pluginInstallId}',
    handler: 'get-dashboard-plugin',
    access: 'read',
    actions: ['base|read'],
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}/dashboard/{dashboardId}/plugin/{pluginInstallId}/update-storage',
    handler: 'update-dashboard-plugin-storage',
    access: 'write',
    actions: ['base|update'],
  },

  // Organizations and domain verification (shared/organizations/*)
  {
    method: 'POST',
    path: '/enterprise',
    handler: 'create-organization',
    access: 'write',
    actions: ['enterprise|update'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/enterprise/{organizationId}',
    handler: 'get-organization',
    access: 'read',
    actions: ['enterprise|read'],
  },
  {
    method: 'POST',
    path: '/enterprise/{organizationId}/domain-verification',
    handler: 'add-organization-domain',
    access: 'write',
    actions: ['enterprise|update'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/enterprise/{organizationId}/domain-verification',
    handler: 'list-organization-domains',
    access: 'read',
    actions: ['enterprise|read'],
  },
  {
    method: 'DELETE',
    path: '/enterprise/{organizationId}/domain-verification/{domain}',
    handler: 'delete-organization-domain',
    access: 'write',
    actions: ['enterprise|update'],
  },
  {
    method: 'POST',
    path: '/enterprise/{organizationId}/domain-verification/verify',
    handler: 'verify-organization-domain',
    access: 'write',
    actions: ['enterprise|update'],
  },
  {
    method: 'POST',
    path: '/enterprise/{organizationId}/domain-verification/send-verification-email',
    handler: 'send-domain-verification-email',
    access: 'write',
    actions: ['enterprise|update'],
    sendsMail: true,
  },

  // Trash (shared/trash/*): restore and the delete for good check the delete right on the item's
  // resource themselves
  {
    method: 'GET',
    path: '/trash',
    handler: 'list-trash',
    access: 'read',
    actions: [],
  },
  {
    method: 'GET',
    path: '/trash/items',
    handler: 'list-trash-items',
    resource: { kind: 'base', param: 'resourceId', in: 'query' },
    access: 'read',
    actions: ['table|delete'],
  },
  {
    method: 'POST',
    path: '/trash/restore/{trashId}',
    handler: 'restore-trash-item',
    access: 'write',
    actions: [],
    status: 201,
  },
  {
    method: 'DELETE',
    path: '/trash/reset-items',
    handler: 'reset-trash-items',
    resource: { kind: 'base', param: 'resourceId', in: 'query' },
    access: 'write',
    purges: true,
    actions: ['table|delete'],
  },
  {
    method: 'DELETE',
    path: '/trash/{trashId}',
    handler: 'delete-trash-item',
    access: 'write',
    purges: true,
    actions: [],
  },
  // The state of a background job (a permanent delete, a rename's record rewrite), for its starter
  {
    method: 'GET',
    path: '/job/{kind}/{resourceId}',
    handler: 'get-job',
    access: 'read',
    actions: [],
  },

  // Record listing (shared/listing/*)
  {
    method: 'GET',
    path: '/table/{tableId}/record',
    handler: 'list-records',
    schema: true,
    access: 'read',
    actions: ['record|read'],
  },
  // Grid selections: ranges over the view's visible fields and the list's records
  {
    method: 'GET',
    path: '/table/{tableId}/selection/range-to-id',
    handler: 'get-selection-range-to-id',
    schema: true,
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/selection/copy',
    handler: 'copy-selection',
    schema: true,
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/selection/clear',
    handler: 'clear-selection',
    schema: true,
    access: 'write',
    actions: ['record|update'],
    undoable: true,
  },
  {
    // growing the grid also needs record|create (new rows) or field|create (new columns)
    method: 'PATCH',
    path: '/table/{tableId}/selection/paste',
    handler: 'paste-selection',
    schema: true,
    access: 'write',
    actions: ['record|update'],
    undoable: true,
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/selection/temporaryPaste',
    handler: 'temporary-paste-selection',
    schema: true,
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/selection/delete',
    handler: 'delete-selection',
    schema: true,
    access: 'write',
    actions: ['record|delete'],
  },
  // Aggregation: the list's query, measured over all its pages
  {
    method: 'GET',
    path: '/table/{tableId}/aggregation/row-count',
    handler: 'get-row-count',
    schema: true,
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/aggregation',
    handler: 'get-aggregations',
    schema: true,
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/aggregation/group-points',
    handler: 'get-group-points',
    schema: true,
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/aggregation/search-count',
    handler: 'get-search-count',
    schema: true,
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/aggregation/search-index',
    handler: 'get-search-index',
    schema: true,
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/aggregation/calendar-daily-collection',
    handler: 'get-calendar-daily-collection',
    schema: true,
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/aggregation/task-status-collection',
    handler: 'get-task-status-collection',
    access: 'read',
    actions: ['table|read'],
  },
  {
    method: 'POST',
    path: '/query-params',
    handler: 'create-query-params',
    access: 'write',
    actions: ['record|read'],
    status: 201,
  },

  // Undo and redo of the caller's own record writes in a window (`X-Window-Id`), on the change log
  // (shared/changes/undo-redo.ts); the rights a plan needs beyond update are checked when known
  {
    method: 'POST',
    path: '/table/{tableId}/undo-redo/undo',
    handler: 'undo',
    access: 'write',
    actions: ['record|update'],
    schema: true,
    status: 201,
  },
  {
    method: 'POST',
    path: '/table/{tableId}/undo-redo/redo',
    handler: 'redo',
    access: 'write',
    actions: ['record|update'],
    schema: true,
    status: 201,
  },
  // Comments are not built: their counts answer none (Teable's grid and expanded record ask them)
  {
    method: 'GET',
    path: '/comment/{tableId}/count',
    handler: 'get-comment-counts',
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'GET',
    path: '/comment/{tableId}/{recordId}/count',
    handler: 'get-record-comment-count',
    access: 'read',
    actions: ['record|read'],
  },
  // The instance settings the web app reads
  {
    method: 'GET',
    path: '/admin/setting',
    handler: 'get-instance-settings',
    access: 'read',
    actions: [],
  },
  // Notifications
  {
    method: 'GET',
    path: '/notifications',
    handler: 'list-notifications',
    access: 'read',
    actions: [],
  },
  {
    method: 'GET',
    path: '/notifications/unread-count',
    handler: 'count-unread-notifications',
    access: 'read',
    actions: [],
  },
  {
    method: 'PATCH',
    path: '/notifications/read-all',
    handler: 'mark-all-notifications-read',
    access: 'write',
    actions: [],
  },
  {
    method: 'PATCH',
    path: '/notifications/{notificationId}/status',
    handler: 'update-notification-status',
    access: 'write',
    actions: [],
  },
  // Pins: the caller's own starred spaces and bases (shared/pins/pins.ts); pinning checks the
  // right to read the thing named in the body, the list shows only what the caller may read.
  {
    method: 'GET',
    path: '/pin/list',
    handler: 'list-pins',
    access: 'read',
    actions: [],
  },
  {
    method: 'POST',
    path: '/pin',
    handler: 'add-pin',
    access: 'write',
    actions: [],
    status: 201,
  },
  {
    method: 'DELETE',
    path: '/pin',
    handler: 'delete-pin',
    access: 'write',
    actions: [],
  },
  {
    method: 'PUT',
    path: '/pin/order',
    handler: 'update-pin-order',
    access: 'write',
    actions: [],
  },
] as const satisfies readonly RouteDef[];

export type HandlerName = (typeof ROUTES)[number]['handler'];
/** The route table's entry of a handler, with its literal types. */
export type RouteNamed<N extends HandlerName> = Extract<(typeof ROUTES)[number], { handler: N }>;

/**
 * The JSON text of the one route a Lambda serves, put in by the bundler (`infra/bundling.ts`
 * `bundlingFor`). With it, `routeOf` never touches `ROUTES`, so the bundle leaves the table out.
 */
declare const BUNDLED_ROUTE: string | undefined;

const bundledRoute = (json: string, handler: HandlerName): RouteDef => {
  const route = JSON.parse(json) as RouteDef;
  if (route.handler !== handler) throw new Error(`Bundled for ${route.handler}, not ${handler}`);
  return route;
};

const lookUpRoute = (handler: HandlerName): RouteDef => {
  const route = ROUTES.find((r) => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
};

/** The route served by a handler; every handler module looks itself up here at load. */
export const routeOf = (handler: HandlerName): RouteDef =>
  typeof BUNDLED_ROUTE === 'string' ? bundledRoute(BUNDLED_ROUTE, handler) : lookUpRoute(handler);
