import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { deleteDashboard } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base'), dashboardId: idOf('dashboard') });

export const handler = defineHandler('delete-dashboard', { params }, async ({ params }) => {
  await deleteDashboard(params.baseId, params.dashboardId);
});
