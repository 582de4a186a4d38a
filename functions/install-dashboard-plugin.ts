import * as z from 'zod/mini';
import { displayName, idOf } from '#shared/core/validation.ts';
import { installDashboardPlugin } from '#shared/dashboards/dashboards.ts';
import { keys } from '#shared/db/keys.ts';
import { loadedPlugin } from '#shared/entities/plugins.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base'), dashboardId: idOf('dashboard') });
const body = z.object({ pluginId: idOf('plugin'), name: z.optional(displayName) });

export const handler = defineHandler(
  'install-dashboard-plugin',
  {
    params,
    body,
    // The plugin comes with authentication: no extra round trip to check it.
    preload: (_userId, { body }) => [keys.plugin(body.pluginId)],
  },
  async ({ params, body, principal, loaded }) =>
    installDashboardPlugin({
      baseId: params.baseId,
      dashboardId: params.dashboardId,
      userId: principal.userId,
      pluginId: body.pluginId,
      plugin: loadedPlugin(loaded, body.pluginId),
      name: body.name,
    }),
);
