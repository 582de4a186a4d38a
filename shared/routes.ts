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
