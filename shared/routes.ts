import type { Scope } from './auth/scopes.ts';

/** Every route is served under this prefix, in the cloud and locally. */
export const API_PREFIX = '/api';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * One route: one API Gateway route and one Lambda, whose code is `functions/<handler>.ts`.
 * - `access`: what the Lambda may do to the table (read routes get no write grant).
 * - `actions`: what the caller needs, in both its role on the resource's space and its token's
 *   scopes (routes on no space resource check only the token's scopes).
 * - `auth`: `token` (default) any valid token; `admin` an instance admin; `personal` a personal
 *   token only (not a temporary one).
 * - `status`: the success status (default 200).
 * What each route is for, in words, lives with the README generator (`infra/local/route-docs.ts`):
 * every Lambda bundles this table, so it carries only what the code needs.
 */
export interface RouteDef {
  method: HttpMethod;
  path: string;
  handler: string;
  access: 'read' | 'write';
  actions: readonly Scope[];
  auth?: 'token' | 'admin' | 'personal';
  status?: number;
}

/** The one list of routes. The stack, the local server, the handlers and the tests read it. */
export const ROUTES = [
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
    actions: [],
    auth: 'admin',
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
    access: 'write',
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
    access: 'write',
    actions: ['base|delete'],
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
    access: 'write',
    actions: ['table|delete'],
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table/{tableId}/default-view-id',
    handler: 'get-default-view-id',
    access: 'read',
    actions: ['view|read'],
  },
  {
    method: 'POST',
    path: '/table/{tableId}/field',
    handler: 'create-field',
    access: 'write',
    actions: ['field|create'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/field',
    handler: 'list-fields',
    access: 'read',
    actions: ['field|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'get-field',
    access: 'read',
    actions: ['field|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'update-field',
    access: 'write',
    actions: ['field|update'],
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'delete-field',
    access: 'write',
    actions: ['field|delete'],
  },
  {
    method: 'POST',
    path: '/table/{tableId}/view',
    handler: 'create-view',
    access: 'write',
    actions: ['view|create'],
    status: 201,
  },
  {
    method: 'GET',
    path: '/table/{tableId}/view',
    handler: 'list-views',
    access: 'read',
    actions: ['view|read'],
  },
  {
    method: 'GET',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'get-view',
    access: 'read',
    actions: ['view|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'update-view',
    access: 'write',
    actions: ['view|update'],
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'delete-view',
    access: 'write',
    actions: ['view|delete'],
  },

  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/record-order',
    handler: 'update-record-order',
    access: 'write',
    actions: ['view|update'],
  },

  // Records
  {
    method: 'GET',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'get-record',
    access: 'read',
    actions: ['record|read'],
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'update-record',
    access: 'write',
    actions: ['record|update'],
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'delete-record',
    access: 'write',
    actions: ['record|delete'],
  },
  {
    method: 'POST',
    path: '/table/{tableId}/record',
    handler: 'create-records',
    access: 'write',
    actions: ['record|create'],
    status: 201,
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/record',
    handler: 'update-records',
    access: 'write',
    actions: ['record|update'],
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/record',
    handler: 'delete-records',
    access: 'write',
    actions: ['record|delete'],
  },
  {
    method: 'POST',
    path: '/table/{tableId}/record/{recordId}/duplicate',
    handler: 'duplicate-record',
    access: 'write',
    actions: ['record|create', 'record|read'],
    status: 201,
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
] as const satisfies readonly RouteDef[];

export type HandlerName = (typeof ROUTES)[number]['handler'];

/** The route served by a handler; every handler module looks itself up here at load. */
export const routeOf = (handler: HandlerName): RouteDef => {
  const route = ROUTES.find((r) => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
};
