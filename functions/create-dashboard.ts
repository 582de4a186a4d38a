import * as z from 'zod/mini';
import { createDashboard } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { displayName } from '#shared/http/validation.ts';

const params = z.object({ baseId: idOf('base') });
const body = z.object({ name: displayName });

export const handler = defineHandler(
  'create-dashboard',
  { params, body, resource: { kind: 'base', param: 'baseId' } },
  async ({ params, body, principal }) => createDashboard(params.baseId, principal.userId, body.name),
);
