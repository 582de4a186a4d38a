import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { createDashboard } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base') });
const body = z.object({ name: displayName });

export const handler = defineHandler(
  'create-dashboard',
  { params, body },
  async ({ params, body, principal }) => createDashboard(params.baseId, principal.userId, body.name),
);
