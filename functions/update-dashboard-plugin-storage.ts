import * as z from 'zod/mini';
import { idOf } from '#shared/core/validation.ts';
import { updateDashboardPluginStorage } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { installStorage } from '#shared/plugins/plugin-requests.ts';

const params = z.object({
  baseId: idOf('base'),
  dashboardId: idOf('dashboard'),
  pluginInstallId: idOf('pluginInstall'),
});
const body = z.object({ storage: z.optional(installStorage) });

export const handler = defineHandler(
  'update-dashboard-plugin-storage',
  { params, body },
  async ({ params, body }) =>
    updateDashboardPluginStorage(params.baseId, params.dashboardId, params.pluginInstallId, body.storage),
);
