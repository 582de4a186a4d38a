import * as z from 'zod/mini';
import { renameDashboardPlugin } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';
import { idOf } from '#shared/http/schemas.ts';
import { displayName } from '#shared/http/validation.ts';

const params = z.object({
  baseId: idOf('base'),
  dashboardId: idOf('dashboard'),
  pluginInstallId: idOf('pluginInstall'),
});
const body = z.object({ name: displayName });

// ★12: authentication (one batch) and one conditional UpdateItem.
export const handler = defineHandler(
  'rename-dashboard-plugin',
  { params, body, resource: { kind: 'base', param: 'baseId' } },
  async ({ params, body }) =>
    renameDashboardPlugin(params.baseId, params.dashboardId, params.pluginInstallId, body.name),
);
