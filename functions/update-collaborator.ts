import * as z from 'zod/mini';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf, roleSchema } from '#shared/http/schemas.ts';
import { changeRole } from '#shared/spaces/spaces.ts';

const params = z.object({ spaceId: idOf('space') });
const body = z.object({ principalId: idOf('user'), principalType: z.literal('user'), role: roleSchema });

export const handler = defineHandler(
  'update-collaborator',
  { params, body, resource: { kind: 'space', param: 'spaceId' } },
  async ({ principal, resource, body }) => changeRole(principal, resource, body.principalId, body.role),
);
