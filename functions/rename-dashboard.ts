import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { renameDashboard } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base'), dashboardId: idOf('dashboard') });
const body = z.object({ name: displayName });

export const handler = defineHandler('rename-dashboard', { params, body }, async ({ params, body }) =>
  renameDashboard(params.baseId, params.dashboardId, body.name),
);
