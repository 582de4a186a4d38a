import * as z from 'zod/mini';
import { renameDashboard } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { displayName } from '#shared/http/validation.ts';

const params = z.object({ baseId: idOf('base'), dashboardId: idOf('dashboard') });
const body = z.object({ name: displayName });

export const handler = defineHandler(
  'rename-dashboard',
  { params, body, resource: { kind: 'base', param: 'baseId' } },
  async ({ params, body }) => renameDashboard(params.baseId, params.dashboardId, body.name),
);
