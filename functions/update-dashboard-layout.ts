import * as z from 'zod/mini';
import { idOf, listOf } from '#shared/core/validation.ts';
import { MAX_DASHBOARD_PLUGINS, updateDashboardLayout } from '#shared/dashboards/dashboards.ts';
import { defineHandler } from '#shared/http/handler.ts';

const params = z.object({ baseId: idOf('base'), dashboardId: idOf('dashboard') });
const place = z.int().check(z.minimum(0), z.maximum(10_000));
const size = z.int().check(z.minimum(1), z.maximum(10_000));
const body = z.object({
  layout: listOf(
    // any install id text, as Teable takes it (boxes of installs not on the dashboard are left out)
    z.object({
      pluginInstallId: z.string().check(z.minLength(1), z.maxLength(100)),
      x: place,
      y: place,
      w: size,
      h: size,
    }),
    0,
    MAX_DASHBOARD_PLUGINS,
  ),
});

export const handler = defineHandler('update-dashboard-layout', { params, body }, async ({ params, body }) =>
  updateDashboardLayout(params.baseId, params.dashboardId, body.layout),
);
