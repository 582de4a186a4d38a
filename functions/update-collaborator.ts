import * as z from 'zod/mini';
import { roleSchema } from '#shared/auth/token-requests.ts';
import { idOf } from '#shared/core/validation.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { changeRole } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const body = z.object({ principalId: idOf('user'), principalType: z.literal('user'), role: roleSchema });

export const handler = defineHandler(
  'update-collaborator',
  { params, body },
  async ({ principal, resource, body }) => changeRole(principal, resource, body.principalId, body.role),
);
