import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { getDashboardPlugin } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({
  baseId: idOf('base'),
  dashboardId: idOf('dashboard'),
  pluginInstallId: idOf('pluginInstall'),
});

export const handler = defineHandler('get-dashboard-plugin', { params }, async ({ params }) =>
  getDashboardPlugin(params.baseId, params.dashboardId, params.pluginInstallId),
);
