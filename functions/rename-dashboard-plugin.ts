import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { renameDashboardPlugin } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({
  baseId: idOf('base'),
  dashboardId: idOf('dashboard'),
  pluginInstallId: idOf('pluginInstall'),
});
const body = z.object({ name: displayName });

// Renaming a dashboard plugin install: authentication (one batch) and one conditional UpdateItem.
export const handler = defineHandler('rename-dashboard-plugin', { params, body }, async ({ params, body }) =>
  renameDashboardPlugin(params.baseId, params.dashboardId, params.pluginInstallId, body.name),
);
