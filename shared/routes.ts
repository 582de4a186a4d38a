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
 */
export interface RouteDef {
  method: HttpMethod;
  path: string;
  handler: string;
  access: 'read' | 'write';
  actions: readonly Scope[];
  auth?: 'token' | 'admin' | 'personal';
  status?: number;
  summary: string;
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
    summary: 'The calling user',
  },
  {
    method: 'GET',
    path: '/auth/temp-token',
    handler: 'create-temp-token',
    access: 'read',
    actions: [],
    auth: 'personal',
    summary: "A 10-minute JWT with the calling token's rights",
  },
  {
    method: 'POST',
    path: '/access-token',
    handler: 'create-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
    status: 201,
    summary: 'Create a personal access token',
  },
  {
    method: 'GET',
    path: '/access-token',
    handler: 'list-access-tokens',
    access: 'read',
    actions: [],
    summary: "The caller's personal access tokens",
  },
  {
    method: 'PATCH',
    path: '/access-token/{accessTokenId}',
    handler: 'update-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
    summary: 'Rename or re-scope a token',
  },
  {
    method: 'POST',
    path: '/access-token/{accessTokenId}/refresh',
    handler: 'refresh-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
    summary: 'New secret and expiry; the old secret stops working',
  },
  {
    method: 'DELETE',
    path: '/access-token/{accessTokenId}',
    handler: 'delete-access-token',
    access: 'write',
    actions: [],
    auth: 'personal',
    summary: 'Revoke a token at once',
  },
  {
    method: 'POST',
    path: '/admin/users',
    handler: 'create-user',
    access: 'write',
    actions: [],
    auth: 'admin',
    status: 201,
    summary: 'Create a user and its first token (instance admin)',
  },

  // Spaces and collaborators
  {
    method: 'POST',
    path: '/space',
    handler: 'create-space',
    access: 'write',
    actions: ['space|create'],
    status: 201,
    summary: 'Create a space; the caller becomes its owner',
  },
  {
    method: 'GET',
    path: '/space',
    handler: 'list-spaces',
    access: 'read',
    actions: ['space|read'],
    summary: 'Spaces the caller belongs to',
  },
  {
    method: 'GET',
    path: '/space/{spaceId}',
    handler: 'get-space',
    access: 'read',
    actions: ['space|read'],
    summary: "One space with the caller's role",
  },
  {
    method: 'PATCH',
    path: '/space/{spaceId}',
    handler: 'update-space',
    access: 'write',
    actions: ['space|update'],
    summary: 'Rename a space',
  },
  {
    method: 'DELETE',
    path: '/space/{spaceId}',
    handler: 'delete-space',
    access: 'write',
    actions: ['space|delete'],
    summary: 'Move a space to the trash',
  },
  {
    method: 'DELETE',
    path: '/space/{spaceId}/permanent',
    handler: 'delete-space-permanently',
    access: 'write',
    actions: ['space|delete'],
    summary: 'Delete a space and everything in it for good',
  },
  {
    method: 'GET',
    path: '/space/{spaceId}/collaborators',
    handler: 'list-collaborators',
    access: 'read',
    actions: ['space|read'],
    summary: 'Collaborators of a space',
  },
  {
    method: 'POST',
    path: '/space/{spaceId}/collaborators',
    handler: 'add-collaborators',
    access: 'write',
    actions: ['space|invite'],
    status: 201,
    summary: 'Add users to a space with a role',
  },
  {
    method: 'PATCH',
    path: '/space/{spaceId}/collaborators',
    handler: 'update-collaborator',
    access: 'write',
    actions: ['space|grant_role'],
    summary: "Change a collaborator's role",
  },
  {
    method: 'DELETE',
    path: '/space/{spaceId}/collaborators',
    handler: 'remove-collaborator',
    access: 'write',
    actions: ['space|read'],
    summary: 'Remove a collaborator (oneself, or anyone with space|grant_role)',
  },

  // Bases
  {
    method: 'POST',
    path: '/base',
    handler: 'create-base',
    access: 'write',
    actions: ['base|create'],
    status: 201,
    summary: 'Create a base in a space',
  },
  {
    method: 'GET',
    path: '/space/{spaceId}/base',
    handler: 'list-bases',
    access: 'read',
    actions: ['base|read'],
    summary: 'Bases of a space',
  },
  {
    method: 'GET',
    path: '/base/{baseId}',
    handler: 'get-base',
    access: 'read',
    actions: ['base|read'],
    summary: 'One base',
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}',
    handler: 'update-base',
    access: 'write',
    actions: ['base|update'],
    summary: 'Rename a base or change its icon',
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}',
    handler: 'delete-base',
    access: 'write',
    actions: ['base|delete'],
    summary: 'Move a base to the trash',
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/permanent',
    handler: 'delete-base-permanently',
    access: 'write',
    actions: ['base|delete'],
    summary: 'Delete a base and everything in it for good',
  },

  // Tables, fields, views
  {
    method: 'POST',
    path: '/base/{baseId}/table',
    handler: 'create-table',
    access: 'write',
    actions: ['table|create'],
    status: 201,
    summary: 'Create a table with fields, views and records',
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table',
    handler: 'list-tables',
    access: 'read',
    actions: ['table|read'],
    summary: 'Tables of a base',
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table/{tableId}',
    handler: 'get-table',
    access: 'read',
    actions: ['table|read'],
    summary: 'One table',
  },
  {
    method: 'PATCH',
    path: '/base/{baseId}/table/{tableId}',
    handler: 'update-table',
    access: 'write',
    actions: ['table|update'],
    summary: 'Rename a table, change its description or icon',
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/table/{tableId}',
    handler: 'delete-table',
    access: 'write',
    actions: ['table|delete'],
    summary: 'Move a table to the trash',
  },
  {
    method: 'DELETE',
    path: '/base/{baseId}/table/{tableId}/permanent',
    handler: 'delete-table-permanently',
    access: 'write',
    actions: ['table|delete'],
    summary: 'Delete a table and its records for good',
  },
  {
    method: 'GET',
    path: '/base/{baseId}/table/{tableId}/default-view-id',
    handler: 'get-default-view-id',
    access: 'read',
    actions: ['view|read'],
    summary: "The id of the table's first view",
  },
  {
    method: 'POST',
    path: '/table/{tableId}/field',
    handler: 'create-field',
    access: 'write',
    actions: ['field|create'],
    status: 201,
    summary: 'Create a field',
  },
  {
    method: 'GET',
    path: '/table/{tableId}/field',
    handler: 'list-fields',
    access: 'read',
    actions: ['field|read'],
    summary: "Fields of a table (in a view's column order with viewId)",
  },
  {
    method: 'GET',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'get-field',
    access: 'read',
    actions: ['field|read'],
    summary: 'One field',
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'update-field',
    access: 'write',
    actions: ['field|update'],
    summary: "Change a field's name, description, dbFieldName or options",
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/field/{fieldId}',
    handler: 'delete-field',
    access: 'write',
    actions: ['field|delete'],
    summary: 'Delete a field (not the primary field)',
  },
  {
    method: 'POST',
    path: '/table/{tableId}/view',
    handler: 'create-view',
    access: 'write',
    actions: ['view|create'],
    status: 201,
    summary: 'Create a view',
  },
  {
    method: 'GET',
    path: '/table/{tableId}/view',
    handler: 'list-views',
    access: 'read',
    actions: ['view|read'],
    summary: 'Views of a table, in order',
  },
  {
    method: 'GET',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'get-view',
    access: 'read',
    actions: ['view|read'],
    summary: 'One view',
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'update-view',
    access: 'write',
    actions: ['view|update'],
    summary: "Change a view's name, filter, sort, group, columns or options",
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/view/{viewId}',
    handler: 'delete-view',
    access: 'write',
    actions: ['view|delete'],
    summary: 'Delete a view (not the last one)',
  },

  {
    method: 'PUT',
    path: '/table/{tableId}/view/{viewId}/record-order',
    handler: 'update-record-order',
    access: 'write',
    actions: ['view|update'],
    summary: "Place records before or after an anchor in a view's manual order",
  },

  // Records
  {
    method: 'GET',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'get-record',
    access: 'read',
    actions: ['record|read'],
    summary: 'One record (ETag)',
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'update-record',
    access: 'write',
    actions: ['record|update'],
    summary: 'Update one record (If-Match)',
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/record/{recordId}',
    handler: 'delete-record',
    access: 'write',
    actions: ['record|delete'],
    summary: 'Delete one record for good (If-Match)',
  },
  {
    method: 'POST',
    path: '/table/{tableId}/record',
    handler: 'create-records',
    access: 'write',
    actions: ['record|create'],
    status: 201,
    summary: 'Create 0..1000 records (Idempotency-Key)',
  },
  {
    method: 'PATCH',
    path: '/table/{tableId}/record',
    handler: 'update-records',
    access: 'write',
    actions: ['record|update'],
    summary: 'Update 1..1000 records (Idempotency-Key)',
  },
  {
    method: 'DELETE',
    path: '/table/{tableId}/record',
    handler: 'delete-records',
    access: 'write',
    actions: ['record|delete'],
    summary: 'Delete 1..1000 records for good',
  },
  {
    method: 'POST',
    path: '/table/{tableId}/record/{recordId}/duplicate',
    handler: 'duplicate-record',
    access: 'write',
    actions: ['record|create', 'record|read'],
    status: 201,
    summary: 'Copy a record (Idempotency-Key)',
  },

  // Notifications
  {
    method: 'GET',
    path: '/notifications',
    handler: 'list-notifications',
    access: 'read',
    actions: [],
    summary: "The caller's notifications, newest first, 10 a page",
  },
  {
    method: 'GET',
    path: '/notifications/unread-count',
    handler: 'count-unread-notifications',
    access: 'read',
    actions: [],
    summary: 'How many notifications are unread',
  },
  {
    method: 'PATCH',
    path: '/notifications/read-all',
    handler: 'mark-all-notifications-read',
    access: 'write',
    actions: [],
    summary: 'Mark every notification read',
  },
  {
    method: 'PATCH',
    path: '/notifications/{notificationId}/status',
    handler: 'update-notification-status',
    access: 'write',
    actions: [],
    summary: 'Mark one notification read or unread',
  },
] as const satisfies readonly RouteDef[];

export type HandlerName = (typeof ROUTES)[number]['handler'];

/** The route served by a handler; every handler module looks itself up here at load. */
export const routeOf = (handler: HandlerName): RouteDef => {
  const route = ROUTES.find((r) => r.handler === handler);
  if (!route) throw new Error(`No route for handler ${handler}`);
  return route;
};
