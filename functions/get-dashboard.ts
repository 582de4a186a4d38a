import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { getDashboard } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base'), dashboardId: idOf('dashboard') });

export const handler = defineHandler('get-dashboard', { params }, async ({ params }) =>
  getDashboard(params.baseId, params.dashboardId),
);
