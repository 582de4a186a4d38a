import * as z from 'zod/mini';
import { permissionMap } from '#shared/auth/permission.ts';
import { SCOPES } from '#shared/auth/scopes.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });

export const handler = defineHandler('get-base-permission', { params }, async ({ principal, resource }) =>
  permissionMap(principal, resource, resource.role, SCOPES),
);
